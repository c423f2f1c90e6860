// The device side of the Voronoi computation kept with the context (host/voronoi/voronoi.cpp traces
// the waves, host/voronoi/completeness_pass.cpp runs the completeness pass): buffers written without
// waiting, the frames' data in one precision, the kernels, and the host phase timings.
#pragma once

#include <chrono>
#include <cstdio>
#include <ctime>
#include <sys/resource.h>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "portacl/runtime/context.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/growable_buffer.hpp"
#include "portacl/runtime/log.hpp"
#include "voronoi/tracer.hpp"
#include "portacl/runtime/host_pool.hpp"

namespace portacl::voronoi::device {

// A device buffer kept with the context across computations and grown geometrically, so that
// repeated calls (a benchmark's repeats, an ensemble's batches) allocate nothing.
inline GrowableBuffer keptBuffer(cl_mem_flags flags = CL_MEM_READ_ONLY) { return GrowableBuffer(flags, GrowableBuffer::Growth::Doubling); }

// Writes `host` into `buf` (grown as needed) without waiting. The host copies live in the
// DeviceState kept with the context, which `keep` holds until the write has completed; they stay
// unchanged until the queue passes the write (the computation's blocking reads do).
template <typename T>
void writeKept(Context& ctx, GrowableBuffer& buf, const std::vector<T>& host, const char* what, const std::shared_ptr<const void>& keep) {
    buf.reserve(ctx, host.size() * sizeof(T), what);
    if (!host.empty()) ctx.writeAsync(buf.buffer(), host.data(), host.size() * sizeof(T), what, keep);
}

// Everything about the frames that stays on the device for the whole batch, in one precision.
template <typename R4, typename R>
struct FrameData {
    std::vector<R4> all, sorted, grids;
    std::vector<R> rmaxes;
    GrowableBuffer balls = keptBuffer(), cellBalls = keptBuffer(), grid = keptBuffer(), rmax = keptBuffer();

