// FFTW's batch plan against one item's plan run on each item in turn ([fft] fftw_batch_loop): the
// forward and inverse real 3-D transforms of B items of N^3, out of place, FFTW_MEASURE, on memory in
// transparent huge pages as the engine's shared buffers are. Prints the best time of a forward plus
// inverse pair per item, wall and process CPU, for both ways. The engine's FFTW backend is not
// involved: this is FFTW alone, so that the two plans are compared with nothing else in the process.
//
//   g++ -std=c++17 -O2 tools/bench/fftw_batches.cpp -o build/fftw_batches -lfftw3f_threads -lfftw3f
//   build/fftw_batches [N=128] [B=3] [THREADS=1] [REPEATS=10]
//
// With THREADS > 1, FFTW's own threads run the parallel loops (not the engine's loop pool).
#include <fftw3.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "huge_pages.hpp"

namespace {

double wallSeconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double cpuSeconds() {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}


struct Best {
    double wall = 1e30, cpu = 1e30;
};

// Runs `pair` (forward then inverse of every item) `repeats` times after 3 warm-up runs.
template <typename F>
Best time(F pair, int repeats) {
    for (int w = 0; w < 3; ++w) pair();
    Best b;
    for (int r = 0; r < repeats; ++r) {
        const double w0 = wallSeconds(), c0 = cpuSeconds();
        pair();
        b.wall = std::min(b.wall, wallSeconds() - w0);
        b.cpu = std::min(b.cpu, cpuSeconds() - c0);
    }
    return b;
}

}  // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 128, batch = argc > 2 ? std::atoi(argv[2]) : 3;
    const int threads = argc > 3 ? std::atoi(argv[3]) : 1, repeats = argc > 4 ? std::atoi(argv[4]) : 10;
    if (n < 2 || batch < 1 || threads < 1 || repeats < 1) {
        std::fprintf(stderr, "usage: fftw_batches [N >= 2] [B >= 1] [THREADS >= 1] [REPEATS >= 1]\n");
        return 1;
    }
    const std::size_t real = std::size_t(n) * n * n, half = std::size_t(n) * n * (n / 2 + 1);
    float* r = static_cast<float*>(hugePages(real * batch * sizeof(float)));
    auto* c = static_cast<fftwf_complex*>(hugePages(half * batch * sizeof(fftwf_complex)));
    fftwf_init_threads();
    fftwf_plan_with_nthreads(threads);
    const int dims[3] = {n, n, n};
    // One item's plans (used on each item) and the batch plans.
    fftwf_plan f1 = fftwf_plan_dft_r2c_3d(n, n, n, r, c, FFTW_MEASURE);
    fftwf_plan b1 = fftwf_plan_dft_c2r_3d(n, n, n, c, r, FFTW_MEASURE);
    fftwf_plan fb = fftwf_plan_many_dft_r2c(3, dims, batch, r, nullptr, 1, int(real), c, nullptr, 1, int(half), FFTW_MEASURE);
    fftwf_plan bb = fftwf_plan_many_dft_c2r(3, dims, batch, c, nullptr, 1, int(half), r, nullptr, 1, int(real), FFTW_MEASURE);
    for (std::size_t i = 0; i < real * batch; ++i) r[i] = float(i * 7919 % 1000) * 1e-3f;
    const Best items = time(
        [&] {
            for (int k = 0; k < batch; ++k) fftwf_execute_dft_r2c(f1, r + k * real, c + k * half);
            for (int k = 0; k < batch; ++k) fftwf_execute_dft_c2r(b1, c + k * half, r + k * real);
        },
        repeats);
    const Best together = time(
        [&] {
            fftwf_execute(fb);
            fftwf_execute(bb);
        },
        repeats);
    std::printf("%d^3 float, batch %d, %d thread(s), best of %d: forward + inverse per item, ms wall / CPU\n", n, batch, threads, repeats);
    std::printf("  item by item (fftw_batch_loop = 1): %8.3f / %8.3f\n", 1e3 * items.wall / batch, 1e3 * items.cpu / batch);
    std::printf("  one batch plan (fftw_batch_loop = 0): %6.3f / %8.3f\n", 1e3 * together.wall / batch, 1e3 * together.cpu / batch);
    fftwf_destroy_plan(f1);
    fftwf_destroy_plan(b1);
    fftwf_destroy_plan(fb);
    fftwf_destroy_plan(bb);
    std::free(r);
    std::free(c);
    return 0;
}
