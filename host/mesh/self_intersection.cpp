// The self-intersection on the device (cl/mesh_self_intersection.cl): the triangles' boxes and Morton
// keys, a bitonic sort, Karras's radix tree and its refit, then one traversal per triangle that
// decides each overlapping pair at once (or the uniform grid of cl/mesh_grid.cl, or the lecture's
// brute-force kernels over the same pairs);
// the pairs float cannot decide go to the double phase 2 (Mixed: the engine's append-list two-phase
// plan), or to the host's exact test (Float mode, which leaves the device's fp64 alone; Mixed on a
// device without fp64).
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

using detail::kSource;

constexpr std::uint32_t kGuessBit = 0x80000000u;

}  // namespace

namespace detail {

DeviceMesh uploadMesh(Context& ctx, const TriangleMesh& m, const std::vector<std::uint8_t>& degenerate) {
    const std::size_t n = m.triangleCount();
    DeviceMesh d;
    d.points = ctx.upload(m.points, "mesh points", CL_MEM_READ_ONLY);
    d.tris = ctx.upload(m.triangles, "mesh triangles", CL_MEM_READ_ONLY);
    d.degen = ctx.upload(degenerate, "mesh degenerate flags", CL_MEM_READ_ONLY);
    d.boxLo = ctx.buffer(std::max(detail::pow2AtLeast(n), std::size_t(256)) * sizeof(cl_float4), "mesh triangle boxes (low)");
    d.boxHi = ctx.buffer(std::max(detail::pow2AtLeast(n), std::size_t(256)) * sizeof(cl_float4), "mesh triangle boxes (high)");
    d.counters = ctx.buffer(4 * sizeof(cl_uint), "mesh counters");
    return d;
}

void checkFitsFor(Context& ctx, const TriangleMesh& m, Method method) {
    const std::size_t n = m.triangleCount();
    const std::string what = std::to_string(n) + " triangles";
    if (method == Method::Matrix) {
        if (n > 65535) throw Error("the matrix method holds n x n bytes and takes at most 65535 triangles; this mesh has " + what);
        ctx.checkFits(n * n + n * 48 + m.points.size() * 4, "the matrix method's " + std::to_string(n) + " x " + std::to_string(n) + " bytes for " + what);
    } else if (method == Method::Grid) {
        // Boxes, cell ranges, up to 8 cells of 8 bytes per triangle, and a few (triangle, cell) entries each.
        ctx.checkFits(n * 250 + m.points.size() * 4, "the self-intersection of " + what);
    } else {
        ctx.checkFits(n * 120 + m.points.size() * 4, "the self-intersection of " + what);
    }
}

// The pairs of a mesh already on the device (d) with its boxes, and its hierarchy (for that method):
// the finder kernel, phase 2 or the host's exact step for the undecided pairs, the report.
Result findPairs(Context& ctx, const TriangleMesh& m, const Options& opt, const TwoPhaseList& plan, const DeviceMesh& d,
                 const detail::Hierarchy& h, std::vector<cl::Event>& events, Result r, const Grid& grid) {
    const Precision mode = opt.precision;
    const std::size_t n = m.triangleCount();
    const Precision finder = mode == Precision::Double ? Precision::Double : Precision::Float;
    const std::string pairOptions = touchingOption(opt.touching);
    const std::size_t ls = std::min<std::size_t>(64, ctx.device().maxWorkGroupSize);
    const cl::Buffer &points = d.points, &tris = d.tris, &degen = d.degen, &boxLo = d.boxLo, &boxHi = d.boxHi, &counters = d.counters;
    std::array<cl_uint, 4> count{};
    std::vector<cl_uint> pairWords, undecidedWords;
    std::vector<std::uint8_t> matrix;
    bool deviceDecided = false;  // phase 2 ran on the device (Mixed with fp64): the guess bits hold its answers
    if (opt.method == Method::Matrix) {
        cl::Buffer mat = ctx.buffer(std::max<std::size_t>(n * n, 1), "mesh intersection matrix");
        events.push_back(ctx.fill(counters, 0, sizeof(count), "clear mesh counters"));
        cl::Kernel& k = meshKernel(ctx, kSource, "mesh_matrix", finder, pairOptions);
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
            if (opt.method == Method::Grid) {
                if (grid.entryCount > 0) {
                    cl::Kernel& k = meshKernel(ctx, "mesh_grid.cl", "mesh_grid_pairs", finder, pairOptions);
                    setArgs(k, 0, cl_uint(grid.entryCount), grid.entries, grid.starts, grid.dims, grid.cellLo, boxLo, boxHi, points, tris,
                            counters, pairs, cl_uint(pairCap), undecided, cl_uint(undecidedCap));
                    events.push_back(ctx.launch(k, cl::NDRange(roundUp(grid.entryCount, ls)), cl::NDRange(ls)));
                }
            } else if (opt.method == Method::Hierarchy) {
                cl::Kernel& k = meshKernel(ctx, kSource, "mesh_bvh_pairs", finder, pairOptions);
                setArgs(k, 0, cl_uint(n), h.sortedTri, h.left, h.right, h.last, h.nodeLo, h.nodeHi, degen, points, tris, counters, pairs,
                        cl_uint(pairCap), undecided, cl_uint(undecidedCap));
                events.push_back(ctx.launch(k, cl::NDRange(roundUp(n, ls)), cl::NDRange(ls)));
            } else {
                cl::Kernel& k = meshKernel(ctx, kSource, "mesh_brute_pairs", finder, pairOptions);
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
            cl::Kernel& k = meshKernel(ctx, kSource, "mesh_pairs_phase2", Precision::Double, pairOptions);
            setArgs(k, 0, counters, undecided, points, tris, result);
            const std::size_t groups = plan.phase2Groups((count[1] + ls - 1) / ls);
            events.push_back(ctx.launch(k, cl::NDRange(groups * ls), cl::NDRange(ls)));
            const auto decided = ctx.download<std::uint8_t>(result, count[1], "mesh phase-2 results");
            deviceDecided = true;
            for (std::size_t k2 = 0; k2 < decided.size(); ++k2) {
                const bool guess = (undecidedWords[2 * k2 + 1] & kGuessBit) != 0;
                r.floatGuessesWrong += guess != (decided[k2] != 0);
                undecidedWords[2 * k2 + 1] = (undecidedWords[2 * k2 + 1] & ~kGuessBit) | (decided[k2] ? kGuessBit : 0u);
            }
        }
    }
    r.candidates = count[2];
    r.report = plan.report(r.candidates, count[1]);
    for (std::size_t i = 0; i < pairWords.size(); i += 2) r.pairs.push_back({pairWords[i], pairWords[i + 1]});
    if (mode == Precision::Float || (mode == Precision::Mixed && opt.method == Method::Matrix)) {
        r.report.phase2 = Phase2Arithmetic::Host;
        r.report.phase2Items = r.report.hostItems = count[1];
    }
    if (mode != Precision::Double && !undecidedWords.empty()) {
        // The pairs no device phase 2 decided: Float mode's (the device's fp64 is not used), Mixed mode's
        // without fp64, and the matrix method's (its undecided entries are found on the host, in the
        // downloaded matrix). The host decides them exactly, as the serial reference does.
        std::vector<FacePair> listed;
        std::vector<bool> guesses;
        for (std::size_t i = 0; i < undecidedWords.size(); i += 2) {
            listed.push_back({undecidedWords[i], undecidedWords[i + 1] & ~kGuessBit});
            guesses.push_back((undecidedWords[i + 1] & kGuessBit) != 0);
        }
        if (deviceDecided) {
            for (std::size_t k = 0; k < listed.size(); ++k)
                if (guesses[k]) r.pairs.push_back(listed[k]);
        } else {
            const auto start = std::chrono::steady_clock::now();
            const std::vector<std::uint8_t> hit = detail::decideOnHost(m, listed, opt.touching);
            for (std::size_t k = 0; k < listed.size(); ++k) {
                if (hit[k]) r.pairs.push_back(listed[k]);
                r.floatGuessesWrong += guesses[k] != (hit[k] != 0);
            }
            r.report.phase2 = Phase2Arithmetic::Host;
            r.report.phase2Items = r.report.hostItems = listed.size();
            r.report.hostSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
    }
    std::sort(r.pairs.begin(), r.pairs.end());
    return r;
}

}  // namespace detail

Method resolvedMethod(Context& ctx, Method m) {
    if (m != Method::Auto) return m;
    const std::string name = ctx.tuning().get("mesh", "broad_phase", "hierarchy");
    for (Method k : {Method::Grid, Method::Hierarchy})
        if (name == methodName(k)) return k;
    throw Error("the device profile's [mesh] broad_phase is '" + name + "'; it takes grid or hierarchy");
}

Result selfIntersections(Context& ctx, const TriangleMesh& m, const Options& given) {
    validate(m);
    Options opt = given;
    opt.method = resolvedMethod(ctx, given.method);
    const Precision mode = opt.precision;
    const TwoPhaseList plan = twoPhaseList(ctx, mode);  // refuses Double without fp64, in one sentence
    const std::size_t n = m.triangleCount();
    detail::checkFitsFor(ctx, m, opt.method);
    Result r;
    std::vector<std::uint8_t> degenerate(n, 0);
    for (std::uint32_t t = 0; t < n; ++t)
        if (isDegenerate(m, t)) degenerate[t] = 1, r.degenerate.push_back(t);

    std::vector<cl::Event> events;
    detail::DeviceMesh d = detail::uploadMesh(ctx, m, degenerate);
    detail::Hierarchy h;
    detail::Grid grid;
    if (opt.method == Method::Hierarchy) {
        h = detail::buildHierarchy(ctx, m, d.points, d.tris, d.boxLo, d.boxHi, events);
    } else if (opt.method == Method::Grid) {
        grid = detail::buildGrid(ctx, m, degenerate, d, events);
    } else {
        // The brute-force kernels read the boxes in the triangles' own order.
        const std::size_t ls = std::min<std::size_t>(64, ctx.device().maxWorkGroupSize);
        cl::Kernel& boxes = detail::meshKernel(ctx, kSource, "mesh_boxes_morton", Precision::Float);
        const cl_float4 zero{{0, 0, 0, 0}};
        const cl::Buffer keys = ctx.buffer(n * sizeof(cl_ulong), "mesh keys (unused here)");
        setArgs(boxes, 0, cl_uint(n), cl_uint(n), d.points, d.tris, zero, zero, d.boxLo, d.boxHi, keys);
        events.push_back(ctx.launch(boxes, cl::NDRange(roundUp(n, ls)), cl::NDRange(ls)));
    }
    r = detail::findPairs(ctx, m, opt, plan, d, h, events, std::move(r), grid);
    ctx.finish();
    r.deviceSeconds = detail::eventSeconds(events);
    r.method = opt.method;
    return r;
}

}  // namespace portacl::mesh
