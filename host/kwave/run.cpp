#include "portacl/kwave/run.hpp"

#include <memory>

#include "run_loop.hpp"

namespace portacl::kwave {

RunSummary run(Context& ctx, const Simulation& sim, const RunPlan& plan, const RunObserver& observer) {
    return runLoop(
        ctx, sim, plan, observer, RunRanks{}, [&] { return std::make_unique<KSpaceSolver>(ctx, sim, plan.options); },
        [](const KSpaceSolver&, RunSummary&, bool) {}, [](KSpaceSolver& solver) { return FinalOutput{solver.recording(), {}}; });
}

}  // namespace portacl::kwave
