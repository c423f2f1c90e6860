// kwave::run's counterpart over MPI ranks: the distributed solver, its time loop with progress
// reports on rank 0, and k-Wave's output file written by rank 0 from the gathered recording.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

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
    if ((plan.checkpointSteps || plan.checkpointSeconds > 0) && plan.checkpointFile.empty())
        throw EveryRankError("a checkpoint interval needs a checkpoint file");
    const bool root = rank() == 0;
    RunSummary summary;
    const auto tPre = Clock::now();
    if (root && observer.buildingSolver) observer.buildingSolver();
    DistributedSolver solver(ctx, sim, plan.options);
    if (root && observer.solverBuilt) observer.solverBuilt(since(tPre));
    // A checkpoint (of a run on any rank count, one device included): rank 0 says whether it exists,
    // every rank reads it and keeps its slab.
    char resume = root && !plan.checkpointFile.empty() && access(plan.checkpointFile.c_str(), F_OK) == 0 ? 1 : 0;
    broadcast(&resume, 1);
    if (resume) {
        KSpaceSolver::State saved;
        try {
            saved = readCheckpointFile(plan.checkpointFile, sim);
        } catch (const EveryRankError&) {
            throw;
        } catch (const Error& e) {
            throw EveryRankError(e.what());  // the same file, the same answer on every rank
        }
        solver.restoreState(saved);
        if (root && observer.restored) observer.restored(solver.timeIndex());
    }
    ctx.finish();
    barrier();
    summary.preprocessingSeconds = since(tPre);
    summary.deviceBytes = maxOver(solver.deviceBytes());
    if (root && observer.loopStarts) observer.loopStarts(summary.deviceBytes);

    RunProgress progress;
    progress.first = summary.firstStep = solver.timeIndex();
    progress.nt = sim.nt;
    progress.end = plan.maxSteps ? std::min(sim.nt, progress.first + plan.maxSteps) : sim.nt;
    const TransposeTimes before = solver.transposeTimes();  // the warm-up step's
    const auto tSim = Clock::now();
    auto report = [&](std::size_t done) {
        if (!root || !observer.progress) return;
        progress.done = done;
        progress.elapsedSeconds = since(tSim);
        observer.progress(progress);
    };
    // Each transform waits for its transpose, so a step's end is the device's too.
    // k-Wave's checkpoint conditions; rank 0's clock decides the interval for every rank.
    solver.run(progress.end, [&](std::size_t t) {
        report(t);
        if (t >= progress.end) return false;
        char stop = plan.checkpointSteps && t - progress.first >= plan.checkpointSteps ? 1 : 0;
        if (plan.checkpointSeconds > 0) {
            char late = root && since(plan.started) >= plan.checkpointSeconds ? 1 : 0;
            broadcast(&late, 1);
            stop = stop || late;
        }
        summary.checkpointed = stop != 0;
        return summary.checkpointed;
    });
    ctx.finish();
    barrier();
    summary.simulationSeconds = since(tSim);
    summary.timeIndex = solver.timeIndex();
    summary.ranks = ranks();
    const TransposeTimes& after = solver.transposeTimes();
    summary.exchangeSeconds = maxOf(after.exchangeSeconds - before.exchangeSeconds);
    summary.transposeSeconds = maxOf(after.exchangeSeconds - before.exchangeSeconds + after.waitSeconds - before.waitSeconds);
    summary.transposes = after.transposes - before.transposes;
    summary.transposeHostBytes = maxOver(after.hostBytes - before.hostBytes);
    if (!summary.checkpointed) report(summary.timeIndex);

    const auto tPost = Clock::now();
    KSpaceSolver::State state;
    if (summary.checkpointed) state = solver.saveState();
    else state.recording = solver.recording();
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
        const OutputSelection& outputs = plan.options.outputs;
        if (summary.checkpointed) {
            writeCheckpointAndOutput(plan.checkpointFile, plan.outputFile, sim, state, outputs, info, plan.compression);
        } else {
            writeOutputFile(plan.outputFile, sim, outputs, state.recording, info, plan.compression);
            if (!plan.checkpointFile.empty()) std::remove(plan.checkpointFile.c_str());  // the run is complete
        }
    }
    // Rank 0 raises its own write failure; the others end once it has written (or failed).
    barrier();
    return summary;
}

}  // namespace portacl::kwave::distributed
