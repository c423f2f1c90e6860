// Point-in-mesh on the device (cl/mesh_point_in_mesh.cl) over the self-intersection's hierarchy:
// phase 1 in float lists the points whose signs float cannot vouch for, phase 2 classifies them in
// double (Mixed: the engine's append-list plan), or the host does (Float mode, and Mixed where the
// device has no fp64); points
// whose six axis rays all meet an edge or a vertex go to the host's random rays.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "mesh_detail.hpp"
#include "portacl/mesh/point_in_mesh.hpp"
#include "portacl/mesh/self_intersection.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/kernel_args.hpp"
#include "portacl/runtime/two_phase.hpp"

namespace portacl::mesh {

SideResult classifyPoints(Context& ctx, const TriangleMesh& m, const std::vector<float>& queries, Precision mode) {
    validate(m);
    requireClosed(m);
    if (queries.empty() || queries.size() % 3) throw Error("point-in-mesh needs points as x, y, z triples");
    for (float c : queries)
        if (!std::isfinite(c)) throw Error("point-in-mesh: a query point has a coordinate that is not finite");
    const TwoPhaseList plan = twoPhaseList(ctx, mode);
    const std::size_t n = m.triangleCount(), count = queries.size() / 3;
    if (count >= (std::size_t(1) << 32)) throw Error("point-in-mesh takes fewer than 2^32 points at a time");
    ctx.checkFits(n * 120 + m.points.size() * 4 + count * 17, "point-in-mesh of " + std::to_string(count) + " points against " + std::to_string(n) + " triangles");
    std::vector<std::uint8_t> degenerate(n);
    for (std::uint32_t t = 0; t < n; ++t) degenerate[t] = isDegenerate(m, t);
    float farLo[3], farHi[3];
    detail::rayEnds(m, queries, farLo, farHi);
    const cl_float4 lo4{{farLo[0], farLo[1], farLo[2], 0}}, hi4{{farHi[0], farHi[1], farHi[2], 0}};

    std::vector<cl::Event> events;
    cl::Buffer points = ctx.upload(m.points, "mesh points", CL_MEM_READ_ONLY);
    cl::Buffer tris = ctx.upload(m.triangles, "mesh triangles", CL_MEM_READ_ONLY);
    cl::Buffer degen = ctx.upload(degenerate, "mesh degenerate flags", CL_MEM_READ_ONLY);
    cl::Buffer q = ctx.upload(queries, "query points", CL_MEM_READ_ONLY);
    cl::Buffer boxLo = ctx.buffer(std::max(detail::pow2AtLeast(n), std::size_t(4)) * sizeof(cl_float4), "mesh triangle boxes (low)");
    cl::Buffer boxHi = ctx.buffer(std::max(detail::pow2AtLeast(n), std::size_t(4)) * sizeof(cl_float4), "mesh triangle boxes (high)");
    const detail::Hierarchy h = detail::buildHierarchy(ctx, m, points, tris, boxLo, boxHi, events);
    cl::Buffer side = ctx.buffer(count, "point sides");
    cl::Buffer counters = ctx.buffer(2 * sizeof(cl_uint), "point-in-mesh counters");
    cl::Buffer list = ctx.buffer(count * sizeof(cl_uint), "point-in-mesh undecided points");
    events.push_back(ctx.fill(counters, 0, 2 * sizeof(cl_uint), "clear point-in-mesh counters"));
    const std::size_t ls = std::min<std::size_t>(64, ctx.device().maxWorkGroupSize);
    const char* source = "mesh_point_in_mesh.cl";
    cl::Kernel& k1 = detail::meshKernel(ctx, source, "mesh_point_side", mode == Precision::Double ? Precision::Double : Precision::Float);
    setArgs(k1, 0, cl_uint(count), q, cl_uint(n), h.sortedTri, h.left, h.right, h.nodeLo, h.nodeHi, degen, points, tris, lo4, hi4, side,
            counters, list);
    events.push_back(ctx.launch(k1, cl::NDRange(roundUp(count, ls)), cl::NDRange(ls)));
    cl_uint c[2] = {0, 0};
    ctx.read(counters, c, sizeof(c), "point-in-mesh counters");
    SideResult r;
    r.undecided = mode == Precision::Double ? 0 : c[0];
    if (mode == Precision::Mixed && c[0] > 0 && plan.runsPhase2()) {
        cl::Kernel& k2 = detail::meshKernel(ctx, source, "mesh_point_side_phase2", Precision::Double);
        setArgs(k2, 0, counters, list, q, cl_uint(n), h.sortedTri, h.left, h.right, h.nodeLo, h.nodeHi, degen, points, tris, lo4, hi4, side);
        const std::size_t groups = plan.phase2Groups((c[0] + ls - 1) / ls);
        events.push_back(ctx.launch(k2, cl::NDRange(groups * ls), cl::NDRange(ls)));
        ctx.read(counters, c, sizeof(c), "point-in-mesh counters");
    }
    if (c[1]) throw Error("the mesh hierarchy's traversal ran out of stack (" + std::to_string(c[1]) + " times); this is a bug, please report it");
    std::vector<std::int8_t> codes = ctx.download<std::int8_t>(side, count, "point sides");
    std::vector<std::uint32_t> host;  // points the host finishes
    // Float mode leaves the device's fp64 alone: the host decides the points float could not, exactly,
    // as it does in Mixed mode on a device without fp64.
    if (c[0] > 0 && (mode == Precision::Float || (mode == Precision::Mixed && plan.phase2OnHost()))) {
        const auto listed = ctx.download<cl_uint>(list, c[0], "point-in-mesh undecided points");
        host.assign(listed.begin(), listed.end());
    }
    for (std::uint32_t i = 0; i < count; ++i)
        if (codes[i] == 4) host.push_back(i);  // every axis ray met an edge or a vertex
    std::sort(host.begin(), host.end());
    host.erase(std::unique(host.begin(), host.end()), host.end());
    if (!host.empty()) {
        const auto start = std::chrono::steady_clock::now();
        const auto boxes = detail::triangleBoxes(m);
        std::vector<std::int8_t> exact(host.size());
        // Few points, each a walk over the triangles: a thread per 16 points at most.
        detail::onHostThreads(host.size(), 16, [&](std::size_t begin, std::size_t end) {
            for (std::size_t k = begin; k < end; ++k) {
                // An undecided point of float's list redoes the axis rays exactly; an unresolved one goes to random rays.
                const std::uint32_t i = host[k];
                exact[k] = std::int8_t(detail::pointSideHost(m, boxes, degenerate, &queries[3 * std::size_t(i)], farLo, farHi, codes[i] != 4));
            }
        });
        for (std::size_t k = 0; k < host.size(); ++k) {
            const std::uint32_t i = host[k];
            r.floatGuessesWrong += codes[i] != 4 && codes[i] != exact[k];
            codes[i] = exact[k];
        }
        r.hostSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    r.hostPoints = host.size();
    for (std::int8_t v : codes) r.sides.push_back(Side(v));
    ctx.finish();
    r.deviceSeconds = detail::eventSeconds(events);
    return r;
}

}  // namespace portacl::mesh
