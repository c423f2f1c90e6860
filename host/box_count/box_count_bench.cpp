// Bench case "box_count": box counts of sides 1, 2, 4, ... of a gyroid's solid (sin x cos y +
// sin y cos z + sin z cos x > 0, period 64 voxels) held on the device, grid at the origin and with
// the 8 grid placements, and of porespy's default sides (ten from 10 to the extent, not powers of
// two; boxes holding both phases, as porespy counts); 1024^3 on GPUs, 256^3 on CPU devices, 64^3
// with --quick. Device time
// excludes the upload (the volume is already on the device, as in a pipeline); the serial reference
// of the 8 placements is timed up to 256^3. Counts are integers. On CPU devices the porespy-sides row
// has porespy's metrics.boxcount (NumPy, one thread) beside it, its counts checked equal to ours.
#include <cmath>
#include <limits>

#include "bench/python_peer.hpp"

#include "box_count/box_count_detail.hpp"
#include "portacl/bench.hpp"
#include "portacl/box_count.hpp"
#include "portacl/io/volume.hpp"

namespace portacl::boxcount {
namespace {

io::BinaryVolume gyroid(int n) {
    io::BinaryVolume v;
    v.nz = v.ny = v.nx = n;
    v.mask.resize(v.size());
    std::vector<double> s(static_cast<std::size_t>(n)), c(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        s[std::size_t(i)] = std::sin(2 * M_PI * i / 64.0);
        c[std::size_t(i)] = std::cos(2 * M_PI * i / 64.0);
    }
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x)
                v.mask[v.index(z, y, x)] = s[std::size_t(x)] * c[std::size_t(y)] + s[std::size_t(y)] * c[std::size_t(z)] +
                                                   s[std::size_t(z)] * c[std::size_t(x)] > 0;
    return v;
}

// porespy's box counts of `v` at `sides` beside the row, on one thread, checked equal to `ours`.
void porespyPeer(const io::BinaryVolume& v, const std::vector<int>& sides, const std::vector<std::uint64_t>& ours, int repeats,
                 BenchRecord& rec) {
    const bench::PythonPeer peer("porespy");
    std::string failure, differs, list;
    for (int side : sides) list += (list.empty() ? "" : ",") + std::to_string(side);
    double seconds = std::numeric_limits<double>::quiet_NaN();
    if (peer.available()) {
        bench::writeVolumeNpy(peer.file("volume.npy"), v);
        seconds = peer.time("boxcount", peer.file("volume.npy"), peer.file("counts.npy"), 1, repeats, list, failure);
        if (!std::isnan(seconds)) {
            const io::Volume theirs = io::readNpy(peer.file("counts.npy"));
            for (std::size_t i = 0; i < ours.size() && differs.empty(); ++i)
                if (theirs.size() != ours.size() || theirs.data[i] != double(ours[i]))
                    differs = "side " + std::to_string(sides[i]) + ": " + (theirs.size() == ours.size() ? std::to_string(std::uint64_t(theirs.data[i])) : "?") +
                              " boxes against " + std::to_string(ours[i]);
        }
    } else {
        failure = peer.name();
    }
    bench::setPeerColumn(rec, peer, seconds, failure, 1, differs);
}

std::vector<BenchRecord> run(Context& ctx, const BenchOptions& opts) {
    const int n = opts.quick ? 64 : ctx.device().isGpu ? 1024 : 256;
    const io::BinaryVolume v = gyroid(n);
    cl::Buffer mask = ctx.upload(v.mask, "bench gyroid");
    std::vector<BenchRecord> out;
    // porespy's sides by the device's choice per side, then every side scanned per box (the CPU's way),
    // to compare the two on a GPU.
    for (bool perBox : {false, true}) {
        Options opt;  // numpy.unique(numpy.logspace(1, log10(n), 10).astype(int)), porespy's boxcount default
        opt.count = Count::Mixed;
        for (int i = 0; i < 10; ++i) {
            const int side = int(std::pow(10.0, 1.0 + i * (std::log10(double(n)) - 1.0) / 9.0) + 1e-9);
            if (opt.sizes.empty() || side > opt.sizes.back()) opt.sizes.push_back(side);
        }
        BenchRecord rec;
        rec.workload = perBox ? "box_count/porespy-sides-per-box" : "box_count/porespy-sides";
        rec.size = std::to_string(n) + "^3";
        rec.precision = "integer";
        const std::size_t directMinBoxes = perBox ? 0 : detail::directScanMinBoxes(ctx.device());
        Result counted;
        rec.seconds = medianDeviceSeconds(ctx, [&] { counted = detail::boxCountOnDevice(ctx, mask, n, n, n, opt, directMinBoxes); }, opts);
        rec.bytes = double(v.size()) * double(opt.sizes.size());
        rec.note = std::to_string(opt.sizes.size()) + " sides " + std::to_string(opt.sizes.front()) + ".." +
                   std::to_string(opt.sizes.back()) + " (porespy's defaults), mixed boxes; device time of the kernels";
        if (perBox) rec.note += "; every side scanned per box";
        if (opts.serial && n <= 256 && !perBox) rec.serialSeconds = medianHostSeconds([&] { boxCountReference(v, opt); }, 1);
        if (!ctx.device().isGpu && !perBox) porespyPeer(v, opt.sizes, counted.counts, opts.repeats, rec);
        out.push_back(rec);
    }
    for (bool offsets : {false, true}) {
        Options opt;
        opt.offsetAverage = offsets;
        BenchRecord rec;
        rec.workload = offsets ? "box_count/8-placements" : "box_count";
        rec.size = std::to_string(n) + "^3";
        rec.precision = "integer";
        rec.seconds = medianDeviceSeconds(ctx, [&] { boxCount(ctx, mask, n, n, n, opt); }, opts);
        rec.bytes = double(v.size()) * (offsets ? 1.0 + 8.0 / 8 : 1.0 + 1.0 / 8);
        rec.note = std::to_string(defaultSizes(v).size()) + " sides 1.." + std::to_string(defaultSizes(v).back()) +
                   "; device time of the kernels, the mask already on the device";
        if (opts.serial && (!offsets || n <= 256)) rec.serialSeconds = medianHostSeconds([&] { boxCountReference(v, opt); }, 1);
        else if (opts.serial) rec.note += "; serial not timed (8 placements of every side take minutes at this size)";
        out.push_back(rec);
    }
    return out;
}

}  // namespace

PORTACL_REGISTER_BENCH("box_count", "box counts N(2^k) and fractal dimension of a 3-D binary volume (exact counts)", run);

}  // namespace portacl::boxcount
