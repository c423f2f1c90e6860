// Bench case "skeleton": Lee-Kashyap-Chu thinning, the 8-subfield and the P-simple parallel thinnings of seeded overlapping balls (radii 3 to 8 voxels,
// 30 % of the volume) on the device, against the serial reference at the same size: 256^3 on GPUs,
// 96^3 on CPU devices, 48^3 with --quick. The device time covers the whole call (upload, every pass,
// download). The skeleton is an integer result: identical to the reference's. On CPU devices Lee's
// row has scikit-image's skeletonize (method "lee", one thread, as it runs) beside it, its skeleton
// checked equal to ours.
#include <cmath>
#include <limits>
#include <random>

#include "bench/python_peer.hpp"

#include "portacl/bench.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/skeleton.hpp"

namespace portacl::skeleton {
namespace {

io::BinaryVolume balls(int n, unsigned seed) {
    io::BinaryVolume v;
    v.nz = v.ny = v.nx = n;
    v.mask.assign(v.size(), 0);
    std::mt19937 rng(seed);
    std::uint64_t on = 0;
    while (double(on) < 0.3 * double(v.size())) {
        const int cz = int(rng() % unsigned(n)), cy = int(rng() % unsigned(n)), cx = int(rng() % unsigned(n));
        const int r = 3 + int(rng() % 6);
        for (int z = std::max(0, cz - r); z <= std::min(n - 1, cz + r); ++z)
            for (int y = std::max(0, cy - r); y <= std::min(n - 1, cy + r); ++y)
                for (int x = std::max(0, cx - r); x <= std::min(n - 1, cx + r); ++x) {
                    if ((z - cz) * (z - cz) + (y - cy) * (y - cy) + (x - cx) * (x - cx) > r * r) continue;
                    auto& m = v.mask[v.index(z, y, x)];
                    on += m ? 0 : 1;
                    m = 1;
                }
    }
    return v;
}

// scikit-image's Lee skeleton of `v` beside the row, on one thread, checked equal to `ours`.
void scikitImagePeer(const io::BinaryVolume& v, const io::BinaryVolume& ours, int repeats, BenchRecord& rec) {
    const bench::PythonPeer peer("scikit-image");
    std::string failure, differs;
    double seconds = std::numeric_limits<double>::quiet_NaN();
    if (peer.available()) {
        bench::writeVolumeNpy(peer.file("volume.npy"), v);
        seconds = peer.time("skeleton-lee", peer.file("volume.npy"), peer.file("skeleton.npy"), 1, repeats, "", failure);
        if (!std::isnan(seconds)) {
            const io::Volume theirs = io::readNpy(peer.file("skeleton.npy"));
            std::size_t differing = 0;
            for (std::size_t i = 0; theirs.size() == ours.size() && i < ours.size(); ++i) differing += (theirs.data[i] != 0) != (ours.mask[i] != 0);
            if (theirs.size() != ours.size()) differs = "a volume of another size";
            else if (differing) differs = std::to_string(differing) + " voxels";
        }
    } else {
        failure = peer.name();
    }
    bench::setPeerColumn(rec, peer, seconds, failure, 1, differs);
}

std::vector<BenchRecord> run(Context& ctx, const BenchOptions& opts) {
    const int n = opts.quick ? 48 : ctx.device().isGpu ? 256 : 96;
    const io::BinaryVolume v = balls(n, 28);
    BenchOptions o = opts;
    if (!ctx.device().isGpu && !opts.quick) o.warmups = 1, o.repeats = 3;
    std::vector<BenchRecord> out;
    for (const std::string method : {"lee", "parallel", "psimple"}) {
        const bool lee = method == "lee";
        BenchRecord rec;
        rec.workload = "skeleton/" + method;
        rec.size = std::to_string(n) + "^3";
        rec.precision = "integer";
        Stats st;
        io::BinaryVolume skeleton;
        rec.seconds = medianDeviceSeconds(ctx, [&] {
            skeleton = lee ? thin(ctx, v, &st) : method == "parallel" ? thinSubfields(ctx, v, &st) : thinPSimple(ctx, v, &st);
        }, o);
        rec.bytes = 0;
        rec.note = std::to_string(v.count()) + " object voxels, " + std::to_string(st.iterations) + " passes, " +
                   (lee ? std::to_string(st.candidates) + " candidates, " + std::to_string(st.rounds) + " recheck rounds"
                        : std::to_string(st.candidates) + " removed");
        if (opts.serial) {
            io::BinaryVolume ref;
            rec.serialSeconds = medianHostSeconds(
                [&] { ref = lee ? thinReference(v) : method == "parallel" ? thinSubfieldsReference(v) : thinPSimpleReference(v); }, 1);
            rec.note += "; " + std::to_string(ref.count()) + " skeleton voxels";
        }
        if (!ctx.device().isGpu && lee) scikitImagePeer(v, skeleton, o.repeats, rec);
        else if (!ctx.device().isGpu) rec.peer = "scikit-image: no such method";
        out.push_back(rec);
    }
    return out;
}

}  // namespace

PORTACL_REGISTER_BENCH("skeleton", "3-D thinning: Lee-Kashyap-Chu (identical to scikit-image's skeletonize_3d), 8-subfield and P-simple parallel", run);

}  // namespace portacl::skeleton
