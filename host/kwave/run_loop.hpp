// The run of kwave::run (run.cpp) and of its distributed counterpart (distributed/distributed_run.cpp):
// the solver set up or continued from a checkpoint, the time loop with k-Wave's checkpoint
// conditions, and the output file or the checkpoint written. What differs is the solver and the ranks
// the run spans (RunRanks: one device by default); every call here is collective over those ranks,
// and rank 0 alone talks to the observer and writes files.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

#include "portacl/kwave.hpp"
#include "portacl/kwave/run.hpp"
#include "portacl/runtime/error.hpp"
#include "streamed_grid_fields.hpp"
#include "setup_trace.hpp"

namespace portacl::kwave {

struct RunRanks {
    int count = 1;
    bool root = true;
    // Rank 0's value on every rank.
    std::function<bool(bool)> fromRoot = [](bool v) { return v; };
    std::function<void()> barrier = [] {};
    std::function<std::size_t(std::size_t)> maxOver = [](std::size_t v) { return v; };
    // Raises a refusal every rank meets alike (called inside a catch block for `alike`, whose
    // default rethrows the error as it is).
    std::function<void(const std::string&)> refuse = [](const std::string& what) { throw Error(what); };
    std::function<void(const Error&)> alike = [](const Error&) { throw; };
};

namespace detail {

inline double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

inline std::size_t peakHostMB() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<std::size_t>(u.ru_maxrss / 1024);
}

}  // namespace detail

// What a finished run writes: the recording (on rank 0), and the whole-grid datasets streamed into
// the output file instead of held in it (none for one device).
struct FinalOutput {
    Recording recording;
    StreamedGridFields grids;
};

// makeSolver() builds the solver (a std::unique_ptr to it); measure(solver, summary, ended) is called
// as the loop starts (ended false) and after it (true), for what the solver itself counts;
// finalOutput(solver) gives a finished run's FinalOutput (every rank calls it).
template <typename MakeSolver, typename Measure, typename Final>
RunSummary runLoop(Context& ctx, const Simulation& sim, const RunPlan& plan, const RunObserver& observer, const RunRanks& ranks,
                   MakeSolver makeSolver, Measure measure, Final finalOutput) {
    using detail::since;
    using Clock = std::chrono::steady_clock;
    if (plan.outputFile.empty()) ranks.refuse("a k-Wave run needs an output file");
    if (plan.compression < 0 || plan.compression > 9) ranks.refuse("the output's compression level is 0 to 9");
    if ((plan.checkpointSteps || plan.checkpointSeconds > 0) && plan.checkpointFile.empty())
        ranks.refuse("a checkpoint interval needs a checkpoint file");
    const bool root = ranks.root;
    RunSummary summary;
    summary.ranks = ranks.count;
    summary.loadSeconds = 1e-6 * static_cast<double>(ranks.maxOver(static_cast<std::size_t>(plan.loadSeconds * 1e6)));

    const auto tPre = Clock::now();
    if (root && observer.buildingSolver) observer.buildingSolver();
    auto solver = makeSolver();
    traceSetup("the solver built; the checkpoint, if any, and a barrier");
    if (root && observer.solverBuilt) observer.solverBuilt(since(tPre));
    // A checkpoint (of a run on any rank count): rank 0 says whether it exists, every rank reads it
    // and keeps its part.
    if (ranks.fromRoot(root && !plan.checkpointFile.empty() && access(plan.checkpointFile.c_str(), F_OK) == 0)) {
        KSpaceSolver::State saved;
        try {
            saved = readCheckpointFile(plan.checkpointFile, sim);
        } catch (const Error& e) {
            ranks.alike(e);  // the same file, the same answer on every rank
        }
        solver->restoreState(saved);
        if (root && observer.restored) observer.restored(solver->timeIndex());
    }
    ctx.finish();
    ranks.barrier();
    summary.preprocessingSeconds = since(tPre);
    summary.deviceBytes = ranks.maxOver(solver->deviceBytes());
    if (root && observer.loopStarts) observer.loopStarts(summary.deviceBytes);

    // The main loop with k-Wave's checkpoint conditions; rank 0's clock decides the interval for
    // every rank.
    RunProgress progress;
    progress.first = summary.firstStep = solver->timeIndex();
    progress.nt = sim.nt;
    progress.end = plan.maxSteps ? std::min(sim.nt, progress.first + plan.maxSteps) : sim.nt;
    measure(*solver, summary, false);
    const auto tSim = Clock::now();
    auto report = [&](std::size_t done) {
        if (!root || !observer.progress) return;
        progress.done = done;
        progress.elapsedSeconds = since(tSim);
        observer.progress(progress);
    };
    solver->run(progress.end, [&](std::size_t t) {
        report(solver->completedSteps());
        if (t >= progress.end) return false;
        bool stop = plan.checkpointSteps && t - progress.first >= plan.checkpointSteps;
        if (plan.checkpointSeconds > 0) stop = ranks.fromRoot(since(plan.started) >= plan.checkpointSeconds) || stop;
        summary.checkpointed = stop;
        return stop;
    });
    ctx.finish();
    ranks.barrier();
    summary.simulationSeconds = since(tSim);
    summary.timeIndex = solver->timeIndex();
    measure(*solver, summary, true);
    if (!summary.checkpointed) report(summary.timeIndex);

    const auto tPost = Clock::now();
    // As k-Wave's solvers do at a checkpoint stop: the checkpoint, and the output file with what was
    // recorded so far.
    KSpaceSolver::State state;
    StreamedGridFields grids;
    if (summary.checkpointed) {
        state = solver->saveState();
    } else {
        FinalOutput final = finalOutput(*solver);
        state.recording = std::move(final.recording);
        grids = std::move(final.grids);
    }
    RunInfo info;
    info.hostMemoryMB = ranks.maxOver(detail::peakHostMB());
    if (root) {
        info.timeIndex = summary.timeIndex;
        info.loadSeconds = plan.loadSeconds;
        info.preprocessingSeconds = summary.preprocessingSeconds;
        info.simulationSeconds = summary.simulationSeconds;
        info.postprocessingSeconds = since(tPost);
        info.totalSeconds = since(plan.started);
        const OutputSelection& outputs = plan.options.outputs;
        if (summary.checkpointed) {
            writeCheckpointAndOutput(plan.checkpointFile, plan.outputFile, sim, state, outputs, info, plan.compression);
        } else {
            writeOutputFile(plan.outputFile, sim, outputs, state.recording, info, plan.compression, grids);
            if (!plan.checkpointFile.empty()) std::remove(plan.checkpointFile.c_str());  // the run is complete
        }
    } else {
        for (const std::string& name : grids.names) grids.write(name, {});  // rank 0 writes what they send
    }
    // Rank 0 raises its own write failure; the others end once it has written (or failed).
    ranks.barrier();
    summary.outputSeconds = since(tPost);
    summary.hostMemoryMB = ranks.maxOver(detail::peakHostMB());
    return summary;
}

}  // namespace portacl::kwave
