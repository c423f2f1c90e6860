// libFuzzer harness: the MMCIF reader (host/io/molecule_io*.cpp, through gemmi) on arbitrary
// bytes, and the Voronoi tracer's set-up (its range checks and search grid) on the balls it reads.
#include <cstdint>

#include "fuzz_support.hpp"
#include "portacl/io/molecule.hpp"
#include "portacl/runtime/error.hpp"
#include "voronoi/tracer.hpp"

using namespace portacl;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::limitHostMemory();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const fuzz::InputFile file(data, size, ".cif");
    io::MoleculeOptions options;
    options.format = io::MoleculeFormat::Cif;
    options.hetero = true;
    try {
        for (const auto& frame : io::readMolecule(file.path(), options)) voronoi::Tracer tracer(frame.balls);
    } catch (const Error&) {
    }
    return 0;
}
