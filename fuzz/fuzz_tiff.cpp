// libFuzzer harness: the TIFF readers (pictures: host/io/image_io_tiff.cpp; stacks: host/io/volume_io_tiff.cpp) on arbitrary bytes.
#include <cstdint>

#include "fuzz_support.hpp"
#include "io/image_formats.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/runtime/error.hpp"

using namespace portacl;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::limitHostMemory();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const fuzz::InputFile file(data, size, ".tif");
    try {
        io::detail::readTiff(file.path());
    } catch (const Error&) {
    }
    try {
        io::readTiffStack(file.path());  // the stack reader of the same bytes
    } catch (const Error&) {
    }
    return 0;
}
