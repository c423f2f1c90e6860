#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>

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

// The shared contexts, released when the tests end rather than by the exit handlers: oclgrind's
// runtime tears its LLVM down at exit first, and a context released after that aborts the process
// ("corrupted unsorted chunks") (docs/portability.md).
std::mutex contextsMutex;  // tests may ask from several threads
std::unique_ptr<Context> testContext, rusticl;
bool rusticlTried = false;

struct ReleaseContexts : ::testing::Environment {
    void TearDown() override {
        std::lock_guard<std::mutex> lock(contextsMutex);
        testContext.reset();
        rusticl.reset();
    }
};
::testing::Environment* const releaseContexts = ::testing::AddGlobalTestEnvironment(new ReleaseContexts);
}  // namespace

Context& context() {
    std::lock_guard<std::mutex> lock(contextsMutex);
    if (!testContext) {
        const char* spec = std::getenv("PORTACL_TEST_DEVICE");
        testContext = std::make_unique<Context>(selectDevice(spec ? spec : ""), defaultContextOptions());
    }
    return *testContext;
}

std::string dataPath(const std::string& relative) { return dataDirectory() + "/" + relative; }

bool hasData() { return !dataDirectory().empty(); }

std::string missingDataSentence() { return "needs the shared data: " + dataDirectoryHint(); }

bool hasFp64() { return context().device().fp64; }

bool testDeviceIsRusticl() { return context().device().platformName.find("rusticl") != std::string::npos; }

Context* rusticlContext() {
    std::lock_guard<std::mutex> lock(contextsMutex);
    if (!rusticlTried) {
        rusticlTried = true;
        try {
            rusticl = std::make_unique<Context>(selectDevice("rusticl"), defaultContextOptions());
        } catch (const Error&) {
        }
    }
    return rusticl.get();
}

}  // namespace portacl::test
