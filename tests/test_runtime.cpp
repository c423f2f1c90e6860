// The runtime: device selection grammar, error names, build failures, the program cache, staged transfers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "portacl/runtime/context.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/kernel_source.hpp"
#include "portacl/runtime/staging.hpp"
#include "support/test_support.hpp"

using namespace portacl;

TEST(Selection, AllListsEveryDevice) {
    const auto all = listDevices();
    ASSERT_FALSE(all.empty()) << "the tests need at least one OpenCL device (PoCL in CI)";
    EXPECT_EQ(selectDevices("all").size(), all.size());
}

TEST(Selection, AutoPicksAGpuElseTheCpu) {
    const auto all = listDevices();
    const bool anyGpu = std::any_of(all.begin(), all.end(), [](const DeviceInfo& d) { return d.isGpu; });
    const auto chosen = selectDevices("auto");
    ASSERT_EQ(chosen.size(), 1u);
    EXPECT_EQ(chosen[0].isGpu, anyGpu);
}

TEST(Selection, IndexPairPicksThatDevice) {
    const auto all = listDevices();
    const auto& last = all.back();
    const auto chosen = selectDevices(std::to_string(last.platformIndex) + ":" + std::to_string(last.deviceIndex));
    ASSERT_EQ(chosen.size(), 1u);
    EXPECT_EQ(chosen[0].name, last.name);
}

TEST(Selection, SubstringIsCaseInsensitive) {
    const auto all = listDevices();
    std::string upper = all.front().platformName.substr(0, 4);
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_FALSE(selectDevices(upper).empty());
}

TEST(Selection, CommaJoinsWithoutDuplicates) {
    EXPECT_EQ(selectDevices("all,all").size(), listDevices().size());
}

TEST(Selection, UnknownSpecListsTheDevicesThatExist) {
    try {
        selectDevices("no-such-device-xyz");
        FAIL() << "expected an error";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("no-such-device-xyz"), std::string::npos);
        EXPECT_NE(msg.find(listDevices().front().name), std::string::npos);
    }
}

TEST(Selection, EnvironmentVariableIsTheDefault) {
    const auto all = listDevices();
    const std::string spec = std::to_string(all.back().platformIndex) + ":" + std::to_string(all.back().deviceIndex);
    setenv("PORTACL_DEVICE", spec.c_str(), 1);
    const auto chosen = selectDevices("");
    unsetenv("PORTACL_DEVICE");
    ASSERT_EQ(chosen.size(), 1u);
    EXPECT_EQ(chosen[0].deviceIndex, all.back().deviceIndex);
}

