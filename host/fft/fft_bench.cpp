// `portacl bench` case "fft": the 3-D real-to-complex plus complex-to-real pair (the cuFFT
// anchor: 256^3 float, cached plans), through the interface, once per backend. --quick: 32^3.
// A double 256^3 pair as well when double is wanted and the run is not quick.
#include <cmath>
#include <string>

#include "fft/fft_internal.hpp"
#include "portacl/bench.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::fft {
namespace {

template <typename T>
BenchRecord timePair(Context& ctx, Backend backend, std::size_t side, const BenchOptions& opts) {
    PlanDesc forward;
    forward.kind = Kind::R2C;
    forward.shape = {side, side, side};
    forward.precision = precisionOf<T>();
    forward.backend = backend;
    PlanDesc inverse = forward;
    inverse.kind = Kind::C2R;

    const std::size_t realBytes = inputBytes(forward, Direction::Forward);
    const std::size_t complexBytes = outputBytes(forward, Direction::Forward);
    ctx.checkFits(realBytes + complexBytes, "the " + std::to_string(side) + "^3 FFT benchmark");

    // A smooth signal plus a ramp: the data do not change an FFT's speed, but they keep the
    // buffers free of NaNs and denormals whatever a backend does.
    const std::size_t n = detail::totalPoints(forward);
    std::vector<T> signal(n);
    for (std::size_t i = 0; i < n; ++i) signal[i] = static_cast<T>(std::sin(0.001 * static_cast<double>(i)) + 1e-6 * (i % 97));
    cl::Buffer real = ctx.upload(signal, "fft bench real");
    cl::Buffer spectrum = ctx.buffer(complexBytes, "fft bench spectrum");

    Plan& r2c = plan(ctx, forward);  // built (compiled, baked) here, outside the timing
    Plan& c2r = plan(ctx, inverse);
    const double seconds = medianDeviceSeconds(
        ctx,
        [&] {
            r2c.execute(real, spectrum, Direction::Forward);
            c2r.execute(spectrum, real, Direction::Inverse);
        },
        opts);

    BenchRecord r;
    r.workload = std::string("fft/r2c+c2r ") + backendName(backend);
    r.size = std::to_string(side) + "^3";
    r.precision = precisionName(forward.precision);
    r.seconds = seconds;
    // Minimum traffic: each transform reads its input once and writes its output once.
    r.bytes = 2.0 * static_cast<double>(realBytes + complexBytes);
    // 2.5 N log2 N per real transform (half the 5 N log2 N of a complex FFT), two transforms.
    r.flops = 2.0 * 2.5 * static_cast<double>(n) * std::log2(static_cast<double>(n));
    r.note = std::string("out of place, plans cached; bytes: input + output once per transform; flops: 2.5 N log2 N "
                         "per real transform; time: ") +
             (backend == Backend::VkFFT ? "events of VkFFT's kernels" : "an empty kernel before each transform to clFFT's last kernel") +
             (backend == Backend::ClFFT && forward.precision == Precision::Double
                  ? " (+ the 1/N scale kernel: clFFT scales in float only)"
                  : "") +
             "; no serial FFT";
    return r;
}

std::vector<BenchRecord> runFftBench(Context& ctx, const BenchOptions& opts) {
    std::vector<BenchRecord> records;
    const std::size_t side = opts.quick ? 32 : 256;
    for (Backend backend : {Backend::VkFFT, Backend::ClFFT}) {
        if (opts.wants(Precision::Float)) records.push_back(timePair<float>(ctx, backend, side, opts));
        if (!runsOn(ctx, opts, Precision::Double, std::string("fft/") + (backend == Backend::VkFFT ? "vkfft" : "clfft"), records)) continue;
        if (opts.quick) {
            BenchRecord r;
            r.workload = std::string("fft/") + (backend == Backend::VkFFT ? "vkfft" : "clfft");
            r.precision = "double";
            r.note = "not run in quick mode";
            records.push_back(r);
            continue;
        }
        records.push_back(timePair<double>(ctx, backend, side, opts));
    }
    return records;
}

}  // namespace

PORTACL_REGISTER_BENCH("fft", "3-D FFT: real-to-complex + complex-to-real pair, VkFFT and clFFT", runFftBench);

}  // namespace portacl::fft
