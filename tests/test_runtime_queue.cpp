// The runtime's queue and object facilities: cached kernels, non-blocking transfers that keep their
// host memory alive, copies, maps, sub-buffers, markers, per-type module state, growable buffers and
// the one exception family, the watchdog on device work. Each result is checked against the host
// data it was made from.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include <unistd.h>

#include "portacl/runtime/context.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/growable_buffer.hpp"
#include "support/test_support.hpp"

using namespace portacl;

static_assert(!std::is_copy_constructible_v<Context> && !std::is_move_constructible_v<Context>,
              "a Context is neither copied nor moved");

namespace {

std::vector<std::int32_t> iota(std::size_t n, std::int32_t first) {
    std::vector<std::int32_t> v(n);
    std::iota(v.begin(), v.end(), first);
    return v;
}

}  // namespace

TEST(Kernels, OneObjectPerProgramAndName) {
    Context& ctx = test::context();
    cl::Kernel& a = ctx.kernel("vector_ops.cl", "vector_sum", Precision::Float);
    cl::Kernel& b = ctx.kernel("vector_ops.cl", "vector_sum", Precision::Float);
    EXPECT_EQ(&a, &b);
    EXPECT_EQ(&a, &ctx.kernel(ctx.program("vector_ops.cl", Precision::Float), "vector_sum"));
    EXPECT_NE(&a, &ctx.kernel("vector_ops.cl", "stream_copy", Precision::Float));
    // A kernel of one's own is another OpenCL object.
    cl::Kernel own = ctx.newKernel("vector_ops.cl", "vector_sum", Precision::Float);
    EXPECT_NE(own(), a());
}

TEST(Kernels, ArgumentErrorsNameTheKernelAndTheArgument) {
    Context& ctx = test::context();
    cl::Kernel k = ctx.newKernel("vector_ops.cl", "vector_sum", Precision::Float);
    try {
        setArg(k, 9, cl_ulong(1));  // vector_sum has four arguments
        FAIL() << "expected an error";
    } catch (const ClError& e) {
        EXPECT_EQ(e.status(), CL_INVALID_ARG_INDEX) << e.what();
        EXPECT_NE(std::string(e.what()).find("vector_sum"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("argument 9"), std::string::npos) << e.what();
    }
}

TEST(Transfers, NonBlockingWriteOwnsItsHostData) {
    Context& ctx = test::context();
    const auto expected = iota(1 << 16, -7);
    cl::Buffer b = ctx.buffer(expected.size() * sizeof(std::int32_t), "owned write");
    ctx.writeAsync(b, std::vector<std::int32_t>(expected), "owned write");  // the caller keeps nothing
    EXPECT_EQ(ctx.download<std::int32_t>(b, expected.size(), "owned write"), expected);
}

TEST(Transfers, KeepAliveIsReleasedOnceTheWriteHasCompleted) {
    Context& ctx = test::context();
    auto host = std::make_shared<std::vector<std::int32_t>>(iota(4096, 3));
    const std::weak_ptr<std::vector<std::int32_t>> watch = host;
    cl::Buffer b = ctx.buffer(host->size() * sizeof(std::int32_t), "kept write");
    ctx.writeAsync(b, host->data(), host->size() * sizeof(std::int32_t), "kept write", host);
    const auto expected = *host;
    host.reset();  // only the context holds it now
    ctx.finish();
    EXPECT_TRUE(watch.expired());
    EXPECT_EQ(ctx.download<std::int32_t>(b, expected.size(), "kept write"), expected);
}

TEST(Transfers, CopyAndNonBlockingReadWithOffsets) {
    Context& ctx = test::context();
    const auto src = iota(1000, 100);
    cl::Buffer a = ctx.upload(src, "copy source");
    cl::Buffer b = ctx.buffer(src.size() * sizeof(std::int32_t), "copy target");
    ctx.fill(b, 0, src.size() * sizeof(std::int32_t), "clear copy target");
    // Elements 200..499 of a to 10..309 of b.
    ctx.copy(a, b, 300 * sizeof(std::int32_t), "copy", 200 * sizeof(std::int32_t), 10 * sizeof(std::int32_t));
    std::vector<std::int32_t> got(src.size(), -1);
    cl::Event read = ctx.readAsync(b, got.data(), got.size() * sizeof(std::int32_t), "read back");
    read.wait();
    for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(got[i], i >= 10 && i < 310 ? src[i - 10 + 200] : 0) << "element " << i;
}

TEST(Transfers, MapWriteUnmapThenRead) {
    Context& ctx = test::context();
    const std::size_t n = 512;
    cl::Buffer b = ctx.buffer(n * sizeof(std::int32_t), "mapped", CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
    auto* p = static_cast<std::int32_t*>(ctx.map(b, CL_MAP_WRITE, n * sizeof(std::int32_t), "map"));
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::int32_t>(3 * i + 1);
    ctx.unmap(b, p, "unmap");
    const auto got = ctx.download<std::int32_t>(b, n, "mapped");
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], static_cast<std::int32_t>(3 * i + 1));
}