    void upload(Context& ctx, const std::vector<std::unique_ptr<Tracer>>& tracers, const std::shared_ptr<const void>& keep) {
        all.clear(), sorted.clear(), grids.clear(), rmaxes.clear();
        for (const auto& tr : tracers) {
            const auto& balls = tr->balls();
            const std::size_t base = all.size();
            for (const auto& b : balls)
                all.push_back(R4{{static_cast<R>(b.x), static_cast<R>(b.y), static_cast<R>(b.z), static_cast<R>(b.r)}});
            for (int j : tr->grid().cellBalls) sorted.push_back(all[base + j]);
            const BallGrid& g = tr->grid();
            grids.push_back(R4{{static_cast<R>(g.lo[0]), static_cast<R>(g.lo[1]), static_cast<R>(g.lo[2]), static_cast<R>(g.h)}});
            rmaxes.push_back(static_cast<R>(tr->maxRadius()));
        }
        writeKept(ctx, balls, all, "voronoi balls", keep);
        writeKept(ctx, cellBalls, sorted, "voronoi grid balls", keep);
        writeKept(ctx, grid, grids, "voronoi frame grids", keep);
        writeKept(ctx, rmax, rmaxes, "voronoi frame radii", keep);
    }
};

// The kernels of one search split and mode (the context's cached kernel objects).
struct WaveKernels {
    cl::Kernel narrow1, wide1, narrow2, wide2;  // phase 1 (float) and phase 2 (double); absent when unused
    std::size_t itemGroup = 1;                   // work-group of the narrow kernels with one work-item per search
    std::size_t minGroups = 0;                   // work-groups a launch should have at least ([voronoi] groups_per_unit)
    // The work-group for a launch of `searches` one-work-item searches: itemGroup, halved until the
    // launch has minGroups groups (a CPU runs a work-group on one core: 1A8O's first wave, 664
    // searches, would be 6 groups of 128 on 16 cores).
    std::size_t itemGroupFor(std::size_t searches) const {
        std::size_t g = itemGroup;
        while (g > 1 && (searches + g - 1) / g < minGroups) g /= 2;
        return g;
    }
};

// What a computation keeps on the device and the host copies behind its writes, kept with the
// context (see writeKept).
struct DeviceState {
    FrameData<cl_float4, float> fd;
    FrameData<cl_double4, double> dd;
    std::vector<cl_int> cellStart, cellIndex;
    std::vector<cl_int4> dims;
    std::vector<cl_int2> offsets;
    GrowableBuffer cellStartBuf = keptBuffer(), cellIndexBuf = keptBuffer(), dimsBuf = keptBuffer(), offsetsBuf = keptBuffer();
    // The wave: its input and zeroed counts (WaveLayout; cl_double4 elements keep every part aligned
    // on the host), its counts and answers as read back, and its device buffer.
    std::vector<cl_double4> input;
    std::vector<cl_int2> answers;
    GrowableBuffer waveBuf = keptBuffer(CL_MEM_READ_WRITE);
    // The completeness pass: its input (tasks, kinds, windows, tops, known balls) and answers in one
    // buffer.
    std::vector<cl_double4> passInput;
    std::vector<cl_int> passAnswers;
    GrowableBuffer passBuf = keptBuffer(CL_MEM_READ_WRITE);
};

// Host wall time of the computation's phases (PORTACL_VORONOI_TIMES=1 sends them to the logger), and
// the calling thread's CPU time in the host phases and in the waits for the device.
struct HostPhases {
    double setup = 0, seed = 0, prepare = 0, enqueue = 0, device = 0, resolve = 0, commit = 0, finish = 0;
    double passTasks = 0, passDevice = 0, passHost = 0;  // the completeness pass: faces + upload, filter, exact step
    double hostCpu = 0, deviceCpu = 0, hostProcessCpu = 0;
    long pageFaults = 0;  // the calling thread's
    std::size_t wideSearches = 0, passFaces = 0, passTriples = 0, passFlagged = 0;
    int passRounds = 0;
    std::string shape;  // the searches' split (SearchShape::describe)
    bool cpuPhases = false;  // the phases in the calling thread's CPU time (PhaseTick::cpuPhases), not wall time
    void print(int waves, unsigned threads, std::size_t frames) const {
        char line[1400];
        std::snprintf(line, sizeof line,
                     "voronoi times (%zu frames, %u host threads; %s; %s): setup+upload %.1f ms, starts %.1f ms; %d waves: prepare+upload "
                     "%.1f ms, enqueue %.1f ms, device + answer download %.1f ms (%zu wide searches), resolve %.1f ms, "
                     "commit %.1f ms; completeness pass (%d rounds, %zu faces, %zu triples, %zu flagged): faces + upload "
                     "%.1f ms, device + download %.1f ms, host %.1f ms; finish %.1f ms; the calling thread's CPU: %.1f ms in "
                     "the host phases (%.3f ms a frame), %.1f ms waiting for the device; %ld page faults; the process's CPU in the "
                     "host phases: %.1f ms (%.3f ms a frame)",
                     frames, threads, shape.c_str(), cpuPhases ? "phases in CPU time" : "phases in wall time", 1e3 * setup, 1e3 * seed, waves, 1e3 * prepare, 1e3 * enqueue, 1e3 * device, wideSearches,
                     1e3 * resolve, 1e3 * commit, passRounds, passFaces, passTriples, passFlagged, 1e3 * passTasks, 1e3 * passDevice,
                     1e3 * passHost, 1e3 * finish, 1e3 * hostCpu, frames ? 1e3 * hostCpu / static_cast<double>(frames) : 0.0,
                     1e3 * deviceCpu, pageFaults, 1e3 * hostProcessCpu,
                     frames ? 1e3 * hostProcessCpu / static_cast<double>(frames) : 0.0);
        log(LogLevel::Debug, line);
    }
};

// The calling thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID).
inline double threadCpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// The process's CPU time in seconds (every thread: the tracer's pool, and the device's threads on a
// CPU device).
inline double processCpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// The calling thread's page faults so far (minor: a page of fresh memory zeroed by the kernel).
inline long threadPageFaults() {
    rusage u{};
    getrusage(RUSAGE_THREAD, &u);
    return u.ru_minflt + u.ru_majflt;
}

// Where a computation's phases start: the wall clock, and the calling thread's CPU time, summed
// apart for the host phases and for the waits for the device (a driver that spins while it waits
// spends CPU there too). With one host thread (PORTACL_VORONOI_THREADS=1) the host phases' CPU
// time is the core time the host work of the frames costs.
// The process's CPU time in the host phases counts the pool's threads too (a one-member run on a
// GPU: the host work of every thread; on a CPU device its threads sleep while the host works).
// The CPU clocks are read only for PORTACL_VORONOI_TIMES: they are system calls, and the process's
// sums every thread under a lock of the whole process, which a batch's members would take in turns.
// With `cpuPhases` (PORTACL_VORONOI_TIMES=cpu) the phases are timed in the thread's CPU time, not
// the wall clock: on a loaded machine, or with one host thread, what each phase costs a core.
struct PhaseTick {
    explicit PhaseTick(bool cpuClocks, bool cpuPhases = false) : cpuClocks(cpuClocks || cpuPhases), cpuPhases(cpuPhases) {}
    bool cpuClocks, cpuPhases;
    std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
    double cpu = cpuClocks ? threadCpuSeconds() : 0, processCpu = cpuClocks ? processCpuSeconds() : 0;
    double hostCpu = 0, deviceCpu = 0, hostProcessCpu = 0;
};

// Wall seconds since `tick`, which moves to now; the thread's CPU time since then counts as host
// work, or with `waitingForDevice` as the device phases'.
inline double lap(PhaseTick& tick, bool waitingForDevice = false) {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - tick.wall).count();
    tick.wall = now;
    if (!tick.cpuClocks) return s;
    const double cpu = threadCpuSeconds();
    const double processCpu = processCpuSeconds();
    const double used = cpu - tick.cpu;
    (waitingForDevice ? tick.deviceCpu : tick.hostCpu) += used;
    if (!waitingForDevice) tick.hostProcessCpu += processCpu - tick.processCpu;
    tick.cpu = cpu;
    tick.processCpu = processCpu;
    return tick.cpuPhases ? used : s;
}

// The completeness pass (docs/voronoi.md) of the frames not done yet, one launch for all of them: each
// frame's faces (Tracer::faceTasks), the filter on the device (voronoi_faces, in the precision of
// `data`: double where the device has fp64, float otherwise), the exact host step on the flagged
// faces. Frames whose pass added no start are marked done. Returns whether any frame has edges to
// trace again. `beforeChanges` runs before the first change to a tracer (until then the pass only
// reads them).
template <typename R4, typename R>
bool completenessPass(Context& ctx, DeviceState& ds, const FrameData<R4, R>& data, const std::string& options,
                      std::vector<std::unique_ptr<Tracer>>& tracers, std::vector<char>& done, HostPool& pool, HostPhases& times,
                      PhaseTick& tick, const std::function<void()>& beforeChanges);

}  // namespace portacl::voronoi::device
