// libFuzzer harness: the NIfTI-1/NIfTI-2 volume reader (host/io/volume_io_nifti.cpp, through
// libnifti2) on arbitrary bytes.
#include <cstdint>

#include "fuzz_support.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/runtime/error.hpp"

using namespace portacl;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::limitHostMemory();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const fuzz::InputFile file(data, size, ".nii");
    try {
        io::readNifti(file.path());
    } catch (const Error&) {
    }
    return 0;
}