// Memory shared with the host (sharedBuffer): on a CPU device its host address sees the device's
// writes and the device sees the host's, a sub-buffer's address is its window of the parent's, and
// a host task runs in queue order: after the command before it, before the one after it.
TEST(Transfers, SharedBufferAndHostTaskInQueueOrder) {
    Context& ctx = test::context();
    const std::size_t n = 4096, align = ctx.subBufferAlignment();
    cl::Buffer b = ctx.sharedBuffer(2 * n * sizeof(std::int32_t), "shared");
    void* host = ctx.hostAddress(b);
    if (!ctx.device().isCpu) {
        EXPECT_EQ(host, nullptr) << "a GPU's buffers are not the host's memory";
        GTEST_SKIP() << "the test device keeps its buffers apart from the host";
    }
    ASSERT_NE(host, nullptr) << "the CPU runtime copies USE_HOST_PTR memory (PoCL and Intel's use it in place)";
    EXPECT_EQ(ctx.hostAddress(ctx.buffer(64, "device only")), nullptr);
    ASSERT_EQ(align % sizeof(std::int32_t), 0u);
    cl::Buffer window = ctx.subBuffer(b, align, n * sizeof(std::int32_t), "window");
    EXPECT_EQ(ctx.hostAddress(window), static_cast<char*>(host) + align);
    const auto values = iota(2 * n, 5);
    ctx.write(b, values.data(), values.size() * sizeof(std::int32_t), "shared values");
    auto* p = static_cast<std::int32_t*>(host);
    for (std::size_t i = 0; i < 2 * n; ++i) ASSERT_EQ(p[i], values[i]) << "device write, element " << i;
    if (!ctx.runsHostTasks()) GTEST_SKIP() << "the test device runs no host functions";
    // Doubles the first n elements; the copy after it must see that, the write before it must be done.
    struct Args {
        std::int32_t* data;
        std::size_t count;
    };
    const Args args{p, n};
    ctx.fill(b, 0, n * sizeof(std::int32_t), "zero");
    ctx.write(b, values.data(), n * sizeof(std::int32_t), "values again");
    ctx.hostTask(+[](void* a) {
        const Args& t = *static_cast<const Args*>(a);
        for (std::size_t i = 0; i < t.count; ++i) t.data[i] *= 2;
    }, &args, sizeof args, "double on the host");
    cl::Buffer copy = ctx.buffer(n * sizeof(std::int32_t), "copy");
    ctx.copy(b, copy, n * sizeof(std::int32_t), "copy doubled");
    const auto got = ctx.download<std::int32_t>(copy, n, "copy");
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], 2 * values[i]) << "element " << i;
}

