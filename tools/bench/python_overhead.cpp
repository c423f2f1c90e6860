// The C++ side of tools/bench/python_overhead.py: the wall time of one library call from C++, the
// same call the Python package makes. Built as a shared library that python_overhead.py loads into
// its own process (ctypes), so that the C++ and the Python calls share the OpenCL runtime's threads
// and the process's state:
//
//   g++ -std=c++17 -O2 -fPIC -shared -Iinclude -Ibuild/generated/include tools/bench/python_overhead.cpp \
//       -Lbuild -lportacl -lportacl_runtime -lOpenCL -Wl,-rpath,$PWD/build -o build/libpython_overhead.so
//
// portacl_overhead_prepare(DEVICE, CASE, STYLE, SIZE) makes a case's inputs once and gives its id;
// portacl_overhead_loop(ID, WARMUP, REPEATS, PAUSE_US) times a loop of its calls in C++, and
// portacl_overhead_call(ID) makes one call, for a loop that python_overhead.py runs itself.
//
// CASE: vector_sum (SIZE elements, float), gemm (SIZE^3, float, the default kernel), fft (a complex
// float SIZE^3 transform, out of place, its plan from the context's cache).
// STYLE 0, host vectors: the library's std::vector calls (vectorSum, gemm; for the FFT upload,
// execute and download into a new std::vector), whose result vector is zero-filled before the
// download overwrites it. STYLE 1, the binding's steps: what python/src/ does with NumPy arrays,
// in C++ on memory allocated as NumPy allocates it: device buffers written from the inputs' memory,
// the library's buffer call, and a read into a new uninitialised array.
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <new>
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

using Clock = std::chrono::steady_clock;

// A caller that does something between calls: the Python loop spends this time in the interpreter.
void pause(double us) {
    if (us <= 0) return;
    const auto start = Clock::now();
    while (std::chrono::duration<double, std::micro>(Clock::now() - start).count() < us) {
    }
}

