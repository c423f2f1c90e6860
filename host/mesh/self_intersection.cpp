// The self-intersection on the device (cl/mesh_self_intersection.cl): the triangles' boxes and Morton
// keys, a bitonic sort, Karras's radix tree and its refit, then one traversal per triangle that
// decides each overlapping pair at once (or the lecture's brute-force kernels over the same pairs);
// the pairs float cannot decide go to the double phase 2 (the engine's append-list two-phase plan),
// or to the host's exact test on a device without fp64.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "mesh_detail.hpp"
#include "portacl/mesh/self_intersection.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/kernel_args.hpp"

namespace portacl::mesh {
namespace {

constexpr const char* kSource = "mesh_self_intersection.cl";
constexpr std::uint32_t kGuessBit = 0x80000000u;

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
    return s;
}

std::size_t pow2AtLeast(std::size_t n) {
    std::size_t p = 1;
    while (p < n) p <<= 1;
    return p;
}

// The device's hierarchy over the triangles: sorted leaves and the internal nodes of Karras's tree.
struct Hierarchy {
    cl::Buffer sortedTri, left, right, last, nodeLo, nodeHi;
};

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
    cl::Buffer parent = ctx.buffer((2 * n - 1) * sizeof(cl_uint), "mesh tree parents");
    cl::Buffer arrivals = ctx.buffer(internal * sizeof(cl_uint), "mesh tree refit counts");
    h.nodeLo = ctx.buffer((2 * n - 1) * sizeof(cl_float4), "mesh tree boxes (low)");
    h.nodeHi = ctx.buffer((2 * n - 1) * sizeof(cl_float4), "mesh tree boxes (high)");

    cl::Kernel& boxes = ctx.kernel(kSource, "mesh_boxes_morton", Precision::Float);
    setArgs(boxes, 0, cl_uint(n), cl_uint(padded), points, tris, sceneLo, scale, boxLo, boxHi, keys);
    events.push_back(ctx.launch(boxes, cl::NDRange(padded), cl::NDRange(ls)));
    cl::Kernel& sortLocal = ctx.kernel(kSource, "mesh_sort_local", Precision::Float);
    setArgs(sortLocal, 0, keys, cl::Local(ls * sizeof(cl_ulong)));
    events.push_back(ctx.launch(sortLocal, cl::NDRange(padded), cl::NDRange(ls)));
    cl::Kernel& mergeLocal = ctx.kernel(kSource, "mesh_sort_merge_local", Precision::Float);
    cl::Kernel& step = ctx.kernel(kSource, "mesh_sort_step", Precision::Float);
    for (std::size_t k = 2 * ls; k <= padded; k <<= 1) {
        for (std::size_t j = k >> 1; j >= ls; j >>= 1) {
            setArgs(step, 0, keys, cl_uint(j), cl_uint(k));
            events.push_back(ctx.launch(step, cl::NDRange(padded), cl::NDRange(ls)));
        }
        setArgs(mergeLocal, 0, keys, cl_uint(k), cl::Local(ls * sizeof(cl_ulong)));
        events.push_back(ctx.launch(mergeLocal, cl::NDRange(padded), cl::NDRange(ls)));
    }
    cl::Kernel& leaves = ctx.kernel(kSource, "mesh_bvh_leaves", Precision::Float);
    setArgs(leaves, 0, cl_uint(n), keys, boxLo, boxHi, h.sortedTri, h.nodeLo, h.nodeHi);
    events.push_back(ctx.launch(leaves, cl::NDRange(roundUp(n, ls)), cl::NDRange(ls)));
    if (n > 1) {
        cl::Kernel& build = ctx.kernel(kSource, "mesh_bvh_build", Precision::Float);
        setArgs(build, 0, cl_uint(n), keys, h.left, h.right, h.last, parent);
        events.push_back(ctx.launch(build, cl::NDRange(roundUp(n - 1, ls)), cl::NDRange(ls)));
        events.push_back(ctx.fill(arrivals, 0, internal * sizeof(cl_uint), "clear mesh refit counts"));
        cl::Kernel& refit = ctx.kernel(kSource, "mesh_bvh_refit", Precision::Float);
        setArgs(refit, 0, cl_uint(n), parent, h.left, h.right, arrivals, h.nodeLo, h.nodeHi);
        events.push_back(ctx.launch(refit, cl::NDRange(roundUp(n, ls)), cl::NDRange(ls)));
    }
    return h;
}

}  // namespace

