// Bench case "lineal_path": the thesis's Table 4 sizes (500x500 with ML 500 and 250x250 with ML 250,
// periodic, full map of (2ML+1)^2 displacements; 500x500 only on GPUs and CPUs of 16+ compute units)
// on seeded random overlapping disks of radius 10 covering 23.5 % (the fraction of GooseEYE's circles example), and a 128^3 volume of overlapping
// balls of radius 6 covering 30 % with ML 32 (65^3 displacements; 64^3 with ML 16 on CPU devices).
// --quick: 64x64, ML 16.
// Counts are integers: one record per case, precision "integer". The serial reference is timed on a
// strided sample of the displacements and scaled to all of them (the note says so).
#include <cmath>
#include <random>

#include "portacl/bench.hpp"
#include "portacl/lineal_path.hpp"
#include "result_layout.hpp"

namespace portacl::lineal {
namespace {

// Overlapping disks (2-D, nz = 1) or balls of radius r at seeded random centres on the torus until
// `fraction` of the image is covered: a stand-in for the thesis's unnamed test images that needs no
// data files (the bench runs on machines without ../shared/data).
PhaseImage overlappingBalls(int nz, int n, int r, double fraction, unsigned seed) {
    PhaseImage img;
    img.nz = nz;
    img.ny = img.nx = n;
    img.mask.assign(img.size(), 0);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> c(0, n - 1), cz(0, nz - 1);
    const int rz = nz > 1 ? r : 0;
    std::uint64_t on = 0;
    while (double(on) < fraction * double(img.size())) {
        const int z0 = cz(rng), y0 = c(rng), x0 = c(rng);
        for (int z = -rz; z <= rz; ++z)
            for (int y = -r; y <= r; ++y)
                for (int x = -r; x <= r; ++x) {
                    if (x * x + y * y + z * z > r * r) continue;
                    auto& m = img.mask[(std::size_t((z0 + z + nz) % nz) * n + (y0 + y + n) % n) * n + (x0 + x + n) % n];
                    on += m ? 0 : 1;
                    m = 1;
                }
    }
    return img;
}

BenchRecord runCase(Context& ctx, const BenchOptions& opts, const std::string& size, const PhaseImage& img, int ml,
                    std::size_t serialStride, const std::string& thesis) {
    const Options opt{ml, true};
    BenchRecord rec;
    rec.workload = "lineal_path";
    rec.size = size + " ML " + std::to_string(ml);
    rec.precision = "integer";
    BenchOptions o = opts;
    if (!ctx.device().isGpu && !opts.quick) {  // a CPU device runs each full case once
        o.warmups = 0;
        o.repeats = 1;
    }
    rec.seconds = medianDeviceSeconds(ctx, [&] { linealPath(ctx, img, opt); }, o);
    const int mlz = img.is3d() ? ml : 0;
    const double displacements = double(2 * mlz + 1) * (2 * ml + 1) * (2 * ml + 1);
    rec.bytes = 0;
    rec.note = std::to_string(std::uint64_t(displacements)) + " displacements x " + std::to_string(img.size()) +
               " placements";
    if (!thesis.empty()) rec.note += "; thesis (Quadro 4000 / one i7-950 core): " + thesis;
    if (opts.serial) {
        std::vector<Offset> sample;
        std::size_t k = 0;
        for (int dz = -mlz; dz <= mlz; ++dz)
            for (int dy = -ml; dy <= ml; ++dy)
                for (int dx = -ml; dx <= ml; ++dx)
                    if (k++ % serialStride == 0) sample.push_back({dz, dy, dx});
        const double t = medianHostSeconds([&] { detail::referenceCounts(img, opt, sample); }, 1);
        rec.serialSeconds = t * displacements / double(sample.size());
        if (serialStride > 1)
            rec.note += "; serial timed on every " + std::to_string(serialStride) + "th displacement (" +
                        std::to_string(sample.size()) + ") and scaled";
    }
    return rec;
}

std::vector<BenchRecord> run(Context& ctx, const BenchOptions& opts) {
    std::vector<BenchRecord> out;
    if (opts.quick) {
        out.push_back(runCase(ctx, opts, "64x64", overlappingBalls(1, 64, 4, 0.3, 1), 16, 1, ""));
        return out;
    }
    // 500x500 with ML 500 takes about 20 minutes on a 2-core PoCL device: GPUs and CPU devices of
    // 16 or more compute units (where it takes a minute or two) run it, for the thesis's Table 4.
    if (ctx.device().isGpu || ctx.device().computeUnits >= 16)
        out.push_back(runCase(ctx, opts, "500x500", overlappingBalls(1, 500, 10, 0.235, 2012), 500, 997,
                              "GPU 315.95 s, CPU 2846.7 s"));
    out.push_back(runCase(ctx, opts, "250x250", overlappingBalls(1, 250, 10, 0.235, 2012), 250, 251,
                          "GPU 22.28 s, CPU 169.2 s"));
    if (ctx.device().isGpu)
        out.push_back(runCase(ctx, opts, "128^3", overlappingBalls(128, 128, 6, 0.3, 2012), 32, 293, ""));
    else  // 128^3 with ML 32 would take most of an hour on a 2-core PoCL device
        out.push_back(runCase(ctx, opts, "64^3", overlappingBalls(64, 64, 6, 0.3, 2012), 16, 37, ""));
    return out;
}

}  // namespace

PORTACL_REGISTER_BENCH("lineal_path", "lineal path function, full map of every displacement (exact counts)", run);

}  // namespace portacl::lineal
