// The medium's coefficient fields on a device (c0^2, rho0, dt/rho0_sg, B/A/(2 rho0), the absorption
// field), computed from the input a block of points at a time on several host threads and written at
// each block's offset. The host holds a few blocks' coefficients in double, never the grid's, so a
// 1024^3 set-up neither fills the host's memory nor waits on one core. The one-device solver and each
// rank of the distributed one (its slab) upload theirs through it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "device_fields.hpp"

namespace portacl::kwave {

// Where the uploaded fields go (the solver's own buffers); dtRho has one per dimension.
struct MediumTargets {
    cl::Buffer* c2;
    cl::Buffer* rho0;
    cl::Buffer* dtRho[3];
    cl::Buffer* bOnA;
    cl::Buffer* tau;
};

class MediumUpload {
public:
    // `sim`'s medium over the points it holds (sim.pointsHeld()), in blocks of the [kwave] profile
    // key medium_block_points (1 M points: 8 MB a double array, which glibc keeps in its heap for the
    // next block; from 4 M, 32 MB, every array was mapped and unmapped anew, and the page faults of
    // the threads queued on the process's memory map). The reduced modes store c0 (not c^2) and
    // 1/rho0_sg (not dt/rho0_sg), as the thesis does.
    MediumUpload(const Context& ctx, const RunOptions& opt, const Simulation& sim, const StoragePlan& st);
    // Device bytes upload() allocates: a grid field's points, a homogeneous field's one value.
    std::size_t deviceBytes() const;
    // Allocates every target and fills it.
    void upload(Context& ctx, const MediumTargets& to) const;

private:
    struct Part {
        StorageFormat format;
        std::string what;
        std::function<std::vector<double>(const MediumCoefficients&, std::size_t first, std::size_t count)> values;
        bool homogeneous = false;  // one value for the whole grid
    };
    std::vector<std::vector<unsigned char>> encodeBlock(std::size_t first, std::size_t count) const;

    const Simulation& sim_;
    Precision prec_;
    std::size_t points_, blockPoints_;
    bool withTau_;
    std::vector<Part> parts_;  // c0^2, rho0, dt/rho0_sg per dimension, B/A/(2 rho0), the absorption
};

}  // namespace portacl::kwave
