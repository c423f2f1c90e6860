// An animated mesh on the device (include/portacl/mesh/frame_sequence.hpp): the triangles and the
// tree stay, positions and boxes change per frame.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "mesh_detail.hpp"
#include "portacl/mesh/frame_sequence.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::mesh {

struct FrameSequence::State {
    Context& ctx;
    TriangleMesh mesh;
    Precision mode;
    Touching touching;
    TwoPhaseList plan;
    detail::DeviceMesh d;
    detail::Hierarchy h;
    std::vector<cl::Event> events;  // since the last pairs(): the move's upload and refit
};

namespace {

std::vector<std::uint8_t> degenerateFlags(const TriangleMesh& m) {
    std::vector<std::uint8_t> f(m.triangleCount());
    for (std::uint32_t t = 0; t < f.size(); ++t) f[t] = isDegenerate(m, t);
    return f;
}

}  // namespace

FrameSequence::FrameSequence(Context& ctx, const TriangleMesh& first, Precision mode, Touching touching)
    : s_(new State{ctx, first, mode, touching, twoPhaseList(ctx, mode), {}, {}, {}}) {
    validate(first);
    detail::checkFitsFor(ctx, first, Method::Hierarchy);
    s_->d = detail::uploadMesh(ctx, first, degenerateFlags(first));
    s_->h = detail::buildHierarchy(ctx, first, s_->d.points, s_->d.tris, s_->d.boxLo, s_->d.boxHi, s_->events);
}

FrameSequence::~FrameSequence() = default;

const TriangleMesh& FrameSequence::mesh() const { return s_->mesh; }

void FrameSequence::moveTo(const std::vector<float>& points) {
    if (points.size() != s_->mesh.points.size())
        throw Error("a frame has " + std::to_string(points.size() / 3) + " vertices, the first frame " +
                    std::to_string(s_->mesh.vertexCount()) + "; the frames of a sequence move the same vertices");
    for (float c : points)
        if (!std::isfinite(c)) throw Error("a frame has a coordinate that is not finite");
    s_->mesh.points = points;
    Context& ctx = s_->ctx;
    s_->events.push_back(ctx.write(s_->d.points, points.data(), points.size() * sizeof(float), "frame points"));
    const auto flags = degenerateFlags(s_->mesh);  // a moving triangle may pass through a degenerate position
    s_->events.push_back(ctx.write(s_->d.degen, flags.data(), flags.size(), "frame degenerate flags"));
    detail::refitHierarchy(ctx, s_->h, s_->mesh.triangleCount(), s_->d.points, s_->d.tris, s_->d.boxLo, s_->d.boxHi, s_->events);
}

Result FrameSequence::pairs() {
    Result r;
    for (std::uint32_t t = 0; t < s_->mesh.triangleCount(); ++t)
        if (isDegenerate(s_->mesh, t)) r.degenerate.push_back(t);
    r = detail::findPairs(s_->ctx, s_->mesh, {Method::Hierarchy, s_->mode, s_->touching}, s_->plan, s_->d, s_->h, s_->events, std::move(r));
    s_->ctx.finish();
    r.deviceSeconds = detail::eventSeconds(s_->events);
    r.method = Method::Hierarchy;
    s_->events.clear();
    return r;
}

std::vector<std::vector<float>> readFrames(const std::string& folder, const TriangleMesh& first, std::vector<std::string>* names) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) throw Error("--frames names " + folder + ", which is not a folder");
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(folder, ec)) {
        std::string ext = e.path().extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        if (e.is_regular_file() && (ext == ".obj" || ext == ".off" || ext == ".ply" || ext == ".stl")) files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) throw Error("the frames folder " + folder + " holds no mesh file (.obj, .off, .ply, .stl)");
    std::vector<std::vector<float>> frames;
    for (const auto& f : files) {
        TriangleMesh m = readMesh(f);
        if (m.vertexCount() != first.vertexCount() || m.triangles != first.triangles)
            throw Error("the frame " + f + " has other vertices or triangles than the first frame (" + std::to_string(m.vertexCount()) +
                        " vertices and " + std::to_string(m.triangleCount()) + " triangles against " + std::to_string(first.vertexCount()) +
                        " and " + std::to_string(first.triangleCount()) + "); the frames of a sequence move the same vertices");
        frames.push_back(std::move(m.points));
    }
    if (names) *names = files;
    return frames;
}

}  // namespace portacl::mesh
