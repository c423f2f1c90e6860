#include "voronoi/worker_pool.hpp"

#include <algorithm>
#include <cstdlib>
#include "portacl/runtime/host_cores.hpp"

namespace portacl::voronoi {

WorkerPool::WorkerPool(unsigned threads) {
    for (unsigned i = 1; i < std::max(1u, threads); ++i) helpers_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : helpers_) t.join();
}

unsigned WorkerPool::defaultThreads(unsigned share) {
    if (const char* env = std::getenv("PORTACL_VORONOI_THREADS")) {
        const long v = std::strtol(env, nullptr, 10);
        if (v >= 1) return static_cast<unsigned>(std::min(v, 256L));
    }
    return std::clamp(share ? share : portacl::usableCores(), 1u, 16u);
}

// Takes chunks of the current job until none is left (called with the mutex held; released while
// a chunk runs).
void WorkerPool::runChunks() {
    while (next_ < n_) {
        const std::size_t b = next_, e = std::min(n_, b + chunk_);
        next_ = e;
        const auto* job = job_;
        mutex_.unlock();
        try {
            (*job)(b, e);
        } catch (...) {
            mutex_.lock();
            if (!error_) error_ = std::current_exception();
            next_ = n_;
            continue;
        }
        mutex_.lock();
    }
}

void WorkerPool::work() {
    std::size_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        ++busy_;
        runChunks();
        if (--busy_ == 0) done_.notify_all();
    }
}

void WorkerPool::forRange(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& f) {
    if (n == 0) return;
    grain = std::max<std::size_t>(grain, 1);
    if (helpers_.empty() || n <= grain) {
        f(0, n);
        return;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = &f;
    n_ = n;
    next_ = 0;
    // About four chunks per thread: even enough when items differ in cost.
    chunk_ = std::max(grain, (n + 4 * threads() - 1) / (4 * threads()));
    error_ = nullptr;
    ++generation_;
    // Only as many helpers as there are chunks besides the caller's: a small job (a small wave on a
    // machine of 16 threads) does not pay for waking every thread.
    const std::size_t chunks = (n + chunk_ - 1) / chunk_;
    if (chunks > helpers_.size()) wake_.notify_all();
    else
        for (std::size_t i = 1; i < chunks; ++i) wake_.notify_one();
    ++busy_;
    runChunks();
    --busy_;
    done_.wait(lock, [&] { return busy_ == 0; });
    job_ = nullptr;
    if (error_) std::rethrow_exception(error_);
}

}  // namespace portacl::voronoi
