// libFuzzer harness: the NumPy .npy reader (host/io/volume_io.cpp) on arbitrary bytes.
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
    const fuzz::InputFile file(data, size, ".npy");
    try {
        io::readNpy(file.path());
    } catch (const Error&) {
    }
    return 0;
}
