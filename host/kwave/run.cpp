#include "portacl/kwave/run.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "portacl/runtime/error.hpp"

namespace portacl::kwave {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::size_t peakHostMB() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<std::size_t>(u.ru_maxrss / 1024);
}

}  // namespace

RunSummary run(Context& ctx, const Simulation& sim, const RunPlan& plan, const RunObserver& observer) {
    if (plan.outputFile.empty()) throw Error("a k-Wave run needs an output file");
    if (plan.compression < 0 || plan.compression > 9) throw Error("the output's compression level is 0 to 9");
    if ((plan.checkpointSteps || plan.checkpointSeconds > 0) && plan.checkpointFile.empty())
        throw Error("a checkpoint interval needs a checkpoint file");
    RunSummary summary;

    const auto tPre = Clock::now();
    if (observer.buildingSolver) observer.buildingSolver();
    KSpaceSolver solver(ctx, sim, plan.options);
    if (observer.solverBuilt) observer.solverBuilt(since(tPre));
    if (!plan.checkpointFile.empty() && access(plan.checkpointFile.c_str(), F_OK) == 0) {
        solver.restoreState(readCheckpointFile(plan.checkpointFile, sim));
        if (observer.restored) observer.restored(solver.timeIndex());
    }
    ctx.finish();
    summary.preprocessingSeconds = since(tPre);
    summary.deviceBytes = solver.deviceBytes();
    if (observer.loopStarts) observer.loopStarts(summary.deviceBytes);

    // The main loop with k-Wave's checkpoint conditions.
    RunProgress progress;
    progress.first = summary.firstStep = solver.timeIndex();
    progress.nt = sim.nt;
    progress.end = plan.maxSteps ? std::min(sim.nt, progress.first + plan.maxSteps) : sim.nt;
    const auto tSim = Clock::now();
    auto report = [&](std::size_t done) {
        if (!observer.progress) return;
        progress.done = done;
        progress.elapsedSeconds = since(tSim);
        observer.progress(progress);
    };
    solver.run(progress.end, [&](std::size_t t) {
        report(solver.completedSteps());
        if (t < progress.end && ((plan.checkpointSteps && t - progress.first >= plan.checkpointSteps) ||
                                 (plan.checkpointSeconds > 0 && since(plan.started) >= plan.checkpointSeconds))) {
            summary.checkpointed = true;
            return true;
        }
        return false;
    });
    ctx.finish();
    summary.simulationSeconds = since(tSim);
    summary.timeIndex = solver.timeIndex();
    if (!summary.checkpointed) report(summary.timeIndex);

    const auto tPost = Clock::now();
    RunInfo info;
    info.timeIndex = summary.timeIndex;
    info.loadSeconds = plan.loadSeconds;
    info.preprocessingSeconds = summary.preprocessingSeconds;
    info.simulationSeconds = summary.simulationSeconds;
    info.hostMemoryMB = peakHostMB();
    const OutputSelection& outputs = plan.options.outputs;
    if (summary.checkpointed) {
        // As k-Wave's solvers do: the checkpoint, and the output file with what was recorded so far.
        const KSpaceSolver::State state = solver.saveState();
        info.postprocessingSeconds = since(tPost);
        info.totalSeconds = since(plan.started);
        writeCheckpointAndOutput(plan.checkpointFile, plan.outputFile, sim, state, outputs, info, plan.compression);
    } else {
        info.postprocessingSeconds = since(tPost);
        info.totalSeconds = since(plan.started);
        writeOutputFile(plan.outputFile, sim, outputs, solver.recording(), info, plan.compression);
        if (!plan.checkpointFile.empty()) std::remove(plan.checkpointFile.c_str());  // the run is complete
    }
    summary.hostMemoryMB = peakHostMB();
    return summary;
}

}  // namespace portacl::kwave
