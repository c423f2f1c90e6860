// A batch's inputs read ahead of its members: host threads read and decode the items expected next,
// in the order they were expected (the order a device set hands them out), at most `window` of them
// waiting to be taken, so that a member finds its next input decoded and its device does not wait for
// the host's reading. One process expects the whole batch at once; an MPI rank expects each chunk it
// is handed and forgets it when done (what it read of a chunk stopped early is freed). A member that
// takes an item no reader has started (a failed member's item handed out again, a straggler's copy)
// reads it itself. The readers' waits and the member's own reads count as BatchPhase::Read.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "portacl/runtime/batch_phases.hpp"

namespace portacl::cli {

template <typename T>
class ReadAhead {
public:
    ReadAhead(std::size_t n, std::function<T(std::size_t)> read, unsigned threads, std::size_t window)
        : read_(std::move(read)), window_(std::max<std::size_t>(1, window)), items_(n) {
        for (unsigned t = 0; t < std::max(1u, threads); ++t) threads_.emplace_back([this] { work(); });
    }
    ~ReadAhead() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        changed_.notify_all();
        for (auto& t : threads_) t.join();
    }
    ReadAhead(const ReadAhead&) = delete;
    ReadAhead& operator=(const ReadAhead&) = delete;

    // Items [begin, end) are to be read, after those expected before.
    void expect(std::size_t begin, std::size_t end) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            expected_.emplace_back(begin, std::min(end, items_.size()));
        }
        changed_.notify_all();
    }

    // Items [begin, end) will not be taken: those read are freed, those not started are not read.
    void forget(std::size_t begin, std::size_t end) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            for (std::size_t i = begin; i < std::min(end, items_.size()); ++i) {
                Item& item = items_[i];
                if (item.state == State::Reading) item.forgotten = true;  // its reader frees it
                if (item.state == State::Ready) {
                    item.value.reset();
                    item.error = nullptr;
                    --waiting_;
                }
                if (item.state != State::Reading) item.state = State::Taken;
            }
        }
        changed_.notify_all();
    }

    // Item i's input, read ahead or now; throws what reading it threw.
    T take(std::size_t i) {
        PhaseScope reading(BatchPhase::Read);
        std::unique_lock<std::mutex> lock(mutex_);
        Item& item = items_[i];
        if (item.state == State::Reading) changed_.wait(lock, [&] { return item.state != State::Reading; });
        if (item.state != State::Ready) {
            // Not started (or taken before, by the first copy): read here.
            item.state = State::Taken;
            lock.unlock();
            return read_(i);
        }
        item.state = State::Taken;
        --waiting_;
        changed_.notify_all();
        if (item.error) std::rethrow_exception(item.error);
        T value = std::move(*item.value);
        item.value.reset();
        return value;
    }

private:
    enum class State { Untouched, Reading, Ready, Taken };
    struct Item {
        State state = State::Untouched;
        bool forgotten = false;  // forgotten while being read
        std::optional<T> value;
        std::exception_ptr error;
    };

    void work() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            changed_.wait(lock, [&] { return stop_ || (waiting_ < window_ && next() < items_.size()); });
            if (stop_) return;
            const std::size_t i = next();
            items_[i].state = State::Reading;
            ++waiting_;
            lock.unlock();
            std::optional<T> value;
            std::exception_ptr error;
            try {
                value.emplace(read_(i));
            } catch (...) {
                error = std::current_exception();
            }
            lock.lock();
            Item& item = items_[i];
            if (item.forgotten) {
                item.forgotten = false;
                item.state = State::Taken;
                --waiting_;
            } else {
                item.value = std::move(value);
                item.error = error;
                item.state = State::Ready;
            }
            changed_.notify_all();
        }
    }
    // The first expected item no reader or member has started, or items_.size() (with the lock held).
    std::size_t next() {
        while (!expected_.empty()) {
            auto& [from, to] = expected_.front();
            while (from < to && items_[from].state != State::Untouched) ++from;
            if (from < to) return from;
            expected_.pop_front();
        }
        return items_.size();
    }

    std::function<T(std::size_t)> read_;
    std::size_t window_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<Item> items_;
    std::deque<std::pair<std::size_t, std::size_t>> expected_;  // ranges still to read, in order
    std::size_t waiting_ = 0;  // items being read or read and not taken
    bool stop_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace portacl::cli