double medianSeconds(int warmup, int repeats, double pauseUs, const std::function<void()>& call) {
    for (int i = 0; i < warmup; ++i) call();
    std::vector<double> t;
    for (int i = 0; i < repeats; ++i) {
        pause(pauseUs);
        const auto t0 = Clock::now();
        call();
        t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
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

// An array's memory as NumPy (1.22 and later, on Linux) allocates it: malloc, uninitialised, and
// from 4 MiB on the kernel is asked for transparent huge pages. Without this the C++ side would
// fault in 4 KiB pages where the Python side faults in 2 MiB ones, and a large call would measure
// the page size, not the binding.
class NumpyLikeArray {
public:
    explicit NumpyLikeArray(std::size_t bytes) : p_(static_cast<char*>(std::malloc(std::max<std::size_t>(bytes, 1)))) {
        if (!p_) throw std::bad_alloc();
        constexpr std::size_t page = 4096;
        if (bytes >= (std::size_t(1) << 22)) {
            const std::size_t offset = page - reinterpret_cast<std::uintptr_t>(p_) % page;
            ::madvise(p_ + offset, bytes - offset, MADV_HUGEPAGE);
        }
    }
    NumpyLikeArray(const std::vector<float>& v) : NumpyLikeArray(v.size() * sizeof(float)) {
        std::memcpy(p_, v.data(), v.size() * sizeof(float));
    }
    ~NumpyLikeArray() { std::free(p_); }
    NumpyLikeArray(const NumpyLikeArray&) = delete;
    NumpyLikeArray& operator=(const NumpyLikeArray&) = delete;
    void* data() const { return p_; }

private:
    char* p_;
};

// STYLE 1's steps, the ones of python/src/vector.cpp, gemm.cpp and fft.cpp.
void vectorSumSteps(Context& ctx, const void* a, const void* b, std::size_t n) {
    const std::size_t bytes = n * sizeof(float);
    NumpyLikeArray c(bytes);
    ctx.checkFits(3 * bytes, "the vector sum of " + std::to_string(n) + " elements");
    cl::Buffer da = ctx.buffer(bytes, "a", CL_MEM_READ_ONLY), db = ctx.buffer(bytes, "b", CL_MEM_READ_ONLY);
    cl::Buffer dc = ctx.buffer(bytes, "c", CL_MEM_WRITE_ONLY);
    ctx.write(da, a, bytes, "upload a");
    ctx.write(db, b, bytes, "upload b");
    vectorSum(ctx, Precision::Float, da, db, dc, n);
    ctx.read(dc, c.data(), bytes, "download c");
}

void gemmSteps(Context& ctx, GemmKernel kernel, const void* a, const void* b, std::size_t n) {
    checkGemmSizes(n, n, n, sizeof(float));
    const std::size_t bytes = n * n * sizeof(float);
    NumpyLikeArray c(bytes);
    ctx.checkFits(3 * bytes, "the matrix product");
    cl::Buffer dA = ctx.buffer(bytes, "A", CL_MEM_READ_ONLY), dB = ctx.buffer(bytes, "B", CL_MEM_READ_ONLY);
    cl::Buffer dC = ctx.buffer(bytes, "C", CL_MEM_WRITE_ONLY);
    ctx.write(dA, a, bytes, "upload A");
    ctx.write(dB, b, bytes, "upload B");
    gemm(ctx, Precision::Float, kernel, n, n, n, dA, dB, dC);
    ctx.read(dC, c.data(), bytes, "download C");
}

void fftSteps(Context& ctx, const fft::PlanDesc& d, const void* x, void* y) {
    const std::size_t bytes = fft::inputBytes(d, fft::Direction::Forward);
    ctx.requirePrecision(d.precision);
    ctx.checkFits(2 * bytes, "the FFT");
    fft::Plan& p = fft::plan(ctx, d);
    cl::Buffer in = ctx.buffer(bytes, "FFT input"), out = ctx.buffer(bytes, "FFT output");
    ctx.write(in, x, bytes, "upload FFT input");
    p.execute(in, out, fft::Direction::Forward);
    ctx.read(out, y, bytes, "download FFT output");
}

// One context per device word for the whole process, as the Python side keeps its own.
Context& contextFor(const std::string& device) {
    static std::map<std::string, std::unique_ptr<Context>> contexts;
    auto& c = contexts[device];
    if (!c) c = std::make_unique<Context>(selectDevice(device));
    return *c;
}

// One case's inputs, made once, and its call in one style.
struct Case {
    std::vector<float> a, b;
    std::unique_ptr<NumpyLikeArray> na, nb;
    std::function<void()> call;
};

std::unique_ptr<Case> prepare(const std::string& device, const std::string& which, int style, std::size_t n) {
    Context& ctx = contextFor(device);
    const bool steps = style == 1;
    auto c = std::make_unique<Case>();
    Case& k = *c;
    const std::size_t elements = which == "vector_sum" ? n : which == "gemm" ? n * n : 2 * n * n * n;
    k.a = noise(elements);
    if (which != "fft") k.b = noise(elements);
    if (steps) {
        k.na = std::make_unique<NumpyLikeArray>(k.a);
        if (which != "fft") k.nb = std::make_unique<NumpyLikeArray>(k.b);
    }
    if (which == "vector_sum") {
        if (steps) k.call = [&ctx, &k, n] { vectorSumSteps(ctx, k.na->data(), k.nb->data(), n); };
        else k.call = [&ctx, &k] { vectorSum(ctx, k.a, k.b); };
    } else if (which == "gemm") {
        const GemmKernel kernel = defaultGemmKernel(ctx, Precision::Float);
        if (steps) k.call = [&ctx, &k, kernel, n] { gemmSteps(ctx, kernel, k.na->data(), k.nb->data(), n); };
        else k.call = [&ctx, &k, kernel, n] { gemm(ctx, kernel, n, n, n, k.a, k.b); };
    } else if (which == "fft") {
        fft::PlanDesc d;
        d.shape = {n, n, n};
        const std::size_t bytes = fft::outputBytes(d, fft::Direction::Forward);
        if (steps)
            k.call = [&ctx, &k, d, bytes] {
                NumpyLikeArray y(bytes);
                fftSteps(ctx, d, k.na->data(), y.data());
            };
        else
            k.call = [&ctx, &k, d, n] {
                std::vector<std::complex<float>> y(n * n * n);
                fftSteps(ctx, d, k.a.data(), y.data());
            };
    } else {
        throw Error("unknown case '" + which + "'; use vector_sum, gemm or fft");
    }
    return c;
}

std::string lastError;
std::vector<std::unique_ptr<Case>> prepared;

Case& preparedCase(int id) {
    if (id < 0 || std::size_t(id) >= prepared.size() || !prepared[id]) throw Error("no case prepared as " + std::to_string(id));
    return *prepared[id];
}

// The C entry points answer -1 on an error, whose sentence portacl_overhead_error gives.
template <typename F>
auto orMinusOne(F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const std::exception& e) {
        lastError = e.what();
        return -1;
    }
}

}  // namespace

// A case's inputs, made once; its id for the calls below.
extern "C" int portacl_overhead_prepare(const char* device, const char* which, int style, std::size_t n) {
    return orMinusOne([&] {
        prepared.push_back(prepare(device, which, style, n));
        return int(prepared.size() - 1);
    });
}

// The median of REPEATS calls after WARMUP untimed ones, each timed call preceded by a busy pause of
// PAUSE_US microseconds outside the timed span (0: back to back), in seconds.
extern "C" double portacl_overhead_loop(int id, int warmup, int repeats, double pauseUs) {
    return orMinusOne([&] { return medianSeconds(warmup, repeats, pauseUs, preparedCase(id).call); });
}

// One call, for a loop that the caller runs.
extern "C" int portacl_overhead_call(int id) {
    return orMinusOne([&] {
        preparedCase(id).call();
        return 0;
    });
}

// Frees every prepared case's inputs.
extern "C" void portacl_overhead_clear() { prepared.clear(); }

extern "C" const char* portacl_overhead_error() { return lastError.c_str(); }
