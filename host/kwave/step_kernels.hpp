// The kernels of a time step of cl/kwave.cl that the one-device and the distributed solvers share,
// and the options the program is built with for a simulation.
#pragma once

#include <string>

#include "device_fields.hpp"

namespace portacl::kwave {

// The options cl/kwave.cl is built with for `sim`: its medium's defines, the storage's, `fused` (the
// one-device solver's fused paths, " -D ..." or empty) and the device profile's [kwave]
// build_options (a vendor compiler that miscompiles it).
std::string kernelOptions(const Context& ctx, const Simulation& sim, const StoragePlan& storage, const std::string& fused = "");

// Kernel objects of the solver's own: their arguments are bound once and kept across steps.
struct StepKernels {
    cl::Kernel kPressureGradient, kVelocityGradient, kVelocity, kInitialVelocity, kDensity, kPressureTerms,
        kAbsorptionTerms, kPressure, kInitialPressure, kPointSource, kVelocityPointSource, kPointSourceDensity,
        kSourceKappa, kAddField, kAddDensity, kTransducer, kUnstagger;
    void buildStepKernels(Context& ctx, Precision precision, const std::string& options);
};

}  // namespace portacl::kwave
