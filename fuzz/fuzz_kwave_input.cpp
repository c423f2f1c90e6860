// libFuzzer harness: k-Wave input files (host/kwave/input_file.cpp). A small valid input is
// written, the fuzzer's edits change its datasets and attributes (fuzz/hdf5_edits.hpp), and the
// reader must refuse it with a sentence or accept it as a simulation whose PML and k-space
// operators can be built on the host.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "hdf5_edits.hpp"
#include "kwave/k_space_operators.hpp"
#include "portacl/kwave.hpp"
#include "portacl/runtime/error.hpp"

using namespace portacl;

namespace {

kwave::Simulation baseline() {
    kwave::Simulation s;
    s.grid.nx = 16;
    s.grid.ny = 12;
    s.grid.dx = s.grid.dy = 1e-4;
    s.nt = 8;
    s.cRef = 1500;
    s.dt = 2e-8;
    s.pml.size = {2, 2, 0};
    s.medium.c0 = kwave::Field{{1500.0f}};
    s.medium.rho0 = s.medium.rho0Sgx = s.medium.rho0Sgy = kwave::Field{{1000.0f}};
    s.p0.assign(s.grid.size(), 0.0f);
    s.p0[100] = 1;
    s.u.index = {20, 21, 22};
    s.transducer.length = 4;
    s.transducer.signal.assign(8, 1.0f);
    s.transducer.delay = {0, 1, 2};
    for (std::size_t i = 0; i < s.grid.size(); i += 9) s.sensor.index.push_back(i);
    return s;
}

const std::vector<std::string> kNames = {
    "Nx", "Ny", "Nz", "Nt", "dt", "dx", "dy", "dz", "c_ref", "pml_x_size", "pml_y_size", "pml_z_size", "pml_x_alpha",
    "pml_y_alpha", "axisymmetric_flag", "nonuniform_grid_flag", "nonlinear_flag", "absorbing_flag", "c0", "rho0",
    "rho0_sgx", "rho0_sgy", "BonA", "alpha_coeff", "alpha_power", "p0_source_flag", "p0_source_input", "p_source_flag",
    "p_source_mode", "p_source_many", "p_source_index", "p_source_input", "ux_source_flag", "uy_source_flag",
    "transducer_source_flag", "u_source_index", "transducer_source_input", "delay_mask", "sensor_mask_type",
    "sensor_mask_index", "sensor_mask_corners"};
const std::vector<std::string> kRootAttributes = {"file_type", "major_version", "minor_version"};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::limitHostMemory();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    const fuzz::InputFile file(nullptr, 0, ".h5");
    kwave::writeInputFile(file.path(), baseline());
    fuzz::applyEdits(file.path(), in, kNames, kRootAttributes);
    try {
        const kwave::Simulation sim = kwave::readInputFile(file.path());
        const kwave::PerfectlyMatchedLayer pml(sim);
        if (sim.grid.size() <= 65536) {
            const kwave::KSpaceOperators operators(sim, true);
        }
    } catch (const Error&) {
    }
    return 0;
}
