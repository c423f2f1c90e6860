// Faults a portable engine must survive: a vendor compiler that crashes or hangs (compiled in a child
// process, injected with PORTACL_COMPILE_WORKER_FAULT so that CI exercises it on PoCL), an ICD that
// fails to load, platforms without devices, and device specs that name an implementation.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "portacl/runtime/context.hpp"
#include "portacl/runtime/device.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/filter.hpp"
#include "portacl/gemm.hpp"
#include "portacl/predicates.hpp"
#include "portacl/runtime/isolated_build.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace portacl;

namespace {

// Sets environment variables for one test and restores them after it.
class ScopedEnv {
public:
    void set(const std::string& name, const std::string& value) {
        const char* old = std::getenv(name.c_str());
        saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
        ::setenv(name.c_str(), value.c_str(), 1);
    }
    ~ScopedEnv() {
        for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
            if (it->second) ::setenv(it->first.c_str(), it->second->c_str(), 1);
            else ::unsetenv(it->first.c_str());
        }
    }

private:
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// A fresh, empty program cache, so that every build is a first build.
std::string freshCacheDir(const std::string& name) {
    const fs::path dir = fs::path(testing::TempDir()) / ("cache-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir.string();
}

const DeviceInfo& testDevice() { return test::context().device(); }

// An 8-bit grey image of uniformly random bytes.
io::Image randomGreyImage(int width, int height, unsigned seed) {
    io::Image img;
    img.width = width, img.height = height, img.channels = 1;
    img.data.resize(img.byteCount());
    std::mt19937 rng(seed);
    for (auto& v : img.data) v = static_cast<unsigned char>(rng());
    return img;
}

}  // namespace

TEST(IsolatedBuild, TheCompileWorkerIsFoundBesideTheLibrary) {
    EXPECT_FALSE(compileWorkerPath().empty()) << "portacl-compile-worker was not built beside libportacl";
    EXPECT_TRUE(isolatedBuildsEnabled());
}

TEST(IsolatedBuild, ACompilerCrashIsOneSentenceNamingDriverProgramAndOptions) {
    ScopedEnv env;
    env.set("PORTACL_CACHE_DIR", freshCacheDir("crash"));
    env.set("PORTACL_COMPILE_WORKER_FAULT", "abort");
    Context ctx(testDevice());
    try {
        ctx.program("vector_ops.cl", Precision::Float);
        FAIL() << "the injected compiler crash was not reported";
    } catch (const BuildError& e) {
        const std::string what = e.what();
        EXPECT_TRUE(e.compilerFailed());
        EXPECT_NE(what.find("crashed with signal"), std::string::npos) << what;
        EXPECT_NE(what.find(testDevice().platformName), std::string::npos) << what;
        EXPECT_NE(what.find(testDevice().driverVersion), std::string::npos) << what;
        EXPECT_NE(what.find("vector_ops.cl"), std::string::npos) << what;
        EXPECT_NE(what.find("-D REAL=float"), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << "one sentence, one line: " << what;
    }
    // The same request again fails at once, without starting another child.
    EXPECT_THROW(ctx.program("vector_ops.cl", Precision::Float), BuildError);
}

TEST(IsolatedBuild, ACompilerOutOfMemoryIsOneSentenceAndNotRemembered) {
    ScopedEnv env;
    env.set("PORTACL_CACHE_DIR", freshCacheDir("out-of-memory"));
    env.set("PORTACL_COMPILE_WORKER_FAULT", "out-of-memory");
    {
        Context ctx(testDevice());
        try {
            ctx.program("vector_ops.cl", Precision::Float);
            FAIL() << "the injected std::bad_alloc was not reported";
        } catch (const BuildError& e) {
            FAIL() << "reported as a compiler failure, which other paths would then try: " << e.what();
        } catch (const Error& e) {
            const std::string what = e.what();
            EXPECT_EQ(what.rfind("building the kernels of vector_ops.cl on " + testDevice().label() + ": the compiler ran out of host memory", 0), 0u)
                << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        }
    }
    // Nothing is remembered against the driver: with memory, the same build succeeds.
    env.set("PORTACL_COMPILE_WORKER_FAULT", "");
    Context ctx(testDevice());
    EXPECT_NO_THROW(ctx.kernel("vector_ops.cl", "vector_sum", Precision::Float));
}

TEST(IsolatedBuild, AHangingCompilerIsStoppedAtTheTimeout) {
    ScopedEnv env;
    env.set("PORTACL_CACHE_DIR", freshCacheDir("hang"));
    env.set("PORTACL_COMPILE_WORKER_FAULT", "hang");
    env.set("PORTACL_BUILD_TIMEOUT", "1");
    Context ctx(testDevice());
    const auto start = std::chrono::steady_clock::now();
    try {
        ctx.program("vector_ops.cl", Precision::Float);
        FAIL() << "the injected compiler hang was not reported";
    } catch (const BuildError& e) {
        EXPECT_TRUE(e.compilerFailed());
        EXPECT_NE(std::string(e.what()).find("did not finish within 1 s"), std::string::npos) << e.what();
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30.0);
}

TEST(IsolatedBuild, AChildBuildServesTheProgramAndAWarmCacheStartsNoChild) {
    ScopedEnv env;
    env.set("PORTACL_CACHE_DIR", freshCacheDir("warm"));
    {
        Context ctx(testDevice());
        cl::Kernel k = ctx.kernel("vector_ops.cl", "vector_sum", Precision::Float);
        EXPECT_EQ(ctx.programCache().hits, 0u);
    }
    // Every child from now on would abort: the cached binary must be used without one.
    env.set("PORTACL_COMPILE_WORKER_FAULT", "abort");
    Context ctx(testDevice());
    EXPECT_NO_THROW(ctx.kernel("vector_ops.cl", "vector_sum", Precision::Float));
    EXPECT_EQ(ctx.programCache().hits, 1u);
}

TEST(IsolatedBuild, AFilterWhoseSpecialisedKernelCrashesTheCompilerTakesThePortablePath) {
    ScopedEnv env;
    env.set("PORTACL_CACHE_DIR", freshCacheDir("filter"));
    // The register path's kernels (SAT_PACK is among their options only) and the tile kernels'
    // median network crash; the median's bitwise search remains.
    env.set("PORTACL_COMPILE_WORKER_FAULT", "abort:SAT_PACK,MEDIAN_SEARCH=0");
    const io::Image img = randomGreyImage(37, 29, 7);
    const std::vector<filter::Operation> ops{filter::parseOperation("median:5")};
    filter::Options options;
    Context ctx(testDevice());
    filter::Pipeline pipeline(ctx, ops, options);
    const io::Image got = pipeline.run(img);
    const io::Image want = filter::filterReference(img, ops, options);
    EXPECT_EQ(got.data, want.data);
}

TEST(IsolatedBuild, AMedianNetworkThatCrashesTheCompilerLeavesTheMedianToTheOtherKernels) {
    ScopedEnv env;
    env.set("PORTACL_CACHE_DIR", freshCacheDir("median-network"));
    env.set("PORTACL_COMPILE_WORKER_FAULT", "abort:SORTED_COLUMNS");  // among the network's options only
    const io::Image img = randomGreyImage(41, 23, 11);
    const std::vector<filter::Operation> ops{filter::parseOperation("median:9")};
    filter::Options options;
    options.tuning = {{"median_network", 1}, {"median_network_min", 7}, {"median_network_group_x", 8}, {"median_network_group_y", 4}};
    Context ctx(testDevice());
    filter::Pipeline pipeline(ctx, ops, options);
    const io::Image want = filter::filterReference(img, ops, options);
    EXPECT_EQ(pipeline.run(img).data, want.data);
    EXPECT_EQ(pipeline.run(img).data, want.data);  // the failed build remembered, not tried again
}

TEST(Devices, EveryPlatformIsListedOrSkippedWithAReason) {
    std::vector<SkippedPlatform> skipped;
    const auto devices = listDevices(&skipped);
    for (const auto& s : skipped) {
        EXPECT_FALSE(s.reason.empty());
        for (const auto& d : devices) EXPECT_NE(d.platformIndex, s.platformIndex) << s.platformName;
    }
    // Mesa's Clover on a machine without an AMD GPU has no devices (scripts/install-deps.sh installs it).
    for (const auto& d : devices) EXPECT_EQ(d.platformName.find("Clover"), std::string::npos);
}

TEST(Devices, AutoNeverPicksASimulatorAndPrefersPoclAmongCpus) {
    const auto all = listDevices();
    bool simulatorOnly = true, gpu = false, pocl = false;
    for (const auto& d : all) {
        simulatorOnly = simulatorOnly && d.isSimulator();
        gpu = gpu || (d.isGpu && !d.isSimulator());
        pocl = pocl || d.isPocl();
    }
    if (all.empty() || simulatorOnly) GTEST_SKIP() << "no device other than a simulator";
    const DeviceInfo chosen = selectDevice("auto");
    EXPECT_FALSE(chosen.isSimulator());
    if (!gpu && pocl) EXPECT_TRUE(chosen.isPocl()) << chosen.label();
    for (const auto& d : selectDevices("all")) EXPECT_FALSE(d.isSimulator()) << d.label();
}

TEST(Devices, AnImplementationsNameSelectsItsPlatformOnly) {
    bool intel = false;
    for (const auto& d : listDevices()) intel = intel || d.platformName.find("Intel(R) OpenCL") != std::string::npos;
    if (!intel) GTEST_SKIP() << "Intel's OpenCL runtime is not installed";
    for (const auto& d : selectDevices("intel"))
        EXPECT_NE(d.platformName.find("Intel"), std::string::npos) << d.label() << " is not Intel's runtime";
}

TEST(Devices, AnIcdThatFailsToLoadIsSkipped) {
    // A vendors folder with PoCL and an ICD whose library does not exist, then one that is not a
    // library at all: `portacl devices` still lists PoCL and exits 0.
    if (!fs::exists("/etc/OpenCL/vendors/pocl.icd")) GTEST_SKIP() << "PoCL's ICD file is not installed";
    const fs::path vendors = fs::path(testing::TempDir()) / "vendors";
    fs::create_directories(vendors);
    fs::copy_file("/etc/OpenCL/vendors/pocl.icd", vendors / "pocl.icd", fs::copy_options::overwrite_existing);
    std::ofstream(vendors / "absent.icd") << "/nonexistent/libAbsentOpenCL.so\n";
    const fs::path notLibrary = fs::path(testing::TempDir()) / "not-a-library.so";
    std::ofstream(notLibrary) << "this is not a shared library\n";
    std::ofstream(vendors / "broken.icd") << notLibrary.string() << "\n";
    const std::string out = (fs::path(testing::TempDir()) / "devices.txt").string();
    const std::string cmd = "OCL_ICD_VENDORS=" + vendors.string() + " " + PORTACL_CLI_PATH + " devices > " + out + " 2>&1";
    const int rc = std::system(cmd.c_str());
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(rc, 0) << text.str();
    EXPECT_NE(text.str().find("Portable Computing Language"), std::string::npos) << text.str();
}

// NVIDIA's instructions (inline PTX: dp4a, cvt.pack, f16x2 lanes, mul.rn.f64) run only where the
// device reports them. A profile that asks for the NVIDIA paths by their keys gets the portable
// spellings on any other device, with the reference's results; one that defines the engine's own
// vendor macros is refused in one sentence before anything is built.
namespace {
// A profile that matches the test device above every shipped one, holding `body`; in its own folder
// first on PORTACL_PLATFORMS_DIR.
std::string profileForTheTestDevice(const std::string& name, const std::string& body) {
    const fs::path dir = fs::path(testing::TempDir()) / ("profiles-" + name);
    fs::create_directories(dir);
    const DeviceInfo& d = testDevice();
    // Every key that holds for the device, so that no shipped profile is more specific (NVIDIA's
    // name their compute capabilities).
    std::ofstream profile(dir / (name + ".profile"));
    profile << "[match]\nplatform = " << d.platformName << "\ndevice = " << d.name << "\nvendor = " << d.vendor << "\ntype = " << d.type << "\n";
    if (d.nvComputeMajor > 0) {
        const std::string capability = std::to_string(d.nvComputeMajor) + "." + std::to_string(d.nvComputeMinor);
        profile << "compute_capability_min = " << capability << "\ncompute_capability_max = " << capability << "\n";
    }
    profile << "priority = 1000000\n" << body;
    return dir.string();
}
}  // namespace

TEST(VendorPaths, NvidiaKeysOnAnotherDeviceTakeThePortableSpellings) {
    ScopedEnv env;
    env.set("PORTACL_PLATFORMS_DIR", profileForTheTestDevice(
        "nvidia-keys", "[filter]\nstrip = 1\nstrip_dot = 1\nstrip_pack = 1\nstrip_gradient_lanes = 1\n"
                       "[gemm]\ntile_m = 32\ntile_n = 32\ntile_k = 16\nwpt_m = 8\nwpt_n = 4\nwarp_tile = 1\n"));
    Context ctx(testDevice());
    ASSERT_EQ(ctx.tuning().name, "nvidia-keys");
    // The filters whose register path has an NVIDIA instruction: masks by byte dot products (dp4a),
    // saturated packed stores (cvt.pack), gradient pairs in 16-bit lanes (f16x2).
    io::Image img = io::makeImage(61, 37, 1, io::PixelType::U8);
    std::mt19937 rng(7);
    for (auto& v : img.data) v = static_cast<unsigned char>(rng());
    for (const char* spec : {"box:3", "conv:1,2,1;0,3,0;1,2,1:sum", "sobel", "laplace:4:3"}) {
        const std::vector<filter::Operation> ops{filter::parseOperation(spec)};
        filter::Pipeline p(ctx, ops, {});
        EXPECT_EQ(p.run(img).data, filter::filterReference(img, ops, {}).data) << spec;
    }
    // The matrix product's 8 x 4 warp layout is an arrangement of work-items, correct on any device (32 of
    // them here: rusticl on llvmpipe takes no more for this kernel).
    const std::size_t M = 40, N = 36, K = 20;
    std::vector<float> A(M * K), B(K * N);
    for (auto& v : A) v = static_cast<float>(static_cast<int>(rng() % 9) - 4);
    for (auto& v : B) v = static_cast<float>(static_cast<int>(rng() % 7) - 3);
    EXPECT_EQ(gemm(ctx, GemmKernel::RegisterBlocked, M, N, K, A, B), gemmReference(M, N, K, A, B));  // small integers: exact
}

TEST(VendorPaths, AProfileDefiningTheEnginesVendorMacrosIsRefused) {
    for (const std::string& build : {std::string("defines = PORTACL_WARP_SIZE=32 PORTACL_DEVICE_NVIDIA=1\n"),
                                     std::string("options = -cl-mad-enable -DDP4A=1\n"),
                                     std::string("options = -D HALF_LANES=1\n"), std::string("options = -D DP2A=1\n"),
                                     std::string("defines = REAL=double\n")}) {
        ScopedEnv env;
        env.set("PORTACL_PLATFORMS_DIR", profileForTheTestDevice("forced", "[build]\n" + build));
        env.set("PORTACL_CACHE_DIR", freshCacheDir("forced"));
        Context ctx(testDevice());
        const std::vector<float> points{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
        const std::vector<std::uint32_t> queries{0, 1, 2, 3};
        try {
            predicates::evaluate(ctx, predicates::Predicate::Orient3d, points, queries, Precision::Float);
            ADD_FAILURE() << "accepted a profile with " << build;
        } catch (const Error& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("which the engine sets itself"), std::string::npos) << what;
            EXPECT_NE(what.find("forced"), std::string::npos) << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << "not one sentence: " << what;
        }
    }
}
