#include "step_kernels.hpp"

#include <sstream>

namespace portacl::kwave {

std::string kernelOptions(const Context& ctx, const Simulation& sim, const StoragePlan& storage, const std::string& fused) {
    const Medium& m = sim.medium;
    std::ostringstream os;
    os << "-D KW_3D=" << (sim.grid.is3D() ? 1 : 0) << " -D C0_ARRAY=" << (m.c0.scalar() ? 0 : 1)
       << " -D RHO0_ARRAY=" << (m.rho0.scalar() ? 0 : 1)
       << " -D BONA_ARRAY=" << (m.nonlinear && !(m.bOnA.scalar() && m.rho0.scalar()) ? 1 : 0)
       << " -D ALPHA_ARRAY=" << (m.absorption != Absorption::Lossless && !m.alphaCoeff.scalar() ? 1 : 0)
       << " -D ABSORB_ARRAY=" << (m.absorption != Absorption::Lossless && !(m.alphaCoeff.scalar() && m.c0.scalar()) ? 1 : 0)
       << " -D NONLINEAR=" << (m.nonlinear ? 1 : 0) << " -D ABSORPTION=" << static_cast<int>(m.absorption) << " "
       << storage.defines() << fused;
    return ctx.tuning().withBuildOptions("kwave", os.str());
}

void StepKernels::buildStepKernels(Context& ctx, Precision precision, const std::string& options) {
    auto k = [&](const char* name) { return ctx.newKernel("kwave.cl", name, precision, options); };
    kPressureGradient = k("kwave_pressure_gradient");
    kVelocityGradient = k("kwave_velocity_gradient");
    kVelocity = k("kwave_velocity");
    kInitialVelocity = k("kwave_initial_velocity");
    kDensity = k("kwave_density");
    kPressureTerms = k("kwave_pressure_terms");
    kAbsorptionTerms = k("kwave_absorption_terms");
    kPressure = k("kwave_pressure");
    kInitialPressure = k("kwave_initial_pressure");
    kPointSource = k("kwave_point_source");
    kVelocityPointSource = k("kwave_velocity_point_source");
    kPointSourceDensity = k("kwave_point_source_density");
    kSourceKappa = k("kwave_source_kappa");
    kAddField = k("kwave_add_field");
    kAddDensity = k("kwave_add_density");
    kTransducer = k("kwave_transducer");
    kUnstagger = k("kwave_unstagger");
}

}  // namespace portacl::kwave