TEST(Transfers, SubBufferIsAWindowOfItsParent) {
    Context& ctx = test::context();
    const std::size_t align = ctx.subBufferAlignment();
    ASSERT_GT(align, 0u);
    const std::size_t words = align / sizeof(std::int32_t) + 64;
    cl::Buffer parent = ctx.buffer((words + 64) * sizeof(std::int32_t), "parent");
    ctx.fill(parent, 0, (words + 64) * sizeof(std::int32_t), "clear parent");
    cl::Buffer window = ctx.subBuffer(parent, align, 64 * sizeof(std::int32_t), "window");
    const auto values = iota(64, 1000);
    ctx.write(window, values.data(), values.size() * sizeof(std::int32_t), "write window");
    const auto all = ctx.download<std::int32_t>(parent, words + 64, "parent");
    const std::size_t first = align / sizeof(std::int32_t);
    for (std::size_t i = 0; i < all.size(); ++i)
        ASSERT_EQ(all[i], i >= first && i < first + 64 ? values[i - first] : 0) << "element " << i;
}

TEST(Transfers, MarkersAreRecordedAndLeftOutOfTimings) {
    Context ctx(test::context().device(), ContextOptions{true, true, true});
    cl::Buffer b = ctx.buffer(1024, "marked");
    ctx.beginTiming();
    ctx.fill(b, 1, 1024, "fill before marker");
    cl::Event m = ctx.marker("after fill");
    EXPECT_EQ(ctx.timedCount(), 1u);  // the fill, not the marker
    ctx.endTiming();
    EXPECT_EQ(m.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(), CL_COMPLETE);
    bool seen = false;
    for (const auto& row : ctx.profiler().summary())
        if (row.name == "after fill") seen = row.kind == EventKind::Marker && row.count == 1;
    EXPECT_TRUE(seen);
}

namespace first {
struct Scratch {
    int value = 1;
};
}  // namespace first
namespace second {
struct Scratch {
    double value = 2.5;
    std::vector<int> more = {1, 2, 3};
};
}  // namespace second

TEST(State, OnePerTypeEvenWhenNamesMatch) {
    Context ctx(test::context().device(), ContextOptions{false, false, false});
    first::Scratch& a = ctx.state<first::Scratch>();
    second::Scratch& b = ctx.state<second::Scratch>();
    EXPECT_NE(static_cast<void*>(&a), static_cast<void*>(&b));
    EXPECT_EQ(a.value, 1);
    EXPECT_EQ(b.value, 2.5);
    a.value = 7;
    EXPECT_EQ(ctx.state<first::Scratch>().value, 7);
    EXPECT_EQ(&ctx.state<second::Scratch>(), &b);
    EXPECT_EQ(ctx.stateHandle<second::Scratch>().get(), &b);
}

TEST(GrowableBuffers, ExactAndDoublingGrowth) {
    Context& ctx = test::context();
    GrowableBuffer exact;
    const cl_mem first = exact.reserve(ctx, 100, "exact")();
    EXPECT_EQ(exact.capacity(), 100u);
    EXPECT_EQ(exact.reserve(ctx, 60, "exact")(), first);  // fits: the same buffer
    exact.reserve(ctx, 101, "exact");
    EXPECT_EQ(exact.capacity(), 101u);
    EXPECT_EQ(exact.buffer().getInfo<CL_MEM_SIZE>(), 101u);

    GrowableBuffer doubling(CL_MEM_READ_WRITE, GrowableBuffer::Growth::Doubling);
    doubling.reserve(ctx, 100, "doubling");
    EXPECT_EQ(doubling.capacity(), 256u);
    doubling.reserve(ctx, 300, "doubling");
    EXPECT_EQ(doubling.capacity(), 512u);
    doubling.reserve(ctx, 2000, "doubling");
    EXPECT_EQ(doubling.capacity(), 2000u);
}

