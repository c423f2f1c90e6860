#include "medium_upload.hpp"

#include <algorithm>
#include <thread>

#include "portacl/runtime/host_pool.hpp"
#include "profile_keys.hpp"

namespace portacl::kwave {
namespace {
constexpr long kDefaultBlockPoints = 1L << 20;
}

MediumUpload::MediumUpload(const Context& ctx, const RunOptions& opt, const Simulation& sim, const StoragePlan& st)
    : sim_(sim), prec_(opt.precision), points_(sim.pointsHeld()),
      blockPoints_(static_cast<std::size_t>(profileKey(ctx, opt, "medium_block_points", kDefaultBlockPoints, 1, 1L << 40))),
      withTau_(sim.medium.absorption == Absorption::Stokes || st.storedOperators) {  // absorbingField's needs
    const Medium& m = sim.medium;
    parts_.push_back({st.c2, "c0^2", [&sim, st](const MediumCoefficients& med, std::size_t first, std::size_t count) {
                          if (st.c2 == StorageFormat::Element) return med.c2;
                          const auto& c0 = sim.medium.c0.values;
                          if (c0.size() == 1) return std::vector<double>{c0[0]};
                          return std::vector<double>(c0.begin() + static_cast<std::ptrdiff_t>(first),
                                                     c0.begin() + static_cast<std::ptrdiff_t>(first + count));
                      }});
    parts_.push_back({st.rho0, "rho0", [](const MediumCoefficients& med, std::size_t, std::size_t) { return med.rho0; }});
    for (int a = 0; a < sim.grid.dimensions(); ++a)
        parts_.push_back({st.dtRho, "dt/rho0_sg", [&sim, st, a](const MediumCoefficients& med, std::size_t, std::size_t) {
                              std::vector<double> v = med.dtRho0Sg[a];
                              if (st.dtRho != StorageFormat::Element)
                                  for (auto& x : v) x /= sim.dt;
                              return v;
                          }});
    parts_.push_back({st.bOnA, "BonA/(2 rho0)", [&m](const MediumCoefficients& med, std::size_t, std::size_t) {
                          std::vector<double> nonlinearity{0.0};
                          if (m.nonlinear) {
                              nonlinearity.resize(std::max(med.bOnA.size(), med.rho0.size()));
                              for (std::size_t i = 0; i < nonlinearity.size(); ++i)
                                  nonlinearity[i] = med.bOnA[med.bOnA.size() == 1 ? 0 : i] / (2.0 * med.rho0[med.rho0.size() == 1 ? 0 : i]);
                          }
                          return nonlinearity;
                      }});
    parts_.push_back({st.tau, m.absorption == Absorption::PowerLaw ? "2 alpha" : "absorb_tau",
                      [&sim, st](const MediumCoefficients& med, std::size_t, std::size_t) { return absorbingField(sim, med, st); }});
    // A part is homogeneous when the first 2 points or more give one value.
    const auto first = encodeBlock(0, std::min(points_, std::max<std::size_t>(blockPoints_, 2)));
    for (std::size_t i = 0; i < parts_.size(); ++i)
        parts_[i].homogeneous = points_ < 2 || first[i].size() == bytesPerElement(parts_[i].format, prec_);
}

std::vector<std::vector<unsigned char>> MediumUpload::encodeBlock(std::size_t first, std::size_t count) const {
    const MediumCoefficients med(sim_, withTau_, first, count);
    std::vector<std::vector<unsigned char>> bytes;
    for (const Part& part : parts_) bytes.push_back(encode(part.values(med, first, count), part.format, prec_));
    return bytes;
}

std::size_t MediumUpload::deviceBytes() const {
    std::size_t total = 0;
    for (const Part& part : parts_) total += (part.homogeneous ? 1 : points_) * bytesPerElement(part.format, prec_);
    return total;
}

void MediumUpload::upload(Context& ctx, const MediumTargets& to) const {
    std::vector<cl::Buffer*> targets{to.c2, to.rho0};
    for (int a = 0; a < sim_.grid.dimensions(); ++a) targets.push_back(to.dtRho[a]);
    targets.push_back(to.bOnA);
    targets.push_back(to.tau);
    for (std::size_t i = 0; i < parts_.size(); ++i) {
        const std::size_t size = (parts_[i].homogeneous ? 1 : points_) * bytesPerElement(parts_[i].format, prec_);
        *targets[i] = ctx.buffer(std::max<std::size_t>(size, 8), parts_[i].what);
    }
    // Blocks in waves of one per thread (at most 8: a block's coefficients are about 8 MB a double
    // array); each wave's blocks are written in order while none is computed.
    HostPool pool(static_cast<unsigned>(std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8)));
    const std::size_t blocks = std::max<std::size_t>(1, (points_ + blockPoints_ - 1) / blockPoints_);
    for (std::size_t wave = 0; wave < blocks; wave += pool.threads()) {
        std::vector<std::vector<std::vector<unsigned char>>> encoded(std::min<std::size_t>(blocks - wave, pool.threads()));
        pool.run(encoded.size(), [&](std::size_t k) {
            const std::size_t first = (wave + k) * blockPoints_;
            encoded[k] = encodeBlock(first, std::min(points_, first + blockPoints_) - first);
        });
        for (std::size_t k = 0; k < encoded.size(); ++k) {
            const std::vector<std::vector<unsigned char>>& bytes = encoded[k];
            const std::size_t first = (wave + k) * blockPoints_;
            for (std::size_t i = 0; i < parts_.size(); ++i) {
                if (parts_[i].homogeneous && wave + k > 0) continue;
                const std::size_t length = parts_[i].homogeneous ? bytesPerElement(parts_[i].format, prec_) : bytes[i].size();
                ctx.write(*targets[i], bytes[i].data(), length, "upload " + parts_[i].what,
                          parts_[i].homogeneous ? 0 : first * bytesPerElement(parts_[i].format, prec_));
            }
        }
    }
}

}  // namespace portacl::kwave
