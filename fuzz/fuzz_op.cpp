// libFuzzer harness: the filter command's --op grammar (host/filter/operations.cpp), inline masks
// included.
#include <cstdint>
#include <string>

#include "portacl/filter.hpp"
#include "portacl/runtime/error.hpp"

using namespace portacl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string spec(reinterpret_cast<const char*>(data), size);
    if (spec.find('/') != std::string::npos) return 0;  // mask files: paths are not the grammar's business
    try {
        filter::parseOperation(spec);
    } catch (const Error&) {
    }
    return 0;
}
