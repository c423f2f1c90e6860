// Host threads that write a batch's outputs behind its devices: a member hands an item's writing
// (formatting Voronoi's text, encoding a PNG, an HDF5 file) to them and takes its next item, so that
// the devices do not wait for the host's writing, and the writing of many items runs at once, one
// item per thread. At most `maxPending` jobs wait or run (what they hold is bounded); a member that
// finds them all taken waits (BatchPhase::Write) for one to finish. The writers' busy time tells
// whether they, and not the devices, limit a batch (describe()).
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "portacl/runtime/batch_phases.hpp"

namespace portacl::cli {

class WriteBehind {
public:
    // `threads` writers (batches take one per core of theirs, hostCores(): the members' threads wait
    // for their devices most of the time, and a writer that finds no job sleeps); jobs must not throw (they record their own failures).
    WriteBehind(unsigned threads, std::size_t maxPending) : maxPending_(std::max<std::size_t>(1, maxPending)) {
        for (unsigned t = 0; t < std::max(1u, threads); ++t) threads_.emplace_back([this] { work(); });
    }
    ~WriteBehind() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        work_.notify_all();
        for (auto& t : threads_) t.join();
    }
    WriteBehind(const WriteBehind&) = delete;
    WriteBehind& operator=(const WriteBehind&) = delete;

    unsigned threads() const { return static_cast<unsigned>(threads_.size()); }

    void submit(std::function<void()> job) {
        std::unique_lock<std::mutex> lock(mutex_);
        if (queued_ + running_ >= maxPending_) {
            PhaseScope waiting(BatchPhase::Write);
            space_.wait(lock, [&] { return queued_ + running_ < maxPending_; });
        }
        jobs_.push_back(std::move(job));
        ++queued_;
        work_.notify_one();
    }
    // Returns when every job submitted so far has run.
    void drain() {
        std::unique_lock<std::mutex> lock(mutex_);
        space_.wait(lock, [&] { return queued_ + running_ == 0; });
    }
    // The writers' seconds in jobs so far, all threads together.
    double busySeconds() {
        std::lock_guard<std::mutex> lock(mutex_);
        return busy_;
    }
    // "outputs written on N host threads behind the devices, busy P % of the batch's S s; the last T
    // s of the batch only wrote", and when the writers were busy most of the batch, that they limit it.
    std::string describe(double batchSeconds, double tailSeconds) {
        const double share = batchSeconds > 0 ? busySeconds() / (threads() * batchSeconds) : 0;
        char line[256];
        std::snprintf(line, sizeof line,
                      "  outputs written on %u host threads behind the devices, busy %.0f %% of the batch; the last %.3f s of the batch only wrote%s\n",
                      threads(), 100 * share, tailSeconds,
                      share > 0.8 ? " (the writers limit this batch: more cores, or a cheaper output format)" : "");
        return line;
    }

private:
    void work() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            work_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
            if (jobs_.empty()) return;  // stopping, nothing left
            std::function<void()> job = std::move(jobs_.front());
            jobs_.pop_front();
            --queued_, ++running_;
            lock.unlock();
            const auto t0 = std::chrono::steady_clock::now();
            job();
            job = nullptr;  // what it held is freed on this thread, outside the lock
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            lock.lock();
            busy_ += s;
            --running_;
            space_.notify_all();
        }
    }

    std::size_t maxPending_;
    std::mutex mutex_;
    std::condition_variable work_, space_;  // a job to take; room for a job (or none left)
    std::deque<std::function<void()>> jobs_;
    std::size_t queued_ = 0, running_ = 0;
    double busy_ = 0;
    bool stop_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace portacl::cli
