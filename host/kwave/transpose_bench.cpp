// Bench case "kwave_transpose": the parts of one component's global transpose in the distributed
// solver (distributed/slab_fft.cpp) on one device, for the block a rank of a 2-rank run exchanges:
// the pack (kwave_box_transpose over the rank's slab spectrum), the packed block's read to pinned
// host memory and its write back, and, in the note, a host memcpy of the same block (what MPI's
// shared-memory transport does at best). Set beside the device's copy peak and each other they say
// what fraction of the bus and host-memory bandwidth the transposes reach. --quick: 64^3; full: 128^3,
// and 256^3 and 512^3 on GPUs.
#include <algorithm>
#include <cstring>
#include <sstream>
#include <vector>

#include "box_copy.hpp"
#include "portacl/bench.hpp"

namespace portacl::kwave {
namespace {

std::vector<BenchRecord> sizeRows(Context& ctx, const BenchOptions& opts, std::size_t n) {
    // Rank 0 of 2: n/2 z planes of the n x (n/2+1) half spectra; half of its rows go to rank 1.
    const std::size_t P = n / 2 + 1, planes = n / 2, slab = planes * n * P, block = slab / 2, cb = 8;
    const std::string size = std::to_string(n) + "^3, 2 ranks";
    std::vector<BenchRecord> out;
    auto row = [&](const std::string& what, double seconds, double bytes, const std::string& note) {
        BenchRecord r;
        r.workload = "kwave_transpose/" + what;
        r.size = size;
        r.precision = "float";
        r.seconds = seconds;
        r.bytes = bytes;
        r.note = note;
        out.push_back(r);
    };
    const cl::Buffer work = ctx.buffer(slab * cb, "slab spectrum");
    const cl::Buffer exchange = ctx.buffer(slab * cb, "transpose blocks");
    ctx.fill(work, 0, slab * cb, "zero slab spectrum");
    // The forward pack: every plane's rows of rank 1, [z][y of 1][P] -> [y of 1][P][z], and rank 0's
    // own rows into place, as two boxes.
    BoxCopy other;
    other.extent[0] = planes, other.extent[1] = (n / 2) * P;
    other.srcOffset = (n / 2) * P, other.srcStride[0] = n * P, other.srcStride[1] = 1;
    other.dstStride[0] = 1, other.dstStride[1] = planes;
    BoxCopy own = other;
    own.srcOffset = 0, own.dstOffset = block, own.dstStride[1] = planes;
    row("pack", medianDeviceSeconds(ctx, [&] {
            copyBox(ctx, work, exchange, other, Precision::Float);
            copyBox(ctx, work, exchange, own, Precision::Float);
        }, opts),
        2.0 * slab * cb, "the slab spectrum's two boxes (kwave_box_transpose), read and written once");

    cl::Buffer pinned = ctx.buffer(block * cb, "pinned block", CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
    auto* host = static_cast<unsigned char*>(ctx.map(pinned, CL_MAP_READ | CL_MAP_WRITE, block * cb, "map pinned block"));
    row("to-host", medianDeviceSeconds(ctx, [&] { ctx.readAsync(exchange, host, block * cb, "transpose: to host"); }, opts),
        static_cast<double>(block * cb), "the block sent to the other rank, into pinned (mapped) host memory");
    row("to-device", medianDeviceSeconds(ctx, [&] { ctx.writeAsync(exchange, host, block * cb, "transpose: to device", nullptr); }, opts),
        static_cast<double>(block * cb), "the block received, from pinned (mapped) host memory");
    std::vector<unsigned char> copy(block * cb);
    const double hostSeconds = medianHostSeconds([&] { std::memcpy(copy.data(), host, copy.size()); }, opts.repeats);
    std::ostringstream note;
    note.precision(3);
    note << "host memcpy of the block from pinned memory: " << copy.size() / hostSeconds / 1e9 << " GB/s";
    out.back().note += "; " + note.str();
    ctx.finish();
    ctx.unmap(pinned, host, "unmap pinned block");
    ctx.finish();
    return out;
}

std::vector<BenchRecord> run(Context& ctx, const BenchOptions& opts) {
    std::vector<BenchRecord> out;
    if (!opts.wants(Precision::Float)) return out;
    std::vector<std::size_t> sizes{opts.quick ? 64u : 128u};
    if (!opts.quick && ctx.device().isGpu) sizes.insert(sizes.end(), {256u, 512u});
    for (std::size_t n : sizes) {
        auto rows = sizeRows(ctx, opts, n);
        out.insert(out.end(), rows.begin(), rows.end());
    }
    return out;
}

}  // namespace

PORTACL_REGISTER_BENCH("kwave_transpose", "the distributed k-Wave transposes' pack and pinned transfers (2-rank blocks; 256^3, 512^3 on GPUs)", run);

}  // namespace portacl::kwave
