// The library as a program that links it meets it: silent unless given a logger, a precision that
// does not match the buffers is an exception, one data rule, OpenCV's border names, and 16-bit
// fixed-point filters that keep their gain.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "portacl/bench.hpp"
#include "portacl/fft.hpp"
#include "portacl/filter.hpp"
#include "portacl/gemm.hpp"
#include "portacl/predicates.hpp"
#include "portacl/runtime/data_dir.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/log.hpp"
#include "portacl/runtime/progress.hpp"
#include "portacl/vector_ops.hpp"
#include "support/test_support.hpp"

using namespace portacl;

// Rusticl shows its llvmpipe device (no fp64) only when asked before the first OpenCL call.
static const int kRusticl = (setenv("RUSTICL_ENABLE", "llvmpipe", 0), 0);

TEST(LibraryLog, MessagesGoToTheCallersLoggerNotToStderr) {
    std::vector<std::string> got;
    const Logger previous = setLogger([&](LogLevel, const std::string& m) { got.push_back(m); });
    testing::internal::CaptureStderr();
    bool anyGpu = false;
    for (const auto& d : listDevices()) anyGpu = anyGpu || d.isGpu;
    (void)selectDevices("auto");
    log(LogLevel::Info, "a message");
    const std::string err = testing::internal::GetCapturedStderr();
    setLogger(previous);
    EXPECT_EQ(err, "") << "the library wrote to stderr by itself";
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got.back(), "a message");
    // Without a GPU, auto's fallback is said once, to the logger, and names no command-line flag.
    if (!anyGpu) {
        ASSERT_GE(got.size(), 2u);
        EXPECT_NE(got.front().find("no GPU found"), std::string::npos) << got.front();
        EXPECT_EQ(got.front().find("--"), std::string::npos) << got.front();
    }
    // Progress lines are the caller's choice too: off unless enabled.
    enableProgress(false);
    EXPECT_FALSE(Progress("work", 10).active());
}

// Each public call that takes untyped cl::Buffers (and, for most, a runtime precision) checks the
// buffers' sizes first: a precision that does not match the buffers, or a count beyond them, is a
// portacl::Error of one sentence naming the buffer and the call, never reads or writes past the end.
template <typename Call>
void expectBufferRefusal(Call call, const std::string& names, const std::string& says) {
    try {
        call();
        ADD_FAILURE() << "accepted; expected a refusal naming " << names;
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(names), std::string::npos) << what;
        EXPECT_NE(what.find(says), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << "not one sentence: " << what;
    }
}

