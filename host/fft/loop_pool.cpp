#include "fft/loop_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace portacl::fft::detail {

namespace {

// How long a worker waits by spinning for the next loop before it sleeps: far longer than the serial
// steps between the passes of one transform (microseconds). The end of a transform parks the
// workers at once (parkLoopWorkers), so that they do not spin through the OpenCL kernel after it.
constexpr auto kSpin = std::chrono::microseconds(200);

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

struct Loop {
    void* (*work)(char*);
    char* data;
    std::size_t elsize;
    int njobs;
    std::atomic<int> next{0};   // the next job nobody has taken
    std::atomic<int> users{0};  // workers taking jobs of this loop
};

// Runs jobs of `loop` until none is left to take.
void takeJobs(Loop& loop) {
    for (int i; (i = loop.next.fetch_add(1, std::memory_order_relaxed)) < loop.njobs;)
        loop.work(loop.data + static_cast<std::size_t>(i) * loop.elsize);
}

class LoopPool {
public:
    void reserve(int workers) {
        std::lock_guard<std::mutex> lock(mutex_);
        while (static_cast<int>(threads_.size()) < workers) {
            threads_.emplace_back([this] { workerMain(); });
            threads_.back().detach();  // the pool lives as long as the process
        }
        workers_.store(static_cast<int>(threads_.size()), std::memory_order_release);
    }
    bool hasWorkers() const { return workers_.load(std::memory_order_acquire) > 0; }
    void park() { parked_.store(true, std::memory_order_relaxed); }

    void run(Loop& loop) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            open_.push_back(&loop);
            parked_.store(false, std::memory_order_relaxed);
            epoch_.fetch_add(1, std::memory_order_release);
            if (sleeping_) wake_.notify_all();
        }
        takeJobs(loop);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            open_.erase(std::find(open_.begin(), open_.end(), &loop));
        }
        // Workers that took jobs of it may still be running them (users was raised under the mutex,
        // so no worker can join any more).
        for (int spins = 0; loop.users.load(std::memory_order_acquire) != 0; ++spins) {
            if (spins < 4096) cpuRelax();
            else std::this_thread::yield();
        }
    }

private:
    void workerMain() {
        for (;;) {
            const std::uint64_t seen = epoch_.load(std::memory_order_acquire);
            Loop* loop = nullptr;
            {
                std::lock_guard<std::mutex> lock(mutex_);
                for (Loop* l : open_)
                    if (l->next.load(std::memory_order_relaxed) < l->njobs) {
                        loop = l;
                        loop->users.fetch_add(1, std::memory_order_relaxed);
                        break;
                    }
            }
            if (loop) {
                takeJobs(*loop);
                loop->users.fetch_sub(1, std::memory_order_release);  // the last touch of *loop
                continue;
            }
            const auto until = std::chrono::steady_clock::now() + kSpin;
            bool changed = false;
            for (int spins = 1; !changed; ++spins) {
                cpuRelax();
                changed = epoch_.load(std::memory_order_acquire) != seen;
                if (parked_.load(std::memory_order_relaxed)) break;
                if (spins % 64 == 0 && std::chrono::steady_clock::now() >= until) break;
            }
            if (changed) continue;
            std::unique_lock<std::mutex> lock(mutex_);
            ++sleeping_;
            wake_.wait(lock, [&] { return epoch_.load(std::memory_order_relaxed) != seen; });
            --sleeping_;
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    std::vector<Loop*> open_;             // loops whose jobs may not all be taken (under mutex_)
    std::atomic<std::uint64_t> epoch_{0};  // raised (under mutex_) each time a loop opens
    std::atomic<bool> parked_{false};      // parkLoopWorkers: no spinning until a loop opens
    int sleeping_ = 0;                     // under mutex_
    std::vector<std::thread> threads_;     // under mutex_
    std::atomic<int> workers_{0};          // threads_.size()
};

LoopPool& pool() {
    static LoopPool* p = new LoopPool;  // never destroyed: its threads may still wait at exit
    return *p;
}

}  // namespace

void reserveLoopWorkers(int workers) { pool().reserve(workers); }

void parkLoopWorkers() { pool().park(); }

void runParallelLoop(void* (*work)(char*), char* jobdata, std::size_t elsize, int njobs, void*) {
    if (njobs <= 1 || !pool().hasWorkers()) {
        for (int i = 0; i < njobs; ++i) work(jobdata + static_cast<std::size_t>(i) * elsize);
        return;
    }
    Loop loop;
    loop.work = work;
    loop.data = jobdata;
    loop.elsize = elsize;
    loop.njobs = njobs;
    pool().run(loop);
}

}  // namespace portacl::fft::detail
