// Host threads that write a batch's outputs behind its devices: a member hands an item's writing
// (encoding a PNG, an HDF5 file) to them and takes its next item, so that the devices do not wait
// for the host's writing, and the writing of several items runs at once. At most `maxPending` jobs
// wait; a member that finds them all taken waits (BatchPhase::Write) for one to finish.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "portacl/runtime/batch_phases.hpp"

namespace portacl::cli {

class WriteBehind {
public:
    // `threads` writers; jobs must not throw (they record their own failures).
    WriteBehind(unsigned threads, std::size_t maxPending) : maxPending_(std::max<std::size_t>(1, maxPending)) {
        for (unsigned t = 0; t < std::max(1u, threads); ++t) threads_.emplace_back([this] { work(); });
    }
    ~WriteBehind() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        changed_.notify_all();
        for (auto& t : threads_) t.join();
    }
    WriteBehind(const WriteBehind&) = delete;
    WriteBehind& operator=(const WriteBehind&) = delete;

    void submit(std::function<void()> job) {
        std::unique_lock<std::mutex> lock(mutex_);
        if (queued_ + running_ >= maxPending_) {
            PhaseScope waiting(BatchPhase::Write);
            changed_.wait(lock, [&] { return queued_ + running_ < maxPending_; });
        }
        jobs_.push_back(std::move(job));
        ++queued_;
        changed_.notify_all();
    }
    // Returns when every job submitted so far has run.
    void drain() {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return queued_ + running_ == 0; });
    }

private:
    void work() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            changed_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
            if (jobs_.empty()) return;  // stopping, nothing left
            std::function<void()> job = std::move(jobs_.front());
            jobs_.pop_front();
            --queued_, ++running_;
            lock.unlock();
            job();
            lock.lock();
            --running_;
            changed_.notify_all();
        }
    }

    std::size_t maxPending_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::function<void()>> jobs_;
    std::size_t queued_ = 0, running_ = 0;
    bool stop_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace portacl::cli
