// The C++ side of tools/bench/python_overhead.py: the wall time of one library call from C++, the
// same call the Python package makes, with host arrays in and out (what a C++ user of the library
// writes). Prints the median of REPEATS calls after two untimed ones, in seconds.
//
//   g++ -std=c++17 -O2 -Iinclude -Ibuild/generated/include -Ihost tools/bench/python_overhead.cpp \
//       -Lbuild -lportacl -lportacl_runtime -lOpenCL -Wl,-rpath,$PWD/build -o build/python_overhead
//   build/python_overhead DEVICE CASE SIZE REPEATS
//
// CASE: vector_sum (SIZE elements, float), gemm (SIZE^3, float, the default kernel), fft (a complex
// float SIZE^3 transform, out of place: plan from the context's cache, upload, execute, download).
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "portacl/fft.hpp"
#include "portacl/gemm.hpp"
#include "portacl/runtime/context.hpp"
#include "portacl/runtime/device.hpp"
#include "portacl/vector_ops.hpp"

using namespace portacl;

namespace {

double medianSeconds(int repeats, const std::function<void()>& call) {
    call();
    call();
    std::vector<double> t;
    for (int i = 0; i < repeats; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        call();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

std::vector<float> noise(std::size_t n) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> v(n);
    for (auto& x : v) x = u(rng);
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: python_overhead DEVICE vector_sum|gemm|fft SIZE REPEATS\n");
        return 2;
    }
    const std::string which = argv[2];
    const std::size_t n = std::strtoull(argv[3], nullptr, 10);
    const int repeats = std::atoi(argv[4]);
    Context ctx(selectDevice(argv[1]));
    double s = 0;
    if (which == "vector_sum") {
        const auto a = noise(n), b = noise(n);
        s = medianSeconds(repeats, [&] { vectorSum(ctx, a, b); });
    } else if (which == "gemm") {
        const auto a = noise(n * n), b = noise(n * n);
        const GemmKernel k = defaultGemmKernel(ctx, Precision::Float);
        s = medianSeconds(repeats, [&] { gemm(ctx, k, n, n, n, a, b); });
    } else if (which == "fft") {
        const auto x = noise(2 * n * n * n);
        fft::PlanDesc d;
        d.shape = {n, n, n};
        s = medianSeconds(repeats, [&] {
            fft::Plan& p = fft::plan(ctx, d);
            const std::size_t bytes = fft::inputBytes(d, fft::Direction::Forward);
            cl::Buffer in = ctx.buffer(bytes, "FFT input"), out = ctx.buffer(bytes, "FFT output");
            ctx.write(in, x.data(), bytes, "upload FFT input");
            p.execute(in, out, fft::Direction::Forward);
            std::vector<std::complex<float>> y(n * n * n);
            ctx.read(out, y.data(), bytes, "download FFT output");
        });
    } else {
        std::fprintf(stderr, "unknown case '%s'\n", which.c_str());
        return 2;
    }
    std::printf("%.9f\n", s);
    return 0;
}