TEST(LibraryBuffers, APrecisionThatDoesNotMatchTheBuffersThrows) {
    Context& ctx = test::context();
    const bool fp64 = ctx.device().fp64;  // without fp64 a double request is refused for that first
    const std::size_t n = 1000;
    const std::vector<float> a(n, 1.0f);
    cl::Buffer da = ctx.upload(a, "a"), db = ctx.upload(a, "b"), dc = ctx.buffer(n * sizeof(float), "c");
    cl::Buffer shortBuffer = ctx.buffer((n - 1) * sizeof(float), "short");
    // Double asked of float buffers: each holds half the bytes n doubles need.
    if (fp64) expectBufferRefusal([&] { vectorSum(ctx, Precision::Double, da, db, dc, n); }, "buffer a of vectorSum", "another precision");
    else EXPECT_THROW(vectorSum(ctx, Precision::Double, da, db, dc, n), Error);
    expectBufferRefusal([&] { vectorSum(ctx, Precision::Float, da, db, dc, n + 1); }, "buffer a of vectorSum", "fewer than");
    expectBufferRefusal([&] { vectorSum(ctx, Precision::Float, da, shortBuffer, dc, n); }, "buffer b of vectorSum", "fewer than");
    expectBufferRefusal([&] { vectorSum(ctx, Precision::Float, da, db, shortBuffer, n); }, "buffer c of vectorSum", "fewer than");
    vectorSum(ctx, Precision::Float, da, db, dc, n);  // the matching call runs
    EXPECT_EQ(ctx.download<float>(dc, n, "c")[n - 1], 2.0f);
    // The context's own transfers: doubles read from or written to a float buffer.
    expectBufferRefusal([&] { ctx.download<double>(dc, n, "c"); }, "the buffer of download c", "fewer than");
    expectBufferRefusal([&] { ctx.write(dc, std::vector<double>(n).data(), n * sizeof(double), "c"); }, "the buffer of c", "fewer than");

    // The matrix product, both overloads and every kernel (A, B, C are 8 x 8 floats, not doubles).
    const std::vector<float> m(64, 1.0f);
    cl::Buffer A = ctx.upload(m, "A"), B = ctx.upload(m, "B"), C = ctx.buffer(64 * sizeof(float), "C");
    cl::Buffer C63 = ctx.buffer(63 * sizeof(float), "C63");
    const GemmTuning tuning = gemmTuning(ctx.tuning(), Precision::Float);
    for (GemmKernel kernel : {GemmKernel::Direct, GemmKernel::Tiled, GemmKernel::RegisterBlocked}) {
        if (fp64) {
            expectBufferRefusal([&] { gemm(ctx, Precision::Double, kernel, 8, 8, 8, A, B, C); }, "buffer A of gemm", "another precision");
            expectBufferRefusal([&] { gemm(ctx, Precision::Double, kernel, 8, 8, 8, A, B, C, tuning); }, "buffer A of gemm", "another precision");
        } else {
            EXPECT_THROW(gemm(ctx, Precision::Double, kernel, 8, 8, 8, A, B, C), Error);
        }
        expectBufferRefusal([&] { gemm(ctx, Precision::Float, kernel, 8, 9, 8, A, B, C); }, "buffer B of gemm", "fewer than");
        expectBufferRefusal([&] { gemm(ctx, Precision::Float, kernel, 9, 8, 8, A, B, C, tuning); }, "buffer A of gemm", "fewer than");
        expectBufferRefusal([&] { gemm(ctx, Precision::Float, kernel, 8, 8, 8, A, B, C63, tuning); }, "buffer C of gemm", "fewer than");
    }

    // The predicates on device buffers: the element types are fixed, the query count is checked.
    const std::vector<float> points(3 * 5, 1.0f);
    const std::vector<std::uint32_t> queries(4 * 10, 0u);
    cl::Buffer dp = ctx.upload(points, "points"), dq = ctx.upload(queries, "queries"), ds = ctx.buffer(10, "signs");
    expectBufferRefusal([&] { predicates::evaluateOnDevice(ctx, predicates::Predicate::Orient3d, dp, dq, 11, ds, Precision::Float); },
                        "query buffer of orient3d", "fewer than");
    expectBufferRefusal([&] { predicates::evaluateOnDevice(ctx, predicates::Predicate::Insphere, dp, dq, 9, ds, Precision::Float); },
                        "query buffer of insphere", "5 uint32 point indices per query");
    cl::Buffer shortSigns = ctx.buffer(9, "signs");
    expectBufferRefusal([&] { predicates::evaluateOnDevice(ctx, predicates::Predicate::Orient3d, dp, dq, 10, shortSigns, Precision::Mixed); },
                        "sign buffer of orient3d", "one int8 sign per query");

    // An FFT plan in double given buffers sized for float.
    if (fp64) {
        fft::PlanDesc d;
        d.kind = fft::Kind::C2C;
        d.shape = {16};
        d.precision = Precision::Double;
        fft::Plan& plan = fft::plan(ctx, d);
        const std::size_t floatBytes = fft::inputBytes(d, fft::Direction::Forward) / 2;
        cl::Buffer in = ctx.buffer(floatBytes, "in"), out = ctx.buffer(floatBytes, "out");
        expectBufferRefusal([&] { plan.execute(in, out, fft::Direction::Forward); }, "input buffer of the", "bytes, but it needs");
    }
}

TEST(LibraryData, OneRuleForTheDataFolder) {
    const char* old = std::getenv("PORTACL_DATA_DIR");
    const std::string saved = old ? old : "";
    setenv("PORTACL_DATA_DIR", "/nonexistent/portacl-data", 1);
    EXPECT_EQ(dataDirectory(), "");
    EXPECT_NE(dataDirectoryHint().find("PORTACL_DATA_DIR"), std::string::npos) << dataDirectoryHint();
    const std::string dir = testing::TempDir() + "portacl_data_rule";
    std::filesystem::create_directories(dir);
    setenv("PORTACL_DATA_DIR", dir.c_str(), 1);
    EXPECT_EQ(dataDirectory(), dir);
    // Unset: the source tree's sibling, from any working directory.
    unsetenv("PORTACL_DATA_DIR");
    const auto cwd = std::filesystem::current_path();
    std::filesystem::current_path("/");
    const std::string found = dataDirectory();
    std::filesystem::current_path(cwd);
    if (std::filesystem::is_directory(std::string(PORTACL_SOURCE_DIR) + "/../shared/data"))
        EXPECT_EQ(std::filesystem::path(found), std::filesystem::weakly_canonical(std::string(PORTACL_SOURCE_DIR) + "/../shared/data"));
    if (old) setenv("PORTACL_DATA_DIR", saved.c_str(), 1);
    std::filesystem::remove_all(dir);
}

