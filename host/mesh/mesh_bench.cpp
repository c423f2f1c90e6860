// Bench case "mesh_self_intersection": the intersecting triangle pairs of Spot, the Stanford bunny
// (69 451 triangles, shared data) and overlapping copies of it in a row (4 on CPU devices, 277 804
// triangles; 15 and 144 on GPUs, 1.04 and 10 million), by the device's two broad phases (the uniform
// grid and the hierarchy) in each precision; the lecture's two kernels (atomic list,
// matrix) on Spot (5856 triangles: the matrix's n^2 bytes) and the atomic list on the bunny on GPUs;
// CGAL's box_self_intersection_d with its exact predicates, sequential on this host and (where CGAL
// has TBB) over every core, as the CPU peer of every mesh, measured in the same run. Device time is the sum of the call's kernels and
// transfers (Result::deviceSeconds, median of the repeats); the note gives the wall time of the
// call, and the host's exact step for the pairs float could not decide (Float mode) where it ran. The serial column is the serial C++ reference. Without the shared data: generated crossing
// grids. The frames row: an animation of the bunny (CPU devices) or of 15 copies of it (GPUs, 1.04
// million triangles), the tree refitted per frame.
#include <algorithm>
#include <cmath>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <thread>

#include "portacl/bench.hpp"
#include "portacl/mesh/frame_sequence.hpp"
#include "portacl/mesh/self_intersection.hpp"
#include "portacl/runtime/data_dir.hpp"
#include "portacl/runtime/host_cores.hpp"

