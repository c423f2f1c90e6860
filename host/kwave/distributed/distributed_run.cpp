// kwave::run's counterpart over MPI ranks (kwave/run_loop.hpp over every rank): the distributed
// solver, progress reports on rank 0, and k-Wave's output file written by rank 0 from the gathered
// recording, the whole-grid datasets streamed to it a block of planes at a time; the summary adds
// the transposes (or, with the local Fourier basis decomposition, the overlap exchanges).
#include <memory>

#include "distributed_solver.hpp"
#include "lfb_solver.hpp"
#include "kwave/run_loop.hpp"
#include "portacl/cluster/collectives.hpp"
#include "portacl/kwave/distributed.hpp"

namespace portacl::kwave::distributed {

using cluster::broadcast;
using cluster::maxOf;
using cluster::maxOver;

namespace {

// The run loop over every rank with `Solver` (DistributedSolver or LfbSolver, the same interface).
template <typename Solver>
RunSummary runWith(Context& ctx, const Simulation& sim, const RunPlan& plan, const RunObserver& observer) {
    RunRanks every;
    every.count = ranks();
    every.root = rank() == 0;
    every.fromRoot = [](bool v) {
        char c = v ? 1 : 0;
        broadcast(&c, 1);
        return c != 0;
    };
    every.barrier = [] { cluster::World::process().barrier(); };
    every.maxOver = [](std::size_t v) { return maxOver(v); };
    every.refuse = [](const std::string& what) { throw EveryRankError(what); };
    every.alike = [](const Error& e) {
        if (dynamic_cast<const EveryRankError*>(&e)) throw;
        throw EveryRankError(e.what());
    };
    TransposeTimes before;  // the warm-up step's
    return runLoop(
        ctx, sim, plan, observer, every, [&] { return std::make_unique<Solver>(ctx, sim, plan.options); },
        [&](const Solver& solver, RunSummary& summary, bool ended) {
            const TransposeTimes& now = solver.transposeTimes();
            if (!ended) {
                before = now;
                return;
            }
            summary.exchangeSeconds = maxOf(now.exchangeSeconds - before.exchangeSeconds);
            summary.transposeSeconds = maxOf(now.exchangeSeconds - before.exchangeSeconds + now.waitSeconds - before.waitSeconds);
            summary.transposes = now.transposes - before.transposes;
            summary.transposeHostBytes = maxOver(now.hostBytes - before.hostBytes);
            summary.exchangeMethod = solver.exchangeMethod();
            summary.deviceWaitSeconds = maxOf(now.deviceWaitSeconds < 0 ? -1.0 : now.deviceWaitSeconds - before.deviceWaitSeconds);
        },
        [](Solver& solver) { return FinalOutput{solver.recording(false), solver.gridFields()}; });
}

}  // namespace

RunSummary run(Context& ctx, const Simulation& sim, const RunPlan& plan, const RunObserver& observer) {
    if (plan.options.decomposition == Decomposition::LocalFourierBasis) return runWith<LfbSolver>(ctx, sim, plan, observer);
    return runWith<DistributedSolver>(ctx, sim, plan, observer);
}

}  // namespace portacl::kwave::distributed