TEST(Errors, BuildErrorIsAClErrorWithItsStatus) {
    const auto dir = std::filesystem::temp_directory_path() / ("portacl-queue-kernels-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "broken_queue_test.cl") << "__kernel void broken(__global float* x) { x[0] = not_declared; }\n";
    setenv("PORTACL_KERNEL_DIR", dir.c_str(), 1);
    Context ctx(test::context().device(), ContextOptions{false, false, false});
    int status = CL_SUCCESS;
    try {
        ctx.program("broken_queue_test.cl", Precision::Float);
    } catch (const ClError& e) {
        status = e.status();
        EXPECT_NE(dynamic_cast<const BuildError*>(&e), nullptr);
    }
    unsetenv("PORTACL_KERNEL_DIR");
    std::filesystem::remove_all(dir);
    EXPECT_EQ(status, CL_BUILD_PROGRAM_FAILURE);
}

// ---- The watchdog (PORTACL_DEVICE_TIMEOUT), through the injected stall (PORTACL_DEVICE_FAULT) ----

namespace {

// Sets an environment variable for a scope, restoring what was there.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        const char* old = std::getenv(name);
        had_ = old != nullptr;
        if (had_) old_ = old;
        setenv(name, value, 1);
    }
    ~ScopedEnv() {
        if (had_) setenv(name_, old_.c_str(), 1);
        else unsetenv(name_);
    }

private:
    const char* name_;
    bool had_ = false;
    std::string old_;
};

}  // namespace

TEST(Watchdog, DeviceWorkThatCannotFinishEndsInOneSentence) {
    const DeviceInfo device = test::context().device();  // the shared context made before the settings
    const ScopedEnv timeout("PORTACL_DEVICE_TIMEOUT", "0.5"), fault("PORTACL_DEVICE_FAULT", "stall");
    Context ctx(device);
    const cl::Buffer b = ctx.buffer(64, "the watched buffer");
    ctx.fill(b, 7, 64, "fill");
    std::vector<unsigned char> host(64, 0);
    const auto start = std::chrono::steady_clock::now();
    try {
        ctx.read(b, host.data(), host.size(), "read back");
        FAIL() << "the read behind the stalled queue returned";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("device work did not finish within 0.5 s (PORTACL_DEVICE_TIMEOUT): read back was still waiting or running on ", 0), 0u)
            << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GE(waited, 0.5);
    EXPECT_LT(waited, 30.0);
    // The read that timed out never writes into the caller's memory, now or later.
    ctx.finish();
    EXPECT_EQ(host, std::vector<unsigned char>(64, 0));
    // The watchdog opened the injected gate: the queue drained, and the fill behind it ran.
    ctx.read(b, host.data(), host.size(), "read again");
    EXPECT_EQ(host, std::vector<unsigned char>(64, 7));
}

TEST(Watchdog, TheCommandLineEndsInOneSentenceAndANonZeroStatus) {
    const std::string err = testing::TempDir() + "portacl_watchdog_" + std::to_string(::getpid()) + ".txt";
    const int raw = std::system(("PORTACL_DEVICE_TIMEOUT=1 PORTACL_DEVICE_FAULT=stall " + std::string(PORTACL_CLI_PATH) +
                                 " vector-sum -n 1000 >/dev/null 2>" + err).c_str());
    std::ifstream in(err);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::remove(err.c_str());
    ASSERT_TRUE(WIFEXITED(raw)) << text;
    EXPECT_EQ(WEXITSTATUS(raw), 1) << text;
    // The last line, one sentence (a line saying which device `auto` chose may come before it).
    const auto at = text.find("portacl vector-sum: device work did not finish within 1 s (PORTACL_DEVICE_TIMEOUT): ");
    ASSERT_NE(at, std::string::npos) << text;
    EXPECT_EQ(text.find('\n', at), text.size() - 1) << text;
}

TEST(Watchdog, ItsSettingsAreChecked) {
    const DeviceInfo device = test::context().device();
    {
        const ScopedEnv timeout("PORTACL_DEVICE_TIMEOUT", "soon");
        try {
            Context ctx(device);
            FAIL();
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("PORTACL_DEVICE_TIMEOUT is 'soon'"), std::string::npos) << e.what();
        }
    }
    const ScopedEnv fault("PORTACL_DEVICE_FAULT", "crash");
    EXPECT_THROW(Context{device}, Error);
}
