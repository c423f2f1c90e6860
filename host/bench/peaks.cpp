// The device's measured peaks, the way clpeak measures them: a streaming copy for bandwidth (bytes
// read plus bytes written), and many independent FMA chains for compute.
#include <algorithm>

#include "portacl/bench.hpp"

namespace portacl {

double copySeconds(Context& ctx, std::size_t bytes, const BenchOptions& opts) {
    bytes -= bytes % 16;
    cl::Buffer src = ctx.buffer(bytes, "copy source"), dst = ctx.buffer(bytes, "copy destination");
    ctx.fill(src, 0, bytes, "fill");
    cl::Kernel k = ctx.kernel("vector_ops.cl", "stream_copy", Precision::Float);
    const cl_ulong n4 = bytes / 16;
    k.setArg(0, src);
    k.setArg(1, dst);
    k.setArg(2, n4);
    const std::size_t wg = std::min<std::size_t>(256, ctx.device().maxWorkGroupSize);
    return medianDeviceSeconds(ctx, [&] { ctx.launch(k, cl::NDRange(n4), cl::NDRange(wg)); }, opts);
}

namespace {

double copyBandwidth(Context& ctx, const BenchOptions& opts) {
    // As large as the device comfortably allows (256 MiB per buffer on GPUs, 32 MiB on CPUs).
    std::size_t bytes = ctx.device().isGpu ? (std::size_t(1) << 28) : (std::size_t(1) << 25);
    if (opts.quick) bytes = std::size_t(1) << 24;
    bytes = std::min<std::size_t>(bytes, ctx.device().maxAllocBytes / 2);
    bytes -= bytes % 16;
    return 2.0 * bytes / copySeconds(ctx, bytes, opts);
}

double fmaThroughput(Context& ctx, Precision p, const BenchOptions& opts) {
    const DeviceInfo& d = ctx.device();
    const std::size_t wg = std::min<std::size_t>(256, d.maxWorkGroupSize);
    // Enough work-groups to fill every compute unit several times over.
    const std::size_t items = d.isGpu ? d.computeUnits * wg * 64 : d.computeUnits * wg * 4;
    const int iterations = opts.quick ? 32 : (d.isGpu ? 512 : 128);
    cl::Buffer out = ctx.buffer(items * (p == Precision::Double ? 8 : 4), "fma output");
    cl::Kernel k = ctx.kernel("vector_ops.cl", "fma_peak", p);
    k.setArg(0, out);
    if (p == Precision::Double) k.setArg(1, 0.999999);
    else k.setArg(1, 0.999999f);
    k.setArg(2, iterations);
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
