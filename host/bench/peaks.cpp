// The device's measured peaks, the way clpeak measures them: a streaming copy for bandwidth (bytes
// read plus bytes written), and many independent FMA chains for compute.
#include <algorithm>
#include <utility>

#include "portacl/bench.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl {

// The fastest of three copies of the same bytes: one 16-byte vector per work-item, four per
// work-item, and the runtime's own clEnqueueCopyBuffer. The fastest one sets the ceiling, so that
// no copy the device can do is faster than the bandwidth figures are measured against.
double copySeconds(Context& ctx, std::size_t bytes, const BenchOptions& opts, bool inStream) {
    bytes -= bytes % 16;
    cl::Buffer src = ctx.buffer(bytes, "copy source"), dst = ctx.buffer(bytes, "copy destination");
    ctx.fill(src, 0, bytes, "fill");
    const cl_ulong n4 = bytes / 16;
    const std::size_t wg = std::min<std::size_t>(256, ctx.device().maxWorkGroupSize);
    // A short copy takes microseconds: enough warm-ups and repeats that the clocks have settled.
    BenchOptions o = opts;
    o.warmups = std::max(o.warmups, 10);
    o.repeats = std::max(o.repeats, 11);
    const auto time = [&](const std::function<void()>& enqueue) {
        return inStream ? streamDeviceSeconds(ctx, enqueue, o).own : medianDeviceSeconds(ctx, enqueue, o);
    };
    double best = 0;
    for (const auto& [name, perItem] : {std::pair<const char*, cl_ulong>{"stream_copy", 1}, {"stream_copy_x4", 4}}) {
        cl::Kernel k = ctx.kernel("vector_ops.cl", name, Precision::Float);
        setArg(k, 0, src);
        setArg(k, 1, dst);
        setArg(k, 2, n4);
        const cl::NDRange items((n4 + perItem - 1) / perItem);
        const double s = time([&] { ctx.launch(k, items, cl::NDRange(wg)); });
        best = best == 0 ? s : std::min(best, s);
    }
    const double runtimeCopy = time([&] { ctx.copy(src, dst, bytes, "copy buffer"); });
    return std::min(best, runtimeCopy);
}

namespace {

double copyBandwidth(Context& ctx, const BenchOptions& opts) {
    // Far beyond every cache, --quick included (a copy that fits in a CPU's last-level cache measures the
    // cache, and memory-bound workloads then seem to beat the peak): 256 MiB per buffer on GPUs, 64 MiB
    // on CPUs, as far as the device allows.
    std::size_t bytes = ctx.device().isGpu ? (std::size_t(1) << 28) : (std::size_t(1) << 26);
    bytes = std::min<std::size_t>({bytes, static_cast<std::size_t>(ctx.device().maxAllocBytes / 2),
                                   static_cast<std::size_t>(ctx.device().globalMemBytes / 4)});
    bytes -= bytes % 16;
    return 2.0 * bytes / copySeconds(ctx, bytes, opts);
}

double fmaThroughput(Context& ctx, Precision p, const BenchOptions& opts) {
    const DeviceInfo& d = ctx.device();
    const std::size_t wg = std::min<std::size_t>(256, d.maxWorkGroupSize);
    // Enough work-groups to fill every compute unit several times over.
    const std::size_t items = d.isGpu ? d.computeUnits * wg * 64 : d.computeUnits * wg * 4;
    const int iterations = opts.quick ? (d.isGpu ? 128 : 64) : (d.isGpu ? 512 : 128);
    cl::Buffer out = ctx.buffer(items * (p == Precision::Double ? 8 : 4), "fma output");
    cl::Kernel k = ctx.kernel("vector_ops.cl", "fma_peak", p);
    setArg(k, 0, out);
    if (p == Precision::Double) setArg(k, 1, 0.999999);
    else setArg(k, 1, 0.999999f);
    setArg(k, 2, iterations);
    const double s = medianDeviceSeconds(ctx, [&] { ctx.launch(k, cl::NDRange(items), cl::NDRange(wg)); }, opts);
    return 512.0 * iterations * items / s;  // 4 chains x 8 lanes x 8 unrolled steps x 2 flops per iteration
}

}  // namespace

DevicePeaks measurePeaks(Context& ctx, const BenchOptions& opts) {
    DevicePeaks p;
    p.copyBytesPerSecond = copyBandwidth(ctx, opts);
    p.fp32FlopsPerSecond = fmaThroughput(ctx, Precision::Float, opts);
    if (ctx.device().fp64) p.fp64FlopsPerSecond = fmaThroughput(ctx, Precision::Double, opts);
    return p;
}

}  // namespace portacl
