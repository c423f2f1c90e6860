// The device hierarchy over a mesh's triangles (cl/mesh_self_intersection.cl): boxes and Morton keys,
// a bitonic sort, Karras's radix tree and the refit of its boxes from the leaves up.
#include <algorithm>
#include <limits>

#include "mesh_detail.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/kernel_args.hpp"

namespace portacl::mesh::detail {

double eventSeconds(const std::vector<cl::Event>& events) {
    double s = 0;
    for (const auto& e : events) {
        try {
            const cl_ulong a = e.getProfilingInfo<CL_PROFILING_COMMAND_START>(), b = e.getProfilingInfo<CL_PROFILING_COMMAND_END>();
            if (b > a) s += double(b - a) * 1e-9;
        } catch (const cl::Error&) {
            return 0;  // no profiling on this queue or device
        }
    }
    // A driver whose events carry no times (Mesa 22.3's rusticl: 1 ns per command) reports 0, unknown.
    return s > 2e-9 * double(events.size()) ? s : 0;
}

namespace {

// The internal boxes from the leaves' (n >= 2; the counters and flags of every node cleared): one launch where
// the device's atomics order the hand-over, else passes until the root is ready (the tree is at
// most 65 deep: every level adds a bit to the keys' common prefix).
void refitBoxes(Context& ctx, const Hierarchy& h, std::size_t n, std::vector<cl::Event>& events) {
    const std::size_t ls = std::min<std::size_t>(64, ctx.device().maxWorkGroupSize);
    if (ctx.tuning().get("mesh", "refit", "atomic") != "levels") {
        cl::Kernel& refit = meshKernel(ctx, kSource, "mesh_bvh_refit", Precision::Float);
        setArgs(refit, 0, cl_uint(n), h.parent, h.left, h.right, h.arrivals, h.nodeLo, h.nodeHi);
        events.push_back(ctx.launch(refit, cl::NDRange(roundUp(n, ls)), cl::NDRange(ls)));
        return;
    }
    cl::Buffer other = ctx.buffer((n - 1) * sizeof(cl_uint), "mesh tree refit flags (second)");
    cl::Kernel& level = meshKernel(ctx, kSource, "mesh_bvh_refit_level", Precision::Float);
    const cl::Buffer* ready[2] = {&h.arrivals, &other};
    for (int pass = 0; pass < 66; ++pass) {
        setArgs(level, 0, cl_uint(n), h.left, h.right, *ready[pass % 2], *ready[(pass + 1) % 2], h.nodeLo, h.nodeHi);
        events.push_back(ctx.launch(level, cl::NDRange(roundUp(n - 1, ls)), cl::NDRange(ls)));
        if (pass % 8 == 7 || pass == 65) {
            cl_uint root = 0;
            ctx.read(*ready[(pass + 1) % 2], &root, sizeof(root), "mesh tree root ready");
            if (root) return;
        }
    }
    throw Error("the mesh hierarchy's refit did not reach the root in 66 passes; this is a bug, please report it");
}

}  // namespace

std::size_t pow2AtLeast(std::size_t n) {
    std::size_t p = 1;
    while (p < n) p <<= 1;
    return p;
}

Hierarchy buildHierarchy(Context& ctx, const TriangleMesh& m, const cl::Buffer& points, const cl::Buffer& tris,
                         const cl::Buffer& boxLo, const cl::Buffer& boxHi, std::vector<cl::Event>& events) {
    const std::size_t n = m.triangleCount();
    std::size_t ls = std::min<std::size_t>(256, ctx.device().maxWorkGroupSize);
    ls = std::min<std::size_t>(ls, ctx.device().localMemBytes / 16);
    while (ls & (ls - 1)) ls &= ls - 1;
    // Small meshes sort in blocks of a quarter of their keys, so that every sort kernel runs on them too.
    const std::size_t padded = std::max<std::size_t>(pow2AtLeast(n), 4);
    ls = std::min(ls, padded / 4);
    // The box of the triangles' box centres fixes the Morton grid (1024 cells per axis).
    float lo[3], hi[3];
    for (int k = 0; k < 3; ++k) lo[k] = std::numeric_limits<float>::max(), hi[k] = -std::numeric_limits<float>::max();
    for (std::size_t v = 0; v < m.vertexCount(); ++v)
        for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], m.points[3 * v + std::size_t(k)]), hi[k] = std::max(hi[k], m.points[3 * v + std::size_t(k)]);
    cl_float4 sceneLo{{lo[0], lo[1], lo[2], 0}}, scale{};
    for (int k = 0; k < 3; ++k) {
        const double extent = double(hi[k]) - double(lo[k]);
        scale.s[k] = extent > 0 ? float(1023.0 / extent) : 0.0f;
    }
    Hierarchy h;
    cl::Buffer keys = ctx.buffer(padded * sizeof(cl_ulong), "mesh Morton keys");
    h.sortedTri = ctx.buffer(n * sizeof(cl_uint), "mesh sorted triangles");
    const std::size_t internal = std::max<std::size_t>(n - 1, 1);
    h.left = ctx.buffer(internal * sizeof(cl_uint), "mesh tree left children");
    h.right = ctx.buffer(internal * sizeof(cl_uint), "mesh tree right children");
    h.last = ctx.buffer(internal * sizeof(cl_uint), "mesh tree ranges");
    h.parent = ctx.buffer((2 * n - 1) * sizeof(cl_uint), "mesh tree parents");
    h.arrivals = ctx.buffer((2 * n - 1) * sizeof(cl_uint), "mesh tree refit flags");
    const cl::Buffer& parent = h.parent;
    const cl::Buffer& arrivals = h.arrivals;
    h.nodeLo = ctx.buffer((2 * n - 1) * sizeof(cl_float4), "mesh tree boxes (low)");
    h.nodeHi = ctx.buffer((2 * n - 1) * sizeof(cl_float4), "mesh tree boxes (high)");

    cl::Kernel& boxes = meshKernel(ctx, kSource, "mesh_boxes_morton", Precision::Float);
    setArgs(boxes, 0, cl_uint(n), cl_uint(padded), points, tris, sceneLo, scale, boxLo, boxHi, keys);
    events.push_back(ctx.launch(boxes, cl::NDRange(padded), cl::NDRange(ls)));
    cl::Kernel& sortLocal = meshKernel(ctx, kSource, "mesh_sort_local", Precision::Float);
    setArgs(sortLocal, 0, keys, cl::Local(ls * sizeof(cl_ulong)));
    events.push_back(ctx.launch(sortLocal, cl::NDRange(padded), cl::NDRange(ls)));
    cl::Kernel& mergeLocal = meshKernel(ctx, kSource, "mesh_sort_merge_local", Precision::Float);
    cl::Kernel& step = meshKernel(ctx, kSource, "mesh_sort_step", Precision::Float);
    for (std::size_t k = 2 * ls; k <= padded; k <<= 1) {
        for (std::size_t j = k >> 1; j >= ls; j >>= 1) {
            setArgs(step, 0, keys, cl_uint(j), cl_uint(k));
            events.push_back(ctx.launch(step, cl::NDRange(padded), cl::NDRange(ls)));
        }
        setArgs(mergeLocal, 0, keys, cl_uint(k), cl::Local(ls * sizeof(cl_ulong)));
        events.push_back(ctx.launch(mergeLocal, cl::NDRange(padded), cl::NDRange(ls)));
    }
    cl::Kernel& leaves = meshKernel(ctx, kSource, "mesh_bvh_leaves", Precision::Float);
    setArgs(leaves, 0, cl_uint(n), keys, boxLo, boxHi, h.sortedTri, h.nodeLo, h.nodeHi, arrivals);
    events.push_back(ctx.launch(leaves, cl::NDRange(roundUp(n, ls)), cl::NDRange(ls)));
    if (n > 1) {
        cl::Kernel& build = meshKernel(ctx, kSource, "mesh_bvh_build", Precision::Float);
        setArgs(build, 0, cl_uint(n), keys, h.left, h.right, h.last, parent, arrivals);
        events.push_back(ctx.launch(build, cl::NDRange(roundUp(n - 1, ls)), cl::NDRange(ls)));
        refitBoxes(ctx, h, n, events);
    }
    return h;
}

void refitHierarchy(Context& ctx, const Hierarchy& h, std::size_t n, const cl::Buffer& points, const cl::Buffer& tris,
                    const cl::Buffer& boxLo, const cl::Buffer& boxHi, std::vector<cl::Event>& events) {
    const std::size_t ls = std::min<std::size_t>(64, ctx.device().maxWorkGroupSize);
    cl::Kernel& leaves = meshKernel(ctx, kSource, "mesh_bvh_leaf_boxes", Precision::Float);
    setArgs(leaves, 0, cl_uint(n), h.sortedTri, points, tris, boxLo, boxHi, h.nodeLo, h.nodeHi, h.arrivals);
    events.push_back(ctx.launch(leaves, cl::NDRange(roundUp(n, ls)), cl::NDRange(ls)));
    if (n >= 2) refitBoxes(ctx, h, n, events);
}

}  // namespace portacl::mesh::detail
