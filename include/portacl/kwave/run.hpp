// A whole k-Wave run as kspaceFirstOrder-OMP/-CUDA make one: the solver set up (or continued from a
// checkpoint), the time loop with its checkpoint conditions, and k-Wave's output file (or, at a
// checkpoint stop, the checkpoint and the output so far, committed together). The command line
// (`portacl kwave`, kspaceFirstOrder-OpenCL) is this call plus its options and its terminal lines;
// bindings call it the same way.
#pragma once

#include "portacl/export.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "portacl/kwave.hpp"

namespace portacl::kwave {

struct PORTACL_API RunPlan {
    RunOptions options;
    std::string outputFile;  // k-Wave's output file (required): written whole or not at all
    int compression = 0;     // deflate level 0-9 of the output datasets
    // Continue from it when it exists; write it (with the output so far) when a checkpoint condition
    // stops the run; remove it once the run has completed. Empty: none.
    std::string checkpointFile;
    std::size_t checkpointSteps = 0;  // stop for a checkpoint after this many steps of this run (0: never)
    double checkpointSeconds = 0;     // ... or this many seconds after `started` (0: never)
    std::size_t maxSteps = 0;         // run at most this many steps (0: to Nt)
    // When the run began (reading the input included): the checkpoint interval and the total time
    // count from here. `loadSeconds`: the part of it that read the input, for the output file.
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    double loadSeconds = 0;
};

// Where the time loop is: steps [first, end) of this run, `done` of them finished on the device.
struct PORTACL_API RunProgress {
    std::size_t first = 0, done = 0, end = 0, nt = 0;
    double elapsedSeconds = 0;  // since the loop began
};

// What a caller hears while the run goes on; every member may be left empty.
struct PORTACL_API RunObserver {
    std::function<void()> buildingSolver;                    // the kernels are built next (slow when not cached)
    std::function<void(double seconds)> solverBuilt;         // ... and were, in this many seconds
    std::function<void(std::size_t timeIndex)> restored;     // continued from the checkpoint at this step
    std::function<void(std::size_t deviceBytes)> loopStarts;  // set-up done
    // After each step with the steps the device has finished (polled, never waited for), and once
    // more with every step of the run when it ends without a checkpoint stop.
    std::function<void(const RunProgress&)> progress;
};

struct PORTACL_API RunSummary {
    std::size_t firstStep = 0, timeIndex = 0;  // the run went from firstStep to timeIndex
    bool checkpointed = false;                 // stopped for a checkpoint; running again continues it
    // The phases: reading the input (the plan's loadSeconds, the slowest rank's), the set-up (the
    // medium and operators on the host, the kernels, the uploads, a warm-up step), the time loop, and
    // the output (gathering what was recorded, writing the file).
    double loadSeconds = 0, preprocessingSeconds = 0, simulationSeconds = 0, outputSeconds = 0;
    std::size_t deviceBytes = 0, hostMemoryMB = 0;
    // Distributed runs (kwave/distributed.hpp): ranks; the slowest rank's seconds in the host side of
    // the transforms' global transposes (waiting for the device's packed blocks, with the device work
    // queued before them, and MPI), and of that in MPI's all-to-all; the components transposed, and
    // the bytes the slowest rank moved through host memory (to host and back); how the blocks moved
    // between the ranks (cluster::BlockExchange::describe: a shared-memory window or MPI_Alltoallv).
    int ranks = 1;
    double transposeSeconds = 0, exchangeSeconds = 0;
    // The local Fourier basis decomposition: the slowest rank's device time waiting for the overlap
    // planes (their reads, the exchange and the writes beyond the work that ran beside them; -1: not
    // measured, a queue without timestamps).
    double deviceWaitSeconds = 0;
    std::size_t transposes = 0, transposeHostBytes = 0;
    std::string exchangeMethod;
    std::size_t steps() const { return timeIndex - firstStep; }
};

// Runs `sim` on ctx's device as the plan says. Throws portacl::Error on bad input, a device that
// cannot hold the simulation, an unstable simulation (no output is written then) or a failed write.
PORTACL_API RunSummary run(Context& ctx, const Simulation& sim, const RunPlan& plan, const RunObserver& observer = {});

}  // namespace portacl::kwave
