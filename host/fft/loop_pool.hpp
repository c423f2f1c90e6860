// The threads FFTW's parallel loops run on (fftw_threads_set_callback), in place of FFTW's own: one
// 3-D transform is several parallel loops (one per pass over the array), and FFTW's own threads
// sleep on a semaphore each between them, woken one by one by the calling thread. Here the workers
// spin for a short while after each loop, so that the next loop of the same transform starts at
// once, then sleep until one is published (one broadcast wakes them all); the end of a transform
// sends them to sleep at once. The calling thread takes
// jobs of its own loop too, so loops nested in a job (FFTW splits threads among sub-plans) and
// loops of two threads at once always progress, whatever the workers are doing.
#pragma once

#include <cstddef>

#include "portacl/export.hpp"

namespace portacl::fft::detail {

// Makes sure `workers` threads exist (never fewer than asked before).
PORTACL_API void reserveLoopWorkers(int workers);  // exported for the tests
// FFTW's parallel-loop callback: work(jobdata + i * elsize) for i in [0, njobs), returning when
// every job has run. `data` is unused.
// Sends the spinning workers to sleep now: the caller's loops are over for a while.
PORTACL_API void parkLoopWorkers();
PORTACL_API void runParallelLoop(void* (*work)(char*), char* jobdata, std::size_t elsize, int njobs, void* data);

}  // namespace portacl::fft::detail
