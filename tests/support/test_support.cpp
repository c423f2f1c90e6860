#include "support/test_support.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "portacl/runtime/data_dir.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::test {

namespace {
// CTest runs test programs in parallel, and suites write scratch files under testing::TempDir():
// give every test process a folder of its own (TempDir() reads TEST_TMPDIR), removed at exit.
struct PrivateTempDir {
    std::filesystem::path dir;
    PrivateTempDir() {
        dir = std::filesystem::temp_directory_path() / ("portacl-test-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        setenv("TEST_TMPDIR", (dir.string() + "/").c_str(), 1);
    }
    ~PrivateTempDir() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};
const PrivateTempDir privateTempDir;
}  // namespace

Context& context() {
    static std::unique_ptr<Context> ctx = [] {
        const char* spec = std::getenv("PORTACL_TEST_DEVICE");
        return std::make_unique<Context>(selectDevice(spec ? spec : ""), defaultContextOptions());
    }();
    return *ctx;
}

std::string dataPath(const std::string& relative) { return dataDirectory() + "/" + relative; }

bool hasData() { return !dataDirectory().empty(); }

std::string missingDataSentence() { return "needs the shared data: " + dataDirectoryHint(); }

bool hasFp64() { return context().device().fp64; }

Context* rusticlContext() {
    static std::unique_ptr<Context> ctx = []() -> std::unique_ptr<Context> {
        try {
            return std::make_unique<Context>(selectDevice("rusticl"), defaultContextOptions());
        } catch (const Error&) {
            return nullptr;
        }
    }();
    return ctx.get();
}

}  // namespace portacl::test
