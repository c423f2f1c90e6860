// The benchmark registry behind `portacl bench`. Each workload registers one or more cases; the
// bench driver measures every selected device's peaks (copy bandwidth, FMA throughput) first, then
// runs each case and prints time, rate, percent of that device's measured peak, and the serial C++
// reference's time with the speed-up over it.
#pragma once

#include "portacl/export.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "portacl/runtime/context.hpp"

namespace portacl {

struct PORTACL_API BenchOptions {
    bool quick = false;     // sizes that finish in well under a minute on a 2-core CPU
    int warmups = 2;
    int repeats = 7;        // median of this many timed runs
    bool serial = true;     // also time the serial C++ reference (at the same size, or as noted)
    std::vector<Precision> precisions{Precision::Float, Precision::Double, Precision::Mixed};
    std::string kwaveOmp;   // k-Wave's kspaceFirstOrder-OMP, the k-Wave rows' CPU peer ("": not given)
    bool wants(Precision p) const;
};

struct PORTACL_API BenchRecord {
    std::string workload;   // "vector_sum", "sgemm/register-blocked", "filter/median:5", ...
    std::string size;       // "2^28", "4096^3", "4096x4096"
    std::string precision;  // "float", "double", "mixed", "fp16-storage", ...
    double seconds = std::numeric_limits<double>::quiet_NaN();        // median device time per run
    double bytes = 0;       // bytes moved per run (for GB/s and % of copy bandwidth)
    double flops = 0;       // floating-point operations per run (for GFLOP/s and % of FMA peak)
    double serialSeconds = std::numeric_limits<double>::quiet_NaN();  // serial reference per run
    std::string note;       // anything a reader needs: "serial timed at 1024^3 and scaled", ...
    // On CPU devices, the CPU peer a user would otherwise run (OpenCV, OpenBLAS, kspaceFirstOrder-OMP),
    // on the same input and cores in the same run: its name, or why it did not run ("not installed").
    std::string peer;
    double peerSeconds = std::numeric_limits<double>::quiet_NaN();
};

// True when the bench wants `p` and the device can run it. A wanted double case on a device without
// fp64 is not run silently: a row "not run" saying why is added to `out` for `workload`.
PORTACL_API bool runsOn(Context& ctx, const BenchOptions& opts, Precision p, const std::string& workload, std::vector<BenchRecord>& out);

using BenchFn = std::function<std::vector<BenchRecord>(Context&, const BenchOptions&)>;

struct PORTACL_API BenchCase {
    std::string name;         // the workload family: "vector_sum", "gemm", "fft", "filter", ...
    std::string description;
    BenchFn run;
};

PORTACL_API void registerBench(BenchCase c);
PORTACL_API const std::vector<BenchCase>& benchCases();

struct PORTACL_API BenchRegistrar {
    explicit BenchRegistrar(BenchCase c) { registerBench(std::move(c)); }
};
#define PORTACL_CONCAT_INNER(a, b) a##b
#define PORTACL_CONCAT(a, b) PORTACL_CONCAT_INNER(a, b)
// PORTACL_REGISTER_BENCH("gemm", "matrix product C = A*B", runGemmBench);
#define PORTACL_REGISTER_BENCH(name, description, fn) \
    static const ::portacl::BenchRegistrar PORTACL_CONCAT(portacl_bench_, __LINE__)({name, description, fn})

// Runs `enqueue` opts.warmups times untimed, then opts.repeats times, each measured as device time
// (first kernel start to last kernel end, through events); returns the median in seconds.
PORTACL_API double medianDeviceSeconds(Context& ctx, const std::function<void()>& enqueue, const BenchOptions& opts);
// Device time of `enqueue` launched opts.repeats times back to back, with no wait between the runs
// (as the operations of a pipeline run): `own` is the median of each run's own device time (its
// first start to its last end), `span` the whole stream's device time divided by the runs. A launch
// timed alone also pays the device's start from idle, which a run in a stream hides.
struct PORTACL_API StreamSeconds {
    double own = std::numeric_limits<double>::quiet_NaN();
    double span = std::numeric_limits<double>::quiet_NaN();
};
PORTACL_API StreamSeconds streamDeviceSeconds(Context& ctx, const std::function<void()>& enqueue, const BenchOptions& opts);
// The same for host work, by the steady clock.
PORTACL_API double medianHostSeconds(const std::function<void()>& work, int repeats);

// The threads a CPU peer runs on beside a CPU device's rows, so that both use the same cores: as many
// as the device has compute units, no more than the cores this process may use (llvmpipe counts 8
// units on 2 cores), at least one.
PORTACL_API unsigned peerThreads(const Context& ctx);
// "1 thread", "16 threads": a peer's name in the table.
PORTACL_API std::string threadsText(unsigned threads);

// `s` quoted for a POSIX shell, for the peers the bench runs as commands (std::system).
PORTACL_API std::string shellQuote(const std::string& s);

// Median device time of the fastest of three streaming copies of `bytes` (rounded down to a multiple
// of 16) between two device buffers (host/bench/peaks.cpp): the copy peak, also the ceiling for a
// workload moving that many bytes.
// inStream: each copy's own time with the copies launched back to back (streamDeviceSeconds).
PORTACL_API double copySeconds(Context& ctx, std::size_t bytes, const BenchOptions& opts, bool inStream = false);

// The device's measured peaks, measured once per device by the bench driver.
struct PORTACL_API DevicePeaks {
    double copyBytesPerSecond = 0;   // read + write
    double fp32FlopsPerSecond = 0;
    double fp64FlopsPerSecond = 0;   // 0 without fp64
};
PORTACL_API DevicePeaks measurePeaks(Context& ctx, const BenchOptions& opts);

}  // namespace portacl