TEST(LibraryFilter, OpenCvBorderNamesAreAccepted) {
    using filter::Border;
    for (const auto& [name, b] : std::vector<std::pair<std::string, Border>>{
             {"BORDER_REFLECT_101", Border::Reflect101}, {"REFLECT101", Border::Reflect101}, {"reflect_101", Border::Reflect101},
             {"BORDER_DEFAULT", Border::Reflect101}, {"cv2.BORDER_REPLICATE", Border::Replicate}, {"Border_Reflect", Border::Reflect},
             {"BORDER_CONSTANT", Border::Constant}, {"BORDER_WRAP", Border::Wrap}, {"wrap", Border::Wrap}})
        EXPECT_EQ(filter::parseBorder(name), b) << name;
    EXPECT_THROW(filter::parseBorder("BORDER_TRANSPARENT"), Error);
    EXPECT_THROW(filter::parseBorder("mirror"), Error);
}

// 16-bit images through fixed-point masks: a constant keeps its value exactly, and any image stays
// within rounding (0.5 grey level plus 0.01) of the same mask in double arithmetic, on the device and
// in the serial reference. Gaussians take OpenCV's integers (16 fractional bits a factor, so that
// they equal OpenCV's GaussianBlur: test_filter_opencv), whose quantisation moves a 16-bit result by
// up to about a grey level: they are held to 1.5.
TEST(LibraryFilter, SixteenBitRealMasksKeepTheirGain) {
    const int w = 67, h = 45;
    for (const std::string spec : {"gaussian:9:2.0", "gaussian:5:1.3", "gaussian:3:0.7", "conv:0.1,0.2,0.1;0.2,0.7,0.2;0.1,0.2,0.1:sum"}) {
        const std::vector<filter::Operation> ops{filter::parseOperation(spec)};
        for (const unsigned short level : {60000, 65535, 1}) {
            io::Image flat = io::makeImage(w, h, 1, io::PixelType::U16);
            std::fill(flat.samples<unsigned short>(), flat.samples<unsigned short>() + w * h, level);
            const io::Image ref = filter::filterReference(flat, ops, {});
            filter::Pipeline p(test::context(), ops, {});
            const io::Image dev = p.run(flat);
            for (int i = 0; i < w * h; ++i) {
                ASSERT_EQ(ref.samples<unsigned short>()[i], level) << spec << " reference, pixel " << i;
                ASSERT_EQ(dev.samples<unsigned short>()[i], level) << spec << " device, pixel " << i;
            }
        }
        // A random image against the same mask in double arithmetic (the float path in double).
        io::Image noise = io::makeImage(w, h, 1, io::PixelType::U16);
        std::mt19937 rng(7);
        for (int i = 0; i < w * h; ++i) noise.samples<unsigned short>()[i] = static_cast<unsigned short>(rng() % 65536);
        std::vector<filter::Operation> exactOps{filter::parseOperation("float"), filter::parseOperation(spec)};
        filter::Options dbl;
        dbl.precision = Precision::Double;
        const io::Image exact = filter::filterReference(noise, exactOps, dbl);
        filter::Pipeline p(test::context(), ops, {});
        const io::Image dev = p.run(noise);
        double worst = 0;
        for (int i = 0; i < w * h; ++i)
            worst = std::max(worst, std::fabs(dev.samples<unsigned short>()[i] - double(exact.samples<float>()[i])));
        const double allowed = spec.rfind("gaussian", 0) == 0 ? 1.5 : 0.51;
        EXPECT_LE(worst, allowed) << spec << ": further from double arithmetic than its fixed point allows";
    }
}

