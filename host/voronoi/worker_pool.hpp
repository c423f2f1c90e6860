// A small pool of host threads for the tracer's independent per-item work (start-vertex searches,
// a wave's task preparation and the geometry of its answers). Kept for a whole computation, so a
// wave pays a wake-up, not a thread start.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace portacl::voronoi {

class WorkerPool {
public:
    // `threads` in all, the calling thread included (1: everything runs on the caller).
    explicit WorkerPool(unsigned threads);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    unsigned threads() const { return static_cast<unsigned>(helpers_.size()) + 1; }

    // Calls f(begin, end) on consecutive chunks of [0, n) (at least `grain` items each) on the
    // caller and as many threads as there are further chunks, and returns when all are done; the
    // first exception thrown is rethrown here. Small ranges run on the caller alone.
    void forRange(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& f);

    // Threads for this machine: PORTACL_VORONOI_THREADS if set, else `share` (the context's
    // ContextOptions::hostThreads) when given, else the usable cores; at most 16 but for the first.
    static unsigned defaultThreads(unsigned share = 0);

private:
    void work();
    void runChunks();

    std::vector<std::thread> helpers_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    std::size_t generation_ = 0, busy_ = 0;
    bool stop_ = false;
    // The job of the current generation.
    const std::function<void(std::size_t, std::size_t)>* job_ = nullptr;
    std::size_t n_ = 0, chunk_ = 1, next_ = 0;
    std::exception_ptr error_;
};

}  // namespace portacl::voronoi
