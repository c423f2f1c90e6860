// Loading the OpenCL runtimes under an address-space limit (ulimit -v; SGE's h_vmem sets one), where
// a runtime may crash before the engine can check anything (host/runtime/address_space_limit.hpp): the
// command ends in one sentence, through a runtime that aborts while it loads.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace {

// Runs `portacl devices` with the ICD loader pointed at the aborting runtime alone; returns the
// wait status and stderr.
std::pair<int, std::string> devicesWithTheAbortingRuntime(const std::string& limit) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(testing::TempDir()) / ("portacl_loading_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "aborting.icd") << PORTACL_ABORTING_ICD << "\n";
    const fs::path err = dir / "stderr.txt";
    const int raw = std::system(("(" + limit + "OCL_ICD_VENDORS=" + dir.string() + " " + PORTACL_CLI_PATH + " devices >/dev/null 2>" +
                                 err.string() + ")")
                                    .c_str());
    std::ifstream in(err);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fs::remove_all(dir);
    return {raw, text};
}

}  // namespace

TEST(RuntimeLoading, ARuntimeThatAbortsUnderAnAddressSpaceLimitEndsInOneSentence) {
    const auto [raw, text] = devicesWithTheAbortingRuntime("ulimit -v 67108864 && ");
    ASSERT_TRUE(WIFEXITED(raw)) << text;
    EXPECT_EQ(WEXITSTATUS(raw), 1) << text;
    EXPECT_EQ(text,
              "portacl devices: loading the OpenCL runtimes crashed with signal 6 (Aborted) under this process's address-space "
              "limit of 65536 MiB (ulimit -v); raise the limit, or load only the runtime you use (OCL_ICD_VENDORS set to its .icd "
              "file)\n");
}

// Without a limit nothing is probed (a probe costs a second loading of every runtime): the abort is
// the runtime's own, which shows that the test's runtime does abort.
TEST(RuntimeLoading, WithoutALimitTheRuntimeIsLoadedOnce) {
    const auto [raw, text] = devicesWithTheAbortingRuntime("ulimit -v unlimited 2>/dev/null; ");
    EXPECT_TRUE(WIFSIGNALED(raw) || (WIFEXITED(raw) && WEXITSTATUS(raw) > 128)) << raw << " " << text;
}