Result selfIntersections(Context& ctx, const TriangleMesh& m, const Options& opt) {
    validate(m);
    const Precision mode = opt.precision;
    const TwoPhaseList plan = twoPhaseList(ctx, mode);  // refuses Double without fp64, in one sentence
    const std::size_t n = m.triangleCount();
    const std::string what = std::to_string(n) + " triangles";
    if (opt.method == Method::Matrix) {
        if (n > 65535) throw Error("the matrix method holds n x n bytes and takes at most 65535 triangles; this mesh has " + what);
        ctx.checkFits(n * n + n * 48 + m.points.size() * 4, "the matrix method's " + std::to_string(n) + " x " + std::to_string(n) + " bytes for " + what);
    } else {
        ctx.checkFits(n * 120 + m.points.size() * 4, "the self-intersection of " + what);
    }
    Result r;
    std::vector<std::uint8_t> degenerate(n, 0);
    for (std::uint32_t t = 0; t < n; ++t)
        if (isDegenerate(m, t)) degenerate[t] = 1, r.degenerate.push_back(t);

    std::vector<cl::Event> events;
    cl::Buffer points = ctx.upload(m.points, "mesh points", CL_MEM_READ_ONLY);
    cl::Buffer tris = ctx.upload(m.triangles, "mesh triangles", CL_MEM_READ_ONLY);
    cl::Buffer degen = ctx.upload(degenerate, "mesh degenerate flags", CL_MEM_READ_ONLY);
    cl::Buffer boxLo = ctx.buffer(std::max(pow2AtLeast(n), std::size_t(256)) * sizeof(cl_float4), "mesh triangle boxes (low)");
    cl::Buffer boxHi = ctx.buffer(std::max(pow2AtLeast(n), std::size_t(256)) * sizeof(cl_float4), "mesh triangle boxes (high)");
    cl::Buffer counters = ctx.buffer(4 * sizeof(cl_uint), "mesh counters");
    // Pairs are found in float (Float, Mixed) or decided exactly at once (Double).
    const Precision finder = mode == Precision::Double ? Precision::Double : Precision::Float;
    const std::size_t ls = std::min<std::size_t>(64, ctx.device().maxWorkGroupSize);

    Hierarchy h;
    if (opt.method == Method::Hierarchy) {
        h = buildHierarchy(ctx, m, points, tris, boxLo, boxHi, events);
    } else {
        // The brute-force kernels read the boxes in the triangles' own order.
        cl::Kernel& boxes = ctx.kernel(kSource, "mesh_boxes_morton", Precision::Float);
        const cl_float4 zero{{0, 0, 0, 0}};
        const cl::Buffer keys = ctx.buffer(n * sizeof(cl_ulong), "mesh keys (unused here)");
        setArgs(boxes, 0, cl_uint(n), cl_uint(n), points, tris, zero, zero, boxLo, boxHi, keys);
        events.push_back(ctx.launch(boxes, cl::NDRange(roundUp(n, ls)), cl::NDRange(ls)));
    }

    std::array<cl_uint, 4> count{};
    std::vector<cl_uint> pairWords, undecidedWords;
    std::vector<std::uint8_t> matrix;
    if (opt.method == Method::Matrix) {
        cl::Buffer mat = ctx.buffer(std::max<std::size_t>(n * n, 1), "mesh intersection matrix");
        events.push_back(ctx.fill(counters, 0, sizeof(count), "clear mesh counters"));
        cl::Kernel& k = ctx.kernel(kSource, "mesh_matrix", finder);
        setArgs(k, 0, cl_uint(n), boxLo, boxHi, degen, points, tris, mat, counters);
        events.push_back(ctx.launch(k, cl::NDRange(roundUp(n, ls)), cl::NDRange(ls)));
        ctx.read(counters, count.data(), sizeof(count), "mesh counters");
        matrix = ctx.download<std::uint8_t>(mat, n * n, "mesh intersection matrix");
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j = i + 1; j < n; ++j) {
                const std::uint8_t c = matrix[std::size_t(i) * n + j];
                if (c == 1) pairWords.push_back(i), pairWords.push_back(j);
                else if (c >= 2) undecidedWords.push_back(i), undecidedWords.push_back(j | (c == 3 ? kGuessBit : 0u));
            }
        count[0] = cl_uint(pairWords.size() / 2), count[1] = cl_uint(undecidedWords.size() / 2);
    } else {
        // Room for a few pairs per triangle; a larger count makes the search run again with room for it.
        std::size_t pairCap = std::max<std::size_t>(1024, n / 2), undecidedCap = pairCap;
        cl::Buffer pairs, undecided;
        for (int attempt = 0; attempt < 2; ++attempt) {
            pairs = ctx.buffer(pairCap * sizeof(cl_uint2), "mesh pair list");
            undecided = ctx.buffer(undecidedCap * sizeof(cl_uint2), "mesh undecided pair list");
            events.push_back(ctx.fill(counters, 0, sizeof(count), "clear mesh counters"));
            if (opt.method == Method::Hierarchy) {
                cl::Kernel& k = ctx.kernel(kSource, "mesh_bvh_pairs", finder);
                setArgs(k, 0, cl_uint(n), h.sortedTri, h.left, h.right, h.last, h.nodeLo, h.nodeHi, degen, points, tris, counters, pairs,
                        cl_uint(pairCap), undecided, cl_uint(undecidedCap));
                events.push_back(ctx.launch(k, cl::NDRange(roundUp(n, ls)), cl::NDRange(ls)));
            } else {
                cl::Kernel& k = ctx.kernel(kSource, "mesh_brute_pairs", finder);
                setArgs(k, 0, cl_uint(n), boxLo, boxHi, degen, points, tris, counters, pairs, cl_uint(pairCap), undecided, cl_uint(undecidedCap));
                events.push_back(ctx.launch(k, cl::NDRange(roundUp(n, ls)), cl::NDRange(ls)));
            }
            ctx.read(counters, count.data(), sizeof(count), "mesh counters");
            if (count[3]) throw Error("the mesh hierarchy's traversal ran out of stack (" + std::to_string(count[3]) + " times); this is a bug, please report it");
            if (count[0] <= pairCap && count[1] <= undecidedCap) break;
            pairCap = std::max<std::size_t>(pairCap, count[0]), undecidedCap = std::max<std::size_t>(undecidedCap, count[1]);
        }
        pairWords = ctx.download<cl_uint>(pairs, 2 * std::size_t(count[0]), "mesh pair list");
        undecidedWords = ctx.download<cl_uint>(undecided, 2 * std::size_t(count[1]), "mesh undecided pair list");
        // Mixed: phase 2 on the undecided pairs, on the device in double (or on the host, below).
        if (mode == Precision::Mixed && count[1] > 0 && plan.runsPhase2()) {
            cl::Buffer result = ctx.buffer(count[1], "mesh phase-2 results");
            cl::Kernel& k = ctx.kernel(kSource, "mesh_pairs_phase2", Precision::Double);
            setArgs(k, 0, counters, undecided, points, tris, result);
            const std::size_t groups = plan.phase2Groups((count[1] + ls - 1) / ls);
            events.push_back(ctx.launch(k, cl::NDRange(groups * ls), cl::NDRange(ls)));
            const auto decided = ctx.download<std::uint8_t>(result, count[1], "mesh phase-2 results");
            for (std::size_t k2 = 0; k2 < decided.size(); ++k2)
                undecidedWords[2 * k2 + 1] = (undecidedWords[2 * k2 + 1] & ~kGuessBit) | (decided[k2] ? kGuessBit : 0u);
        }
    }
    r.candidates = count[2];
    r.report = plan.report(r.candidates, count[1]);
    for (std::size_t i = 0; i < pairWords.size(); i += 2) r.pairs.push_back({pairWords[i], pairWords[i + 1]});
    // Mixed mode's phase 2 of the matrix method is the host's exact test (its undecided entries are
    // found on the host, in the downloaded matrix).
    if (opt.method == Method::Matrix && mode == Precision::Mixed) r.report.phase2 = Phase2Arithmetic::Host;
    if (mode != Precision::Double && !undecidedWords.empty()) {
        const auto start = std::chrono::steady_clock::now();
        const bool onHost = mode == Precision::Mixed && (opt.method == Method::Matrix || plan.phase2OnHost());
        for (std::size_t i = 0; i < undecidedWords.size(); i += 2) {
            const std::uint32_t a = undecidedWords[i], b = undecidedWords[i + 1] & ~kGuessBit;
            const bool hit = onHost ? trianglesIntersect(m, a, b) : (undecidedWords[i + 1] & kGuessBit) != 0;
            if (hit) r.pairs.push_back({a, b});
        }
        if (onHost) {
            r.report.hostItems = undecidedWords.size() / 2;
            r.report.hostSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
    }
    std::sort(r.pairs.begin(), r.pairs.end());
    ctx.finish();
    r.deviceSeconds = eventSeconds(events);
    return r;
}

}  // namespace portacl::mesh
