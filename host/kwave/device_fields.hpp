// The device solver's arrays (k-Wave's MatrixContainer): the state, the scratch fields, the spectra,
// the medium, the operators and the sources, each in the storage format its StoragePlan gives, with
// the host-side set-up that fills them and the checkpoint's view of the state.
//
// Arrays (3-D; 2-D drops the z ones): the state p, u_sg{x,y,z}, rho{x,y,z}; three real scratch fields
// du{x,y,z} that hold the pressure gradients, then the velocity divergence terms, then the absorption
// terms; three half spectra; the medium (one value or a grid each); the operators; the sources. That
// is 13 fields less than k-Wave's 16+ for the same case. The sensor's buffers are the sampler's
// (sensor_sampling.hpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "portacl/kwave.hpp"
#include "k_space_operators.hpp"
#include "storage_format.hpp"

namespace portacl::kwave {

// Storage of each reduced quantity under a mode (the thesis's Table 5.1).
struct StoragePlan {
    StorageFormat c2 = StorageFormat::Element, rho0 = StorageFormat::Element, bOnA = StorageFormat::Element,
                  tau = StorageFormat::Element, nabla = StorageFormat::Element, rho = StorageFormat::Element,
                  dtRho = StorageFormat::Element, kappa = StorageFormat::Element,
                  sourceKappa = StorageFormat::Element, p0 = StorageFormat::Element,
                  signal = StorageFormat::Element;
    // kappa, nabla1 and nabla2 stored (in the element type where the mode keeps them in full
    // precision), and with the power law 2 alpha c^(y-1) in place of 2 alpha: the device profile's
    // [kwave] stored_operators, for CPUs, where computing sin, exp and log per element costs more
    // than reading (k-Wave OMP's choice). Else full precision computes them in the kernels.
    bool storedOperators = false;
    StoragePlan(Storage s, bool storedOperators);
    bool kappaStored() const { return kappa != StorageFormat::Element || storedOperators; }
    bool nablaStored() const { return nabla != StorageFormat::Element || storedOperators; }
    // The kernels' -D ST_* and STORED_OPERATORS options (cl/common/kwave_storage.h, cl/kwave.cl).
    std::string defines() const;
};

// The absorption field the pressure kernel reads as `absorb` (one value, or one per point): with the
// power law 2 alpha, or 2 alpha c^(y-1) with stored operators; with Stokes tau; else a zero.
std::vector<double> absorbingField(const Simulation& sim, const MediumCoefficients& med, const StoragePlan& st);

struct DeviceFields {
    DeviceFields(Context& ctx, const Simulation& sim, const RunOptions& options);

    Context& ctx;
    const Simulation& sim;
    const RunOptions& opt;
    const Grid& g;
    std::size_t n, nr;  // grid points; points of the R2C half spectrum
    int dims;
    Precision prec;
    std::size_t realBytes;
    StoragePlan st;
    std::size_t deviceBytes = 0;  // what allocate() made
    // The factor allocate() gives the shifted derivative and unstagger operators: 1/N where the
    // solver's inverse transforms are left unscaled and the operators before them carry it.
    double spectralScale = 1.0;

    cl::Buffer p, u[3], rho[3], du[3], X[3], scratch;
    // When each component's offset meets the device's sub-buffer alignment, u, du and the spectra
    // are one buffer each (uAll, duAll, XAll) with u[a], du[a], X[a] as sub-buffers, so that the
    // transforms of all components go out as one batched FFT: a third of the launches, which is what
    // bounds a step on small grids where each launch costs more host time than device time.
    cl::Buffer uAll, duAll, XAll, duTail;  // duTail: du[1] and du[2], the absorption terms' pair
    bool batched = false;
    cl::Buffer c2, rho0, bOnA, tau, dtRho[3], pml[3], pmlSg[3], kappa, sourceKappa, nabla1, nabla2;
    cl::Buffer ddPos[3], ddNeg[3], shiftNeg[3], p0;
    cl::Buffer waveNumbers2;  // kx^2 (nx/2+1), ky^2 (ny), kz^2 (nz): kappa and nabla on the fly
    // Quantities the pressure kernel reads only together are folded into one field each: B/A / (2 rho0)
    // in place of B/A (the nonlinear term then needs no rho0), and, with power-law absorption, 2 alpha
    // [Np] in place of tau and eta, which the kernel forms from it and c (tau = -2 alpha c^(y-1),
    // eta = 2 alpha c^y tan(pi y/2)): two full-grid reads fewer per step on a heterogeneous medium,
    // and one field less. The reduced modes store them as Table 5.1 stores B/A (fp16) and tau and eta
    // (bfloat16): the same information at the same precision.
    cl::Buffer pIndex, pSignal, uIndex, uSignal[3], trSignal, trDelay;
    bool additive = false;  // an additive source: `scratch` holds its field before the correction

    // Scratch fields: dims, and 3 with power-law absorption, which keeps sum(rho) in du[0] while its
    // two terms come back from their FFTs into du[1] and du[2] (2-D grids get a third one for it).
    int scratchFields() const;
    // Full-precision kappa and nabla are computed by the kernels from |k| (one read of a half-spectrum
    // field less per use) unless the profile stores them; the reduced modes keep them stored as
    // Table 5.1 says.
    bool storedKappa() const { return st.kappaStored(); }
    bool storedNabla() const { return st.nablaStored(); }

    // The working set from the sizes alone (the exact figure follows in allocate()).
    std::size_t estimateBytes() const;
    // Computes the medium, the operators and the sources on the host, refuses a working set (with
    // `otherBytes` of the sampler's) the device cannot hold, then allocates and uploads everything.
    void allocate(std::size_t otherBytes);
    // The state, the scratch fields and the spectra back to zero (after the warm-up step).
    void zeroState();

    // The checkpoint's fields ("p", "ux_sgx", ..., "rhox", ...), decoded to double, and back.
    std::map<std::string, std::vector<double>> saveState();
    void restoreState(const std::map<std::string, std::vector<double>>& fields);

    // `count` reals of an element-precision buffer, decoded to double.
    std::vector<double> download(const cl::Buffer& b, std::size_t count, const std::string& what);
    void upload(cl::Buffer& b, const std::vector<double>& values, StorageFormat f, const std::string& what);
};

}  // namespace portacl::kwave
