// Self-intersection of an animated mesh (the lecture's motivation: deformable models, cloth): one
// mesh whose vertices move from frame to frame, its triangles fixed. The triangles and the device
// hierarchy stay on the device; each frame uploads the positions, refits the hierarchy's boxes
// (the tree built on the first frame is kept: correct for any motion, slower to search the more the
// mesh has moved since) and finds the pairs, exactly as selfIntersections does.
#pragma once

#include "portacl/export.hpp"

#include <memory>
#include <string>
#include <vector>

#include "portacl/mesh/self_intersection.hpp"
#include "portacl/mesh/triangle_mesh.hpp"
#include "portacl/runtime/context.hpp"

namespace portacl::mesh {

class PORTACL_API FrameSequence {
public:
    // Frame 0: the mesh as given (validated; the hierarchy is built on it).
    FrameSequence(Context& ctx, const TriangleMesh& first, Precision mode = Precision::Mixed, Touching touching = Touching::Count);
    ~FrameSequence();
    FrameSequence(const FrameSequence&) = delete;
    FrameSequence& operator=(const FrameSequence&) = delete;

    // The pairs at the current positions.
    Result pairs();
    // Moves to the next frame: x, y, z per vertex, as many vertices as the first frame (one sentence
    // otherwise, or for a coordinate that is not finite).
    void moveTo(const std::vector<float>& points);
    const TriangleMesh& mesh() const;

private:
    struct State;
    std::unique_ptr<State> s_;
};

// The frames of a sequence on disk, for `portacl mesh-intersect --frames`: the mesh files of a folder
// (.obj, .off, .ply, .stl), sorted by name. Each must have the first frame's triangles (after
// fanning) and vertex count; one sentence names the first that does not. Returns each file's positions.
PORTACL_API std::vector<std::vector<float>> readFrames(const std::string& folder, const TriangleMesh& first,
                                                       std::vector<std::string>* names = nullptr);

}  // namespace portacl::mesh
