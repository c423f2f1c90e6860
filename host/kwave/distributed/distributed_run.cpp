// kwave::run's counterpart over MPI ranks: the distributed solver, its time loop with progress
// reports on rank 0, and k-Wave's output file written by rank 0 from the gathered recording.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include "distributed_solver.hpp"
#include "mpi_world.hpp"
#include "portacl/kwave/distributed.hpp"

namespace portacl::kwave::distributed {
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
    if (!plan.checkpointFile.empty() || plan.checkpointSteps || plan.checkpointSeconds > 0)
        throw EveryRankError("checkpoints are written by one-device runs only; run without --checkpoint_file under mpirun");
    const bool root = rank() == 0;
    RunSummary summary;
    const auto tPre = Clock::now();
    if (root && observer.buildingSolver) observer.buildingSolver();
    DistributedSolver solver(ctx, sim, plan.options);
    ctx.finish();
    barrier();
    if (root && observer.solverBuilt) observer.solverBuilt(since(tPre));
    summary.preprocessingSeconds = since(tPre);
    summary.deviceBytes = maxOver(solver.deviceBytes());
    if (root && observer.loopStarts) observer.loopStarts(summary.deviceBytes);

    RunProgress progress;
    progress.nt = sim.nt;
    progress.end = plan.maxSteps ? std::min(sim.nt, plan.maxSteps) : sim.nt;
    const double transposeBefore = solver.transposeSeconds();  // the warm-up step's
    const auto tSim = Clock::now();
    auto report = [&](std::size_t done) {
        if (!root || !observer.progress) return;
        progress.done = done;
        progress.elapsedSeconds = since(tSim);
        observer.progress(progress);
    };
    // Each transform waits for its transpose, so a step's end is the device's too.
    solver.run(progress.end, [&](std::size_t t) {
        report(t);
        return false;
    });
    ctx.finish();
    barrier();
    summary.simulationSeconds = since(tSim);
    summary.timeIndex = solver.timeIndex();
    summary.ranks = ranks();
    summary.transposeSeconds = maxOf(solver.transposeSeconds() - transposeBefore);
    report(summary.timeIndex);

    const auto tPost = Clock::now();
    const Recording recording = solver.recording();
    summary.hostMemoryMB = maxOver(peakHostMB());
    if (root) {
        RunInfo info;
        info.timeIndex = summary.timeIndex;
        info.loadSeconds = plan.loadSeconds;
        info.preprocessingSeconds = summary.preprocessingSeconds;
        info.simulationSeconds = summary.simulationSeconds;
        info.hostMemoryMB = summary.hostMemoryMB;
        info.postprocessingSeconds = since(tPost);
        info.totalSeconds = since(plan.started);
        writeOutputFile(plan.outputFile, sim, plan.options.outputs, recording, info, plan.compression);
    }
    // Rank 0 raises its own write failure; the others end once it has written (or failed).
    barrier();
    return summary;
}

}  // namespace portacl::kwave::distributed
