// HDF5 output of a diagram: the numbers of the text files (vertices, edges) as exact binary datasets,
// the balls they index, and the summary as attributes of the root group.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <unistd.h>

#include "portacl/io/hdf5_file.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"
#include "portacl/voronoi.hpp"

namespace portacl::voronoi {

namespace {

void writeContents(io::Hdf5File& h, const Diagram& d, const std::vector<io::Ball>& balls, const Hdf5Info& info) {
    const std::uint64_t nv = d.vertices.size(), ne = d.edges.size(), nb = balls.size();
    std::vector<std::uint32_t> quads(nv * 4);
    std::vector<double> spheres(nv * 4);
    for (std::size_t i = 0; i < nv; ++i) {
        const Vertex& v = d.vertices[i];
        for (int k = 0; k < 4; ++k) quads[i * 4 + k] = static_cast<std::uint32_t>(v.q[k]);
        spheres[i * 4 + 0] = v.x, spheres[i * 4 + 1] = v.y, spheres[i * 4 + 2] = v.z, spheres[i * 4 + 3] = v.r;
    }
    std::vector<std::int64_t> ends(ne * 2);
    std::vector<std::uint32_t> generators(ne * 3);
    std::vector<double> bottleneck(ne);
    for (std::size_t i = 0; i < ne; ++i) {
        const Edge& e = d.edges[i];
        ends[i * 2] = e.v0, ends[i * 2 + 1] = e.v1;
        for (int k = 0; k < 3; ++k) generators[i * 3 + k] = static_cast<std::uint32_t>(e.g[k]);
        bottleneck[i] = e.minRadius;
    }
    std::vector<double> ballData(nb * 4);
    for (std::size_t i = 0; i < nb; ++i)
        ballData[i * 4] = balls[i].x, ballData[i * 4 + 1] = balls[i].y, ballData[i * 4 + 2] = balls[i].z,
                    ballData[i * 4 + 3] = balls[i].r;

    h.createGroup("vertices");
    h.writeUInt32("vertices/balls", {nv, 4}, quads.data());
    h.writeDouble("vertices/spheres", {nv, 4}, spheres.data());
    h.writeStringAttribute("vertices/balls", "columns", "q1 q2 q3 q4 (ball indices, ascending)");
    h.writeStringAttribute("vertices/spheres", "columns", "x y z r (tangent sphere; r < 0 where the balls overlap it)");
    h.createGroup("edges");
    h.writeInt64("edges/vertices", {ne, 2}, ends.data());
    h.writeUInt32("edges/balls", {ne, 3}, generators.data());
    h.writeDouble("edges/bottleneck_radius", {ne}, bottleneck.data());
    h.writeStringAttribute("edges/vertices", "columns", "v0 v1 (rows of vertices/*; v1 = -1: unbounded; -2 -2: closed edge with no vertex; -1 -1: open edge with no vertex)");
    h.writeStringAttribute("edges/balls", "columns", "g1 g2 g3 (ball indices, ascending)");
    h.writeStringAttribute("edges/bottleneck_radius", "columns", "min_radius (smallest tangent-sphere radius along the edge)");
    h.createGroup("balls");
    h.writeDouble("balls/spheres", {nb, 4}, ballData.data());
    h.writeStringAttribute("balls/spheres", "columns", "x y z r (input balls after filtering, numbered from 0 in input order)");

    // The summary line of the text output, one attribute per field but its run time (not data).
    h.writeInt64Attribute("/", "balls", static_cast<std::int64_t>(nb));
    h.writeInt64Attribute("/", "hidden", d.hiddenBalls);
    h.writeInt64Attribute("/", "vertices", static_cast<std::int64_t>(nv));
    h.writeInt64Attribute("/", "edges", static_cast<std::int64_t>(ne));
    h.writeInt64Attribute("/", "components", d.components);
    h.writeInt64Attribute("/", "phase2_edges", static_cast<std::int64_t>(d.phase2Edges));
    h.writeInt64Attribute("/", "redone_on_host", static_cast<std::int64_t>(d.redoneOnHost));
    h.writeInt64Attribute("/", "unresolved_edges", static_cast<std::int64_t>(d.unresolvedEdges));
    h.writeInt64Attribute("/", "searches", static_cast<std::int64_t>(d.solvedEdges));
    h.writeInt64Attribute("/", "waves", d.waves);
    h.writeInt64Attribute("/", "closed_edges", static_cast<std::int64_t>(d.closedEdges));
    h.writeInt64Attribute("/", "free_open_edges", static_cast<std::int64_t>(d.freeEdges));
    h.writeInt64Attribute("/", "pass_rounds", d.passes);
    h.writeInt64Attribute("/", "pass_faces", static_cast<std::int64_t>(d.passFaces));
    h.writeInt64Attribute("/", "pass_triples", static_cast<std::int64_t>(d.passTriples));
    h.writeInt64Attribute("/", "pass_flagged", static_cast<std::int64_t>(d.passFlagged));
    h.writeInt64Attribute("/", "pass_starts", static_cast<std::int64_t>(d.passSeeds));
    h.writeInt64Attribute("/", "frame", info.frame);
    h.writeInt64Attribute("/", "frames", info.frames);
    h.writeStringAttribute("/", "input", info.input);
    h.writeStringAttribute("/", "precision", info.precision);
    h.writeStringAttribute("/", "radii", info.radii);
    h.writeStringAttribute("/", "radii_table", info.radiiTable);
}

}  // namespace

void writeHdf5(const std::string& path, const Diagram& d, const std::vector<io::Ball>& balls, const Hdf5Info& info) {
    AtomicOutput out(path);
    writeHdf5To(out, d, balls, info);
    out.commit();
}

void writeHdf5To(const AtomicOutput& out, const Diagram& d, const std::vector<io::Ball>& balls, const Hdf5Info& info) {
    try {
        io::Hdf5File h = io::Hdf5File::create(out.writePath(), out.path());
        writeContents(h, d, balls, info);
        h.close();
    } catch (const Error&) {
        throw Error("cannot write the HDF5 file '" + out.path() + "' (HDF5 failed: is the disk full?)");
    }
}

}  // namespace portacl::voronoi