TEST(Errors, StatusCodesHaveTheirNames) {
    EXPECT_EQ(clStatusName(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
    EXPECT_EQ(clStatusName(-5), "CL_OUT_OF_RESOURCES");
    EXPECT_EQ(clStatusName(CL_INVALID_KERNEL_ARGS), "CL_INVALID_KERNEL_ARGS");
    EXPECT_EQ(clStatusName(CL_BUILD_PROGRAM_FAILURE), "CL_BUILD_PROGRAM_FAILURE");
    EXPECT_EQ(clStatusName(-12345), "CL_UNKNOWN_ERROR(-12345)");
    ClError e(CL_INVALID_WORK_GROUP_SIZE, "clEnqueueNDRangeKernel");
    EXPECT_NE(std::string(e.what()).find("CL_INVALID_WORK_GROUP_SIZE"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("clEnqueueNDRangeKernel"), std::string::npos);
}

TEST(Errors, OutOfDeviceMemoryMidRunIsOneSentence) {
    const std::pair<int, std::string> cases[] = {
        {CL_MEM_OBJECT_ALLOCATION_FAILURE, "the device ran out of memory"},
        {CL_OUT_OF_RESOURCES, "the device ran out of memory or other resources"},
        {CL_OUT_OF_HOST_MEMORY, "the host ran out of memory"}};
    for (const auto& [status, start] : cases) {
        const ClError e(status, "clEnqueueNDRangeKernel(kwave_step)");
        const std::string what = e.what();
        EXPECT_EQ(what.rfind(start + " (clEnqueueNDRangeKernel(kwave_step) failed with " + clStatusName(status) + "); try a smaller problem", 0), 0u)
            << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        EXPECT_EQ(e.status(), status);
    }
    // Other statuses keep the plain form.
    EXPECT_STREQ(ClError(CL_INVALID_VALUE, "clSetKernelArg").what(), "clSetKernelArg failed with CL_INVALID_VALUE");
}

TEST(Errors, FailingCallThroughTheBindingsNamesTheStatus) {
    Context& ctx = test::context();
    cl::Kernel k = ctx.newKernel("vector_ops.cl", "vector_sum", Precision::Float);
    // No arguments set: the launch must fail with a named status, not crash.
    try {
        ctx.launch(k, cl::NDRange(16));
        ctx.finish();
        FAIL() << "expected the launch to fail";
    } catch (const ClError& e) {
        EXPECT_NE(std::string(e.what()).find("CL_INVALID_KERNEL_ARGS"), std::string::npos) << e.what();
    }
}

namespace {
// A scratch kernel folder whose files override the embedded ones (PORTACL_KERNEL_DIR).
struct KernelDirOverride {
    std::filesystem::path dir;
    explicit KernelDirOverride(const std::string& name, const std::string& text) {
        dir = std::filesystem::temp_directory_path() / ("portacl-kernels-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        std::ofstream(dir / name) << text;
        setenv("PORTACL_KERNEL_DIR", dir.c_str(), 1);
    }
    ~KernelDirOverride() {
        unsetenv("PORTACL_KERNEL_DIR");
        std::filesystem::remove_all(dir);
    }
};
}  // namespace

TEST(Programs, BuildFailureCarriesTheLogAndOptions) {
    KernelDirOverride over("broken_test.cl", "__kernel void broken(__global float* x) { x[0] = undefined_symbol; }\n");
    Context ctx(test::context().device(), ContextOptions{false, false});
    try {
        ctx.program("broken_test.cl", Precision::Float, "-D MARKER_OPTION=1");
        FAIL() << "expected a build failure";
    } catch (const BuildError& e) {
        EXPECT_NE(e.log().find("undefined_symbol"), std::string::npos) << e.log();
        EXPECT_NE(e.options().find("MARKER_OPTION"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("broken_test.cl"), std::string::npos);
    }
}

TEST(Programs, KernelDirOverridesTheEmbeddedSource) {
    KernelDirOverride over("vector_ops.cl", "// overridden\n__kernel void only_here(__global float* x) { x[0] = 1.0f; }\n");
    EXPECT_NE(kernelSource("vector_ops.cl").find("only_here"), std::string::npos);
}

TEST(Programs, IncludesAreExpandedOnce) {
    const std::string src = kernelSource("vector_ops.cl");
    EXPECT_EQ(src.find("#include"), std::string::npos);
    const auto first = src.find("typedef REAL real;");
    ASSERT_NE(first, std::string::npos);
    EXPECT_EQ(src.find("typedef REAL real;", first + 1), std::string::npos);
}

namespace {
struct ScratchCacheDir {
    std::filesystem::path dir;
    ScratchCacheDir() {
        dir = std::filesystem::temp_directory_path() / ("portacl-cache-test-" + std::to_string(::getpid()));
        std::filesystem::remove_all(dir);
        setenv("PORTACL_CACHE_DIR", dir.c_str(), 1);
    }
    ~ScratchCacheDir() {
        unsetenv("PORTACL_CACHE_DIR");
        std::filesystem::remove_all(dir);
    }
};
}  // namespace

TEST(ProgramCache, MissThenHit) {
    ScratchCacheDir scratch;
    const DeviceInfo dev = test::context().device();
    {
        Context first(dev, ContextOptions{true, false});
        first.program("vector_ops.cl", Precision::Float);
        EXPECT_EQ(first.programCache().hits, 0u);
        EXPECT_EQ(first.programCache().misses, 1u);
    }
    Context second(dev, ContextOptions{true, false});
    second.program("vector_ops.cl", Precision::Float);
    EXPECT_EQ(second.programCache().hits, 1u);
    // A different define is a different key.
    second.program("vector_ops.cl", Precision::Float, "-D SOMETHING_ELSE=1");
    EXPECT_EQ(second.programCache().misses, 1u);
}

TEST(ProgramCache, CorruptEntryFallsBackToCompiling) {
    ScratchCacheDir scratch;
    const DeviceInfo dev = test::context().device();
    {
        Context first(dev, ContextOptions{true, false});
        first.program("vector_ops.cl", Precision::Float);
    }
    std::size_t corrupted = 0;
    for (const auto& e : std::filesystem::directory_iterator(scratch.dir)) {
        std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(-8, std::ios::end);
        f.write("CORRUPT!", 8);
        ++corrupted;
    }
    ASSERT_EQ(corrupted, 1u);
    Context second(dev, ContextOptions{true, false});
    cl::Kernel k = second.kernel("vector_ops.cl", "vector_sum", Precision::Float);
    EXPECT_EQ(second.programCache().corrupt, 1u);
    EXPECT_EQ(second.programCache().hits, 0u);
    // The program still works.
    std::vector<float> a{1, 2, 3}, b{10, 20, 30};
    auto da = second.upload(a, "a"), db = second.upload(b, "b");
    auto dc = second.buffer(3 * sizeof(float), "c");
    k.setArg(0, da); k.setArg(1, db); k.setArg(2, dc); k.setArg(3, cl_ulong(3));
    second.launch(k, cl::NDRange(3));
    EXPECT_EQ(second.download<float>(dc, 3, "c"), (std::vector<float>{11, 22, 33}));
    // And the entry was rewritten: a third context hits.
    Context third(dev, ContextOptions{true, false});
    third.program("vector_ops.cl", Precision::Float);
    EXPECT_EQ(third.programCache().hits, 1u);
}

TEST(ProgramCache, ClearRemovesEntries) {
    ScratchCacheDir scratch;
    Context ctx(test::context().device(), ContextOptions{true, false});
    ctx.program("vector_ops.cl", Precision::Float);
    EXPECT_EQ(ProgramCache::clear(), 1u);
    EXPECT_EQ(ProgramCache::clear(), 0u);
}

TEST(Memory, TooLargeBufferIsRefusedBeforeAllocating) {
    Context& ctx = test::context();
    const std::size_t tooMuch = ctx.device().globalMemBytes * 2;
    try {
        ctx.buffer(tooMuch, "the test array");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("the test array needs"), std::string::npos) << e.what();
    }
}

TEST(Precision, ParsesTheModeNames) {
    EXPECT_EQ(parsePrecision("float"), Precision::Float);
    EXPECT_EQ(parsePrecision("double"), Precision::Double);
    EXPECT_EQ(parsePrecision("mixed"), Precision::Mixed);
    EXPECT_THROW(parsePrecision("quad"), Error);
}

// Staged transfers in chunks smaller than the grid (the ring of two pinned chunks used over and
// over): every element arrives converted as produce() wrote it, and comes back in order.
TEST(StagedTransfers, ChunksRoundTripEveryElementInOrder) {
    Context& ctx = test::context();
    const std::size_t n = 1000;  // 40 bytes a chunk: 10 floats, 100 chunks each way
    std::vector<double> source(n);
    for (std::size_t i = 0; i < n; ++i) source[i] = double(i) * 0.5 - 17;
    cl::Buffer b = ctx.buffer(n * sizeof(float), "staged floats");
    StagedTransfers staging(ctx, 64);
    staging.upload<float>(b, n, "upload staged floats", [&](float* to, std::size_t first, std::size_t count) {
        for (std::size_t j = 0; j < count; ++j) to[j] = float(source[first + j]);
    });
    const auto direct = ctx.download<float>(b, n, "download staged floats");
    std::vector<double> back(n, -1);
    std::size_t next = 0;
    staging.download<float>(b, n, "download staged floats", [&](const float* from, std::size_t first, std::size_t count) {
        EXPECT_EQ(first, next);
        for (std::size_t j = 0; j < count; ++j) back[first + j] = from[j];
        next = first + count;
    });
    EXPECT_EQ(next, n);
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(direct[i], float(source[i])) << i;
        ASSERT_EQ(back[i], source[i]) << i;
    }
}
