#include "portacl/runtime/host_pool.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace portacl {
namespace {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// One run() call's loop, on its caller's stack; open (in State::open) while items may be untaken.
struct Loop {
    void (*call)(void*, std::size_t);
    void* fn;
    std::size_t n;
    std::atomic<std::size_t> next{0};  // the next item nobody has taken (n or more: none left)
    std::atomic<unsigned> users{0};    // workers taking items of it
    std::exception_ptr error;          // the first an item threw (under State::mutex)
};

}  // namespace

struct HostPool::State {
    std::chrono::microseconds spin;
    std::mutex mutex;
    std::condition_variable wake;  // workers: a loop opened, or stop
    std::condition_variable done;  // callers of a pool that does not spin: a worker left a loop
    std::vector<Loop*> open;             // under mutex
    std::atomic<std::uint64_t> epoch{0};  // raised (under mutex) each time a loop opens
    std::atomic<bool> parked{false};      // park(): no spinning until a loop opens
    std::atomic<bool> stop{false};
    int sleeping = 0;                   // under mutex
    std::vector<std::thread> workers;   // under mutex
    std::atomic<unsigned> threads{1};   // workers.size() + 1

    // Takes items of `loop` until none is left; an item's exception ends the loop's handing-out.
    void takeItems(Loop& loop) {
        for (std::size_t i; (i = loop.next.fetch_add(1, std::memory_order_relaxed)) < loop.n;) {
            try {
                loop.call(loop.fn, i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(mutex);
                if (!loop.error) loop.error = std::current_exception();
                loop.next.store(loop.n, std::memory_order_relaxed);
            }
        }
    }

    // Leaves a loop joined in workerMain: its last touch of *loop. `spins`: spin.count() > 0, read
    // once (spin shares a cache line with the mutex the caller has just taken).
    void leave(Loop& loop, bool spins) {
        if (spins) {
            loop.users.fetch_sub(1, std::memory_order_release);  // its caller spins on users
            return;
        }
        std::lock_guard<std::mutex> lock(mutex);
        if (loop.users.fetch_sub(1, std::memory_order_relaxed) == 1) done.notify_all();
    }

    void workerMain() {
        const bool spins = spin.count() > 0;
        for (;;) {
            const std::uint64_t seen = epoch.load(std::memory_order_acquire);
            Loop* loop = nullptr;
            {
                std::lock_guard<std::mutex> lock(mutex);
                if (stop.load(std::memory_order_relaxed)) return;
                for (Loop* l : open)
                    if (l->next.load(std::memory_order_relaxed) < l->n) {
                        loop = l;
                        loop->users.fetch_add(1, std::memory_order_relaxed);
                        break;
                    }
            }
            if (loop) {
                takeItems(*loop);
                leave(*loop, spins);
                continue;
            }
            if (spins) {
                const auto until = std::chrono::steady_clock::now() + spin;
                bool changed = false;
                for (int spins = 1; !changed; ++spins) {
                    cpuRelax();
                    changed = epoch.load(std::memory_order_acquire) != seen;
                    if (parked.load(std::memory_order_relaxed)) break;  // stop: ends the spin by its time
                    if (spins % 64 == 0 && std::chrono::steady_clock::now() >= until) break;
                }
                if (changed) continue;
            }
            std::unique_lock<std::mutex> lock(mutex);
            ++sleeping;
            wake.wait(lock, [&] { return stop.load(std::memory_order_relaxed) || epoch.load(std::memory_order_relaxed) != seen; });
            --sleeping;
        }
    }
};

HostPool::HostPool(unsigned threads, std::chrono::microseconds spin) : state_(std::make_unique<State>()) {
    state_->spin = spin;
    reserve(threads);
}

HostPool::~HostPool() {
    {
        std::lock_guard<std::mutex> lock(state_->mutex);
        state_->stop.store(true, std::memory_order_relaxed);
    }
    state_->wake.notify_all();
    for (auto& t : state_->workers) t.join();
}

unsigned HostPool::threads() const { return state_->threads.load(std::memory_order_acquire); }

void HostPool::reserve(unsigned threads) {
    State& s = *state_;
    std::lock_guard<std::mutex> lock(s.mutex);
    while (s.workers.size() + 1 < threads) s.workers.emplace_back([&s] { s.workerMain(); });
    s.threads.store(static_cast<unsigned>(s.workers.size()) + 1, std::memory_order_release);
}

void HostPool::park() { state_->parked.store(true, std::memory_order_relaxed); }

void HostPool::runItems(std::size_t n, void (*call)(void*, std::size_t), void* fn) {
    State& s = *state_;
    Loop loop;
    loop.call = call;
    loop.fn = fn;
    loop.n = n;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.open.push_back(&loop);
        s.parked.store(false, std::memory_order_relaxed);
        s.epoch.fetch_add(1, std::memory_order_release);
        // No more sleepers woken than there are items besides the caller's first.
        if (s.sleeping > 0 && n - 1 >= static_cast<std::size_t>(s.sleeping)) s.wake.notify_all();
        else if (s.sleeping > 0)
            for (std::size_t i = 1; i < n; ++i) s.wake.notify_one();
    }
    s.takeItems(loop);
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.open.erase(std::find(s.open.begin(), s.open.end(), &loop));
    }
    // Workers that joined the loop may still be running items of it (they join under the mutex, so
    // none can join any more).
    if (s.spin.count() > 0) {
        for (int spins = 0; loop.users.load(std::memory_order_acquire) != 0; ++spins) {
            if (spins < 4096) cpuRelax();
            else std::this_thread::yield();
        }
    } else {
        std::unique_lock<std::mutex> lock(s.mutex);
        s.done.wait(lock, [&] { return loop.users.load(std::memory_order_relaxed) == 0; });
    }
    if (loop.error) std::rethrow_exception(loop.error);
}

}  // namespace portacl
