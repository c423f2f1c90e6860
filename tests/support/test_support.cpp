#include "support/test_support.hpp"

#include <cstdlib>
#include <memory>

namespace portacl::test {

Context& context() {
    static std::unique_ptr<Context> ctx = [] {
        const char* spec = std::getenv("PORTACL_TEST_DEVICE");
        return std::make_unique<Context>(selectDevice(spec ? spec : ""), defaultContextOptions());
    }();
    return *ctx;
}

std::string dataPath(const std::string& relative) { return std::string(PORTACL_SHARED_DATA_DIR) + "/" + relative; }

bool hasFp64() { return context().device().fp64; }

}  // namespace portacl::test
