// FFTW's parallel loops (fftw_threads_set_callback) on a HostPool of the process, in place of FFTW's
// own threads: one 3-D transform is several parallel loops (one per pass over the array), and FFTW's
// own threads sleep on a semaphore each between them, woken one by one by the calling thread. The
// pool's workers spin for a short while after each loop instead, so that the next loop of the same
// transform starts at once, then sleep until one opens; the end of a transform parks them at once.
#pragma once

#include <cstddef>

#include "portacl/export.hpp"

namespace portacl::fft::detail {

// Makes sure `workers` threads besides the caller's exist (never fewer than asked before).
PORTACL_API void reserveLoopWorkers(int workers);  // exported for the tests
// Sends the spinning workers to sleep now: the caller's loops are over for a while.
PORTACL_API void parkLoopWorkers();
// FFTW's parallel-loop callback: work(jobdata + i * elsize) for i in [0, njobs), returning when
// every job has run. `data` is unused.
PORTACL_API void runParallelLoop(void* (*work)(char*), char* jobdata, std::size_t elsize, int njobs, void* data);

}  // namespace portacl::fft::detail
