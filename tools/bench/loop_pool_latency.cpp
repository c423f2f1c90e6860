// The cost of one FFTW parallel loop on the engine's loop pool (host/fft/loop_pool.cpp on
// host/runtime/host_pool.cpp), apart from any transform: loops of 2 jobs of 5 us each (one per
// thread: 5 us when the worker takes its job at once, 10 when the caller runs both), back to back
// (the passes of one transform; workers spinning) and after a park and 300 us of sleep (the first
// pass of a transform after an OpenCL kernel; workers asleep). Per loop, the median and the best of
// 21 rounds (2000 loops, 200 after a gap, each).
//
//   g++ -std=c++17 -O2 -pthread -Ihost -Iinclude tools/bench/loop_pool_latency.cpp host/fft/loop_pool.cpp \
//       host/runtime/host_pool.cpp -o build/loop_pool_latency
//   build/loop_pool_latency
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "fft/loop_pool.hpp"

namespace {

using namespace portacl::fft::detail;

std::atomic<long> sink{0};

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void* job(char*) {
    const double until = now() + 5e-6;
    while (now() < until) sink.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
}

}  // namespace

int main() {
    reserveLoopWorkers(1);
    char data[1];
    std::vector<double> backToBack, afterGap;
    for (int round = 0; round < 21; ++round) {
        const int loops = 2000, gaps = 200;
        double t = now();
        for (int i = 0; i < loops; ++i) runParallelLoop(job, data, 0, 2, nullptr);
        backToBack.push_back((now() - t) / loops * 1e9);
        double sum = 0;
        for (int i = 0; i < gaps; ++i) {
            parkLoopWorkers();
            std::this_thread::sleep_for(std::chrono::microseconds(300));
            t = now();
            runParallelLoop(job, data, 0, 2, nullptr);
            sum += now() - t;
        }
        afterGap.push_back(sum / gaps * 1e9);
    }
    std::sort(backToBack.begin(), backToBack.end());
    std::sort(afterGap.begin(), afterGap.end());
    std::printf("ns a loop of 2 x 5 us jobs: back to back median %.0f best %.0f; after park + 300 us median %.0f best %.0f\n",
                backToBack[10], backToBack[0], afterGap[10], afterGap[0]);
}