namespace portacl::mesh {
namespace {

struct Timed {
    double device = 0, wall = 0;
    Result result;
};

Timed timeDevice(Context& ctx, const TriangleMesh& m, const Options& opt, const BenchOptions& opts, int repeats) {
    for (int i = 0; i < std::min(opts.warmups, 1); ++i) selfIntersections(ctx, m, opt);
    std::vector<double> dev, wall;
    Timed t;
    for (int i = 0; i < repeats; ++i) {
        const auto start = std::chrono::steady_clock::now();
        t.result = selfIntersections(ctx, m, opt);
        wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        dev.push_back(t.result.deviceSeconds);
    }
    std::sort(dev.begin(), dev.end());
    std::sort(wall.begin(), wall.end());
    t.device = dev[dev.size() / 2];
    t.wall = wall[wall.size() / 2];
    return t;
}

std::string sizeOf(const TriangleMesh& m, const std::string& name) { return name + " " + std::to_string(m.triangleCount()) + " tri"; }

std::vector<BenchRecord> run(Context& ctx, const BenchOptions& opts) {
    std::vector<BenchRecord> out;
    const std::string dir = dataDirectory();
    const bool data = !dir.empty() && std::filesystem::exists(dir + "/mesh/stanford-bunny.obj");
    struct Item {
        std::string name;
        TriangleMesh mesh;
        bool lecture;  // the lecture's O(n^2) kernels run on it too
        bool animate = false;  // the frames row runs on it
    };
    std::vector<Item> items;
    if (data) {
        const TriangleMesh bunny = readMesh(dir + "/mesh/stanford-bunny.obj");
        items.push_back({"spot", readMesh(dir + "/mesh/spot.obj"), true});
        items.push_back({"bunny", bunny, ctx.device().isGpu, !ctx.device().isGpu});
        // Copies 0.8 bunny-widths apart: each overlaps the next.
        float lo = bunny.points[0], hi = lo;
        for (std::size_t i = 0; i < bunny.points.size(); i += 3) lo = std::min(lo, bunny.points[i]), hi = std::max(hi, bunny.points[i]);
        if (ctx.device().isGpu && !opts.quick) {
            items.push_back({"bunny-x15", overlappingCopies(bunny, 15, 0.8f * (hi - lo)), false, true});  // 1.04 million triangles
            items.push_back({"bunny-x144", overlappingCopies(bunny, 144, 0.8f * (hi - lo)), false});
        } else if (!opts.quick) {
            items.push_back({"bunny-x4", overlappingCopies(bunny, 4, 0.8f * (hi - lo)), false});  // 277 804 triangles
        }
    } else {
        items.push_back({"crossing-grids", crossingGrids(opts.quick ? 20 : 60), true, true});
    }
    if (opts.quick && items.size() > 1) items.resize(1);
    const int repeats = opts.quick ? 1 : std::max(1, std::min(opts.repeats, 5));
    for (const auto& it : items) {
        // The CPU peer first: its pairs are what every row must give.
        Result peer;
        BenchRecord cg;
        cg.workload = "mesh_self_intersection/cgal";
        cg.size = sizeOf(it.mesh, it.name);
        cg.precision = "exact";
        const int peerRepeats = it.mesh.triangleCount() > 1000000 ? 1 : repeats;
        cg.seconds = medianHostSeconds([&] { peer = selfIntersectionsCgal(it.mesh); }, peerRepeats);
        cg.note = "CPU peer on this host (CGAL box_self_intersection_d + Epick exact predicates, sequential): " +
                  std::to_string(peer.pairs.size()) + " pairs";
        out.push_back(cg);
        double cgalTbb = 0;
        if (cgalParallelAvailable()) {
            BenchRecord par = cg;
            par.workload = "mesh_self_intersection/cgal-tbb";
            Result got;
            par.seconds = medianHostSeconds([&] { got = selfIntersectionsCgal(it.mesh, true); }, peerRepeats);
            par.note = "CPU peer on every core of this host (" + std::to_string(portacl::usableCores()) +
                       " threads; CGAL box_self_intersection_d<Parallel_tag> over TBB + Epick): " + std::to_string(got.pairs.size()) +
                       " pairs" + (got.pairs == peer.pairs ? "" : ", DIFFERENT from the sequential run's");
            cgalTbb = par.seconds;
            out.push_back(par);
        }
        auto row = [&](Method method, Precision p) {
            BenchRecord rec;
            rec.workload = std::string("mesh_self_intersection/") + methodName(method);
            rec.size = sizeOf(it.mesh, it.name);
            rec.precision = precisionName(p);
            const Timed t = timeDevice(ctx, it.mesh, {method, p}, opts, repeats);
            // A driver whose events carry no times: the wall time of the call, as medianDeviceSeconds does.
            rec.seconds = t.device > 0 ? t.device : t.wall;
            const bool same = t.result.pairs == peer.pairs;
            std::ostringstream note;
            note << std::fixed << std::setprecision(2) << t.result.pairs.size() << " pairs (" << (same ? "= CGAL's" : "DIFFERS from CGAL's")
                 << "), " << t.result.candidates << " candidates, " << t.result.report.undecided << " undecided by float";
            if (t.result.report.phase2 == Phase2Arithmetic::Host && t.result.report.undecided)
                note << " (decided exactly on the host: " << t.result.report.hostSeconds * 1e3 << " ms, in the wall time, not the device time)";
            note << "; wall " << t.wall * 1e3 << " ms" << (t.device > 0 ? "" : " (the time column: the driver's events carry no times)")
                 << "; CGAL time / device time " << cg.seconds / rec.seconds;
            if (cgalTbb > 0) note << ", CGAL with TBB / device " << cgalTbb / rec.seconds;
            rec.note = note.str();
            if (ctx.device().isCpu && same) {  // the peer column: CGAL on every core where it was built so, else on one
                rec.peer = cgalTbb > 0 ? "CGAL over TBB, " + std::to_string(portacl::usableCores()) + " threads" : "CGAL, one core";
                rec.peerSeconds = cgalTbb > 0 ? cgalTbb : cg.seconds;
            }
            if (opts.serial && method == Method::Hierarchy && p == Precision::Mixed && it.mesh.triangleCount() <= 1000000)
                rec.serialSeconds = medianHostSeconds([&] { selfIntersectionsReference(it.mesh); }, 1);
            out.push_back(rec);
        };
        for (Method method : {Method::Hierarchy, Method::Grid})
            for (Precision p : {Precision::Mixed, Precision::Float, Precision::Double})
                if (runsOn(ctx, opts, p, std::string("mesh_self_intersection/") + methodName(method), out)) row(method, p);
        if (it.animate && runsOn(ctx, opts, Precision::Mixed, "mesh_self_intersection/frames", out)) {
            // An animation: every vertex moves by a small swirl per frame; the tree is refitted, not rebuilt.
            FrameSequence seq(ctx, it.mesh, Precision::Mixed);
            seq.pairs();
            const int frames = opts.quick ? 3 : 10;
            std::vector<double> dev;
            std::size_t pairs = 0;
            const auto start = std::chrono::steady_clock::now();
            TriangleMesh moved = it.mesh;
            for (int f = 1; f <= frames; ++f) {
                for (std::size_t v = 0; v < moved.vertexCount(); ++v) {
                    const float a = 0.002f * float(f);
                    moved.points[3 * v] = it.mesh.points[3 * v] + a * std::sin(40.0f * it.mesh.points[3 * v + 1]);
                    moved.points[3 * v + 2] = it.mesh.points[3 * v + 2] + a * std::cos(40.0f * it.mesh.points[3 * v + 1]);
                }
                seq.moveTo(moved.points);
                const Result r = seq.pairs();
                dev.push_back(r.deviceSeconds);
                pairs += r.pairs.size();
            }
            const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / frames;
            std::sort(dev.begin(), dev.end());
            BenchRecord rec;
            rec.workload = "mesh_self_intersection/frames";
            rec.size = sizeOf(it.mesh, it.name);
            rec.precision = "mixed";
            rec.seconds = dev[dev.size() / 2] > 0 ? dev[dev.size() / 2] : wall;
            std::ostringstream note;
            note << std::fixed << std::setprecision(1) << "per frame (upload, refit, pairs), " << frames << " frames of a swirl; "
                 << 1.0 / rec.seconds << " frames/s of device time, " << 1.0 / wall << " frames/s wall; " << pairs << " pairs in all";
            rec.note = note.str();
            out.push_back(rec);
        }
        if (it.lecture && runsOn(ctx, opts, Precision::Mixed, "mesh_self_intersection/atomic-list", out)) {
            row(Method::AtomicList, Precision::Mixed);
            if (it.mesh.triangleCount() <= 20000) row(Method::Matrix, Precision::Mixed);
        }
    }
    return out;
}

}  // namespace

PORTACL_REGISTER_BENCH("mesh_self_intersection",
                       "intersecting triangle pairs of a mesh: device hierarchy, the lecture's atomic-list and matrix kernels, CGAL as the CPU peer",
                       run);

}  // namespace portacl::mesh