// The bench on a device without fp64: double rows are not dropped silently, they become rows that
// say why; float and mixed (double-float phase 2) run.
TEST(LibraryBench, DoubleRowsOnADeviceWithoutFp64SaySo) {
    (void)kRusticl;
    Context* ctx = test::rusticlContext();
    if (!ctx) GTEST_SKIP() << "no device without fp64 here (Mesa's rusticl on llvmpipe)";
    ASSERT_FALSE(ctx->device().fp64);
    BenchOptions o;
    std::vector<BenchRecord> out;
    EXPECT_TRUE(runsOn(*ctx, o, Precision::Float, "vector_sum", out));
    EXPECT_TRUE(runsOn(*ctx, o, Precision::Mixed, "vector_sum", out));
    EXPECT_FALSE(runsOn(*ctx, o, Precision::Double, "vector_sum", out));
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].workload, "vector_sum");
    EXPECT_EQ(out[0].precision, "double");
    EXPECT_NE(out[0].note.find("not run: the device has no fp64"), std::string::npos) << out[0].note;
    // Not wanted is not a row: --precision float runs no double or mixed row and says nothing of them.
    o.precisions = {Precision::Float};
    EXPECT_FALSE(runsOn(*ctx, o, Precision::Double, "vector_sum", out));
    EXPECT_FALSE(runsOn(*ctx, o, Precision::Mixed, "vector_sum", out));
    EXPECT_EQ(out.size(), 1u);
}

// A bench time is a measurement on every driver: where the events carry no times (rusticl numbers
// them 0, 1, 2, 3 ns), the host's clock. 4 MiB read and 2 MiB written cannot take under 10 us on a
// CPU device (600 GB/s), nor on the test device under 1 us.
TEST(LibraryBench, DeviceTimesAreMeasurementsWhereEventsCarryNoTimes) {
    BenchOptions o;
    o.warmups = 1;
    o.repeats = 3;
    const std::size_t n = 1 << 19;
    auto timed = [&](Context& ctx) {
        const std::vector<float> a(n, 1.0f);
        cl::Buffer da = ctx.upload(a, "a"), db = ctx.upload(a, "b"), dc = ctx.buffer(n * sizeof(float), "c");
        return medianDeviceSeconds(ctx, [&] { vectorSum(ctx, Precision::Float, da, db, dc, n); }, o);
    };
    EXPECT_GT(timed(test::context()), 1e-6);
    Context* rusticl = test::rusticlContext();
    if (!rusticl) GTEST_SKIP() << "Mesa's rusticl on llvmpipe is not installed";
    EXPECT_GT(timed(*rusticl), 1e-5);
}

// What a vendor's compiler prints by itself while a kernel builds (PoCL's clang: "2 warnings
// generated.") never reaches the caller's stdout or stderr; PORTACL_SHOW_BUILD_LOG hands it to the
// logger with the build log.
TEST(LibraryLog, CompilerOutputIsCapturedNotPrinted) {
    namespace fs = std::filesystem;
    const fs::path dir = testing::TempDir() + "portacl_warning_kernels";
    fs::remove_all(dir);
    fs::copy(fs::path(PORTACL_SOURCE_DIR) / "cl", dir, fs::copy_options::recursive);
    {
        std::ofstream k(dir / "vector_ops.cl", std::ios::app);
        // A source of its own each run, so that no compiler cache (PoCL keeps one) skips the compiler.
        k << "\n__kernel void portacl_warns(__global int* o) { int unused_value = 1.5; o[0] = 2.5; o[1] = "
          << std::chrono::steady_clock::now().time_since_epoch().count() % 1000000007 << "; }\n";
    }
    setenv("PORTACL_KERNEL_DIR", dir.c_str(), 1);
    setenv("PORTACL_SHOW_BUILD_LOG", "1", 1);
    std::string logged;
    const Logger previous = setLogger([&](LogLevel, const std::string& m) { logged += m + "\n"; });
    ContextOptions o;
    o.useDiskCache = false;
    Context ctx(test::context().device(), o);
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    cl::Kernel k = ctx.kernel("vector_ops.cl", "portacl_warns", Precision::Float);
    const std::string out = testing::internal::GetCapturedStdout(), err = testing::internal::GetCapturedStderr();
    setLogger(previous);
    unsetenv("PORTACL_SHOW_BUILD_LOG");
    unsetenv("PORTACL_KERNEL_DIR");
    fs::remove_all(dir);
    EXPECT_EQ(out, "") << "the compiler printed to stdout";
    EXPECT_EQ(err, "") << "the compiler printed to stderr";
    EXPECT_NE(logged.find("build log of vector_ops.cl"), std::string::npos) << logged;
}
