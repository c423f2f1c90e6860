// FFTW alone, the threads of its parallel loops three ways: OpenMP (`#pragma omp parallel for` over
// the jobs, what libfftw3f_omp does and so what kspaceFirstOrder-OMP runs on), the engine's loop pool
// (host/fft/loop_pool.cpp on host/runtime/host_pool.cpp, parked after each transform as the engine
// does), and FFTW's own threads (libfftw3f_threads' default). The forward and inverse real 3-D transforms of N^3 floats, out of
// place, FFTW_MEASURE, on memory in transparent huge pages as the engine's shared buffers are, on 3
// pairs of arrays in turn (the three components both programs transform, so that at 128^3 the data
// are not all in the last-level cache, as in a time step); per transform, the best of REPEATS:
//   back to back  the transforms one after another (threads warm: kspaceFirstOrder-OMP between its
//                 FFTW calls runs its own loops on the same threads)
//   after a gap   GAP_MS of sleep before each transform (the engine: an OpenCL kernel runs on
//                 PoCL's threads between two transforms, and FFTW's threads wait or sleep meanwhile)
// The difference between the two is what handing the cores over costs per transform.
//
//   g++ -std=c++17 -O2 -fopenmp -static -Ihost -Iinclude tools/bench/fftw_threads.cpp host/fft/loop_pool.cpp \
//       host/runtime/host_pool.cpp \
//       /usr/lib/x86_64-linux-gnu/libfftw3f_threads.a /usr/lib/x86_64-linux-gnu/libfftw3f.a \
//       -o build/fftw_threads      # static (Debian's libfftw3-dev): copy it to .device/bin for the GPU machine
//   build/fftw_threads [N=128] [THREADS=all cores] [REPEATS=10] [GAP_MS=2]
#include <fftw3.h>
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "huge_pages.hpp"

#include "fft/loop_pool.hpp"

namespace {

using portacl::fft::detail::parkLoopWorkers;
using portacl::fft::detail::reserveLoopWorkers;
using portacl::fft::detail::runParallelLoop;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }


// FFTW's parallel loop on OpenMP threads, as its OpenMP backend runs it.
void openmpLoop(void* (*work)(char*), char* jobdata, std::size_t elsize, int njobs, void*) {
#pragma omp parallel for
    for (int i = 0; i < njobs; ++i) work(jobdata + static_cast<std::size_t>(i) * elsize);
}

enum class Method { OpenMP, Pool, Fftw };
const char* name(Method m) { return m == Method::OpenMP ? "OpenMP (kspaceFirstOrder-OMP)" : m == Method::Pool ? "loop pool (ours)" : "FFTW's own threads"; }

void use(Method m) {
    if (m == Method::OpenMP) fftwf_threads_set_callback(openmpLoop, nullptr);
    if (m == Method::Pool) fftwf_threads_set_callback(runParallelLoop, nullptr);
    if (m == Method::Fftw) fftwf_threads_set_callback(nullptr, nullptr);  // FFTW's default (3.3.9 on)
}

}  // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 128;
    const int threads = argc > 2 ? std::atoi(argv[2]) : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int repeats = argc > 3 ? std::atoi(argv[3]) : 10;
    const double gapMs = argc > 4 ? std::atof(argv[4]) : 2.0;
    if (n < 2 || threads < 1 || repeats < 1 || gapMs < 0) {
        std::fprintf(stderr, "usage: fftw_threads [N >= 2] [THREADS >= 1] [REPEATS >= 1] [GAP_MS >= 0]\n");
        return 1;
    }
    const std::size_t real = std::size_t(n) * n * n, half = std::size_t(n) * n * (n / 2 + 1);
    constexpr int kItems = 3;
    auto* r = static_cast<float*>(hugePages(kItems * real * sizeof(float)));
    auto* c = static_cast<fftwf_complex*>(hugePages(kItems * half * sizeof(fftwf_complex)));
    omp_set_num_threads(threads);
    reserveLoopWorkers(threads - 1);
    fftwf_init_threads();
    fftwf_plan_with_nthreads(threads);
    use(Method::Pool);  // the plans are the same whichever threads run their loops
    fftwf_plan forward = fftwf_plan_dft_r2c_3d(n, n, n, r, c, FFTW_MEASURE);
    fftwf_plan inverse = fftwf_plan_dft_c2r_3d(n, n, n, c, r, FFTW_MEASURE);
    parkLoopWorkers();
    for (std::size_t i = 0; i < kItems * real; ++i) r[i] = float(i * 7919 % 1000) * 1e-3f;

    std::printf("%d^3 float, %d threads, R2C and C2R out of place, FFTW_MEASURE; ms per transform, best of %d\n", n, threads, repeats);
    std::printf("%-32s %14s %14s\n", "threads of the parallel loops", "back to back", "after a gap");
    for (const Method m : {Method::OpenMP, Method::Pool, Method::Fftw}) {
        use(m);
        double warm = 1e30, cold = 1e30;
        for (int k = 0; k < 3 + repeats; ++k) {
            const double t0 = now();
            for (int i = 0; i < kItems; ++i) fftwf_execute_dft_r2c(forward, r + i * real, c + i * half);
            for (int i = 0; i < kItems; ++i) fftwf_execute_dft_c2r(inverse, c + i * half, r + i * real);
            if (m == Method::Pool) parkLoopWorkers();
            if (k >= 3) warm = std::min(warm, (now() - t0) / (2 * kItems));
            double all = 0;
            for (int d = 0; d < 2 * kItems; ++d) {
                std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(gapMs));
                const double t1 = now();
                const int i = d % kItems;
                if (d < kItems) fftwf_execute_dft_r2c(forward, r + i * real, c + i * half);
                else fftwf_execute_dft_c2r(inverse, c + i * half, r + i * real);
                if (m == Method::Pool) parkLoopWorkers();
                all += now() - t1;
            }
            if (k >= 3) cold = std::min(cold, all / (2 * kItems));
        }
        std::printf("%-32s %14.3f %14.3f\n", name(m), 1e3 * warm, 1e3 * cold);
    }
    fftwf_destroy_plan(forward);
    fftwf_destroy_plan(inverse);
    std::free(r);
    std::free(c);
    return 0;
}
