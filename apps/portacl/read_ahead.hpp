// A batch's inputs read ahead of its members: host threads read and decode the items in input order
// (the order a device set hands them out), at most `window` of them waiting to be taken, so that a
// member finds its next input decoded and its device does not wait for the host's reading. A member
// that takes an item no reader has started (a failed member's item handed out again, a straggler's
// copy) reads it itself. The readers' waits and the member's own reads count as BatchPhase::Read.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
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
        std::optional<T> value;
        std::exception_ptr error;
    };

    void work() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            changed_.wait(lock, [&] { return stop_ || (next() < items_.size() && waiting_ < window_); });
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
            items_[i].value = std::move(value);
            items_[i].error = error;
            items_[i].state = State::Ready;
            changed_.notify_all();
        }
    }
    // The first item no reader or member has started (with the lock held).
    std::size_t next() {
        while (cursor_ < items_.size() && items_[cursor_].state != State::Untouched) ++cursor_;
        return cursor_;
    }

    std::function<T(std::size_t)> read_;
    std::size_t window_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<Item> items_;
    std::size_t cursor_ = 0, waiting_ = 0;  // the first item perhaps untouched; items read and not taken
    bool stop_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace portacl::cli
