// Bench case "lineal_path_reconstruct": evaluated candidate swaps per second when reconstructing a
// 256x256 cell against the lineal path (ML 64) of overlapping disks (quick: 32x32, ML 8), at a
// temperature near zero from a random start: only swaps that lower E are accepted, about half of the
// candidates. The time is host wall time of the annealing loop (device evaluation, transfers and host
// walk) per step of the chain, so candidates evaluated after an accepted one in the same batch, and
// then discarded, count as cost; the serial reference evaluates one candidate at a time.
#include <chrono>
#include <random>

#include "portacl/bench.hpp"
#include "portacl/lineal_path/reconstruct.hpp"

namespace portacl::lineal {
namespace {

PhaseImage disks(int n, int r, double fraction, unsigned seed) {
    PhaseImage img;
    img.ny = img.nx = n;
    img.mask.assign(img.size(), 0);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> c(0, n - 1);
    std::uint64_t on = 0;
    while (double(on) < fraction * double(img.size())) {
        const int y0 = c(rng), x0 = c(rng);
        for (int y = -r; y <= r; ++y)
            for (int x = -r; x <= r; ++x)
                if (x * x + y * y <= r * r) {
                    auto& m = img.mask[std::size_t((y0 + y + n) % n) * n + (x0 + x + n) % n];
                    on += m ? 0 : 1;
                    m = 1;
                }
    }
    return img;
}

double secondsPerSwap(SwapEvaluator& ev, const Target& t, std::uint64_t steps) {
    AnnealOptions opt;
    opt.steps = steps;
    opt.tMax = opt.tMin = 1e-12;  // nearly every uphill move rejected: full batches
    opt.seed = 3;
    opt.progress = false;
    opt.historyEvery = steps;
    AnnealState st;
    st.image = ev.image();
    const auto t0 = std::chrono::steady_clock::now();
    anneal(ev, t, opt, st);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / double(st.step);
}

std::vector<BenchRecord> run(Context& ctx, const BenchOptions& opts) {
    const int n = opts.quick ? 32 : 256, ml = opts.quick ? 8 : 64;
    const std::uint64_t steps = opts.quick ? 2000 : (ctx.device().isGpu ? 50000 : 500);
    const Target t = targetFromImage(ctx, disks(n, opts.quick ? 3 : 8, 0.3, 1), ml);
    const PhaseImage start = randomStart(t, 9);
    std::vector<BenchRecord> out;
    for (Precision p : {Precision::Float, Precision::Double}) {
        if (!runsOn(ctx, opts, p, "lineal_path_reconstruct", out)) continue;
        auto ev = makeDeviceEvaluator(ctx, t, start, p);
        secondsPerSwap(*ev, t, std::min<std::uint64_t>(steps / 4, 512));  // warm-up: kernels built, buffers sized
        BenchRecord r;
        r.workload = "lineal_path_reconstruct";
        r.size = std::to_string(n) + "x" + std::to_string(n) + " ML " + std::to_string(ml);
        r.precision = precisionName(p);
        r.seconds = secondsPerSwap(*ev, t, steps);
        r.note = "per evaluated swap: " + std::to_string(std::uint64_t(1.0 / r.seconds)) + " swaps/s (wall time, " +
                 std::to_string(steps) + " steps)";
        if (opts.serial && p == Precision::Float) {
            auto ref = makeReferenceEvaluator(t, start);
            r.serialSeconds = secondsPerSwap(*ref, t, opts.quick ? 200 : 50);
            r.note += "; serial timed on " + std::string(opts.quick ? "200" : "50") + " steps";
        }
        out.push_back(r);
    }
    return out;
}

}  // namespace

PORTACL_REGISTER_BENCH("lineal_path_reconstruct", "annealing swaps evaluated per second against a lineal path target", run);

}  // namespace portacl::lineal
