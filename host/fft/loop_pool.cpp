#include "fft/loop_pool.hpp"

#include <chrono>

#include "portacl/runtime/host_pool.hpp"

namespace portacl::fft::detail {

namespace {

// How long a worker waits by spinning for the next loop before it sleeps: far longer than the serial
// steps between the passes of one transform (microseconds). The end of a transform parks the
// workers at once (parkLoopWorkers), so that they do not spin through the OpenCL kernel after it.
constexpr auto kSpin = std::chrono::microseconds(200);

HostPool& pool() {
    static HostPool* p = new HostPool(1, kSpin);  // never destroyed: its workers may still wait at exit
    return *p;
}

}  // namespace

void reserveLoopWorkers(int workers) { pool().reserve(static_cast<unsigned>(workers > 0 ? workers : 0) + 1); }

void parkLoopWorkers() { pool().park(); }

void runParallelLoop(void* (*work)(char*), char* jobdata, std::size_t elsize, int njobs, void*) {
    // By value: a worker reads the job's three words from one place, not from the caller's frame.
    pool().run(njobs > 0 ? static_cast<std::size_t>(njobs) : 0, [work, jobdata, elsize](std::size_t i) { work(jobdata + i * elsize); });
}

}  // namespace portacl::fft::detail
