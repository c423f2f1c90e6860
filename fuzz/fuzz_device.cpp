// libFuzzer harness: the --device grammar (host/runtime/device.cpp: auto, gpu, cpu, P:D, vendor or
// name substrings) against this machine's OpenCL devices.
#include <cstdint>
#include <string>

#include "portacl/runtime/device.hpp"
#include "portacl/runtime/error.hpp"

using namespace portacl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string spec(reinterpret_cast<const char*>(data), size);
    try {
        selectDevices(spec);
    } catch (const Error&) {
    }
    return 0;
}
