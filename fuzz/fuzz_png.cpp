// libFuzzer harness: the PNG reader (host/io/image_io_png.cpp) on arbitrary bytes.
#include <cstdint>

#include "fuzz_support.hpp"
#include "io/image_formats.hpp"
#include "portacl/runtime/error.hpp"

using namespace portacl;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::limitHostMemory();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const fuzz::InputFile file(data, size, ".png");
    try {
        io::detail::readPng(file.path());
    } catch (const Error&) {
    }
    return 0;
}
