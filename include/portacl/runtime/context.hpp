// One device's working set: its OpenCL context and in-order profiling queue, its tuning profile, its
// compiled programs (memory and disk cache), its profiler, and checked allocation and launches.
// Every workload takes a Context&.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "portacl/runtime/cl.hpp"
#include "portacl/runtime/device.hpp"
#include "portacl/runtime/precision.hpp"
#include "portacl/runtime/profiler.hpp"
#include "portacl/runtime/program_cache.hpp"
#include "portacl/runtime/tuning.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl {

struct ContextOptions {
    bool useDiskCache = true;  // false with --no-cache or PORTACL_NO_CACHE=1
    bool profile = false;      // --profile: keep every event for the per-kernel table
    bool queueProfiling = true;  // event timestamps (benchmarks and --profile need them)
    // PORTACL_KEEP_BUFFERS=1: every device buffer lives until the context ends, so that no buffer
    // takes the place of a released one. For memory checkers: oclgrind 21.10 keeps the shadow of a
    // released buffer for the next one created in its place and reports that one's later bytes as
    // uninitialised (docs/portability.md).
    bool keepBuffers = false;
};

class Context {
public:
    explicit Context(const DeviceInfo& device, ContextOptions options = {});
    // Waits for the queue before anything is freed: a transfer enqueued without waiting (a staged
    // upload, a sample block's read) may still be copying from or into host memory that the
    // module states own, and an exception can unwind past the code that would have waited.
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    const DeviceInfo& device() const { return device_; }
    const cl::Context& clContext() const { return context_; }
    cl::CommandQueue& queue() { return queue_; }
    const TuningProfile& tuning() const { return tuning_; }
    Profiler& profiler() { return profiler_; }
    ProgramCache& programCache() { return cache_; }

    // Throws portacl::Error ("... has no fp64 support") when the device cannot run this precision; with
    // mixedOffered (a two-phase workload), the sentence names mixed precision as the way out.
    void requirePrecision(Precision p, bool mixedOffered = false) const;

    // The program built from cl/<source> for one element precision (-D REAL=float|double), the
    // profile's build options and `extraOptions`. Built once per context; the binary comes from the
    // disk cache when it can; otherwise it is compiled in a child process first (isolated_build.hpp).
    // Throws BuildError with the log when the compiler rejects it, and BuildError with
    // compilerFailed() when the compiler crashes or hangs (one sentence; callers with another path
    // for the same work catch it).
    cl::Program program(const std::string& source, Precision element, const std::string& extraOptions = "");
    cl::Kernel kernel(const std::string& source, const std::string& kernelName, Precision element,
                      const std::string& extraOptions = "");

    // A device buffer; refuses (portacl::Error saying how much is needed and how much the device
    // has) before allocating when it cannot fit. `what` names the buffer in that sentence.
    cl::Buffer buffer(std::size_t bytes, const std::string& what, cl_mem_flags flags = CL_MEM_READ_WRITE);
    // Refuses a working set larger than the device's memory before anything is allocated.
    void checkFits(std::size_t totalBytes, const std::string& what) const;

    template <typename T>
    cl::Buffer upload(const std::vector<T>& host, const std::string& what, cl_mem_flags flags = CL_MEM_READ_WRITE) {
        cl::Buffer b = buffer(host.size() * sizeof(T), what, flags);
        if (!host.empty()) write(b, host.data(), host.size() * sizeof(T), "upload " + what);
        return b;
    }
    template <typename T>
    std::vector<T> download(const cl::Buffer& b, std::size_t count, const std::string& what) {
        std::vector<T> host(count);
        if (count) read(b, host.data(), count * sizeof(T), "download " + what);
        return host;
    }

    // Blocking transfers, recorded as named events.
    void write(const cl::Buffer& b, const void* src, std::size_t bytes, const std::string& name, std::size_t offset = 0);
    void read(const cl::Buffer& b, void* dst, std::size_t bytes, const std::string& name, std::size_t offset = 0);
    void fill(const cl::Buffer& b, unsigned char byte, std::size_t bytes, const std::string& name);

    // Enqueues a kernel. `global` is rounded up to a multiple of `local` when local is given; the
    // kernel's name (CL_KERNEL_FUNCTION_NAME) labels the event.
    cl::Event launch(const cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local = cl::NullRange);
    void finish();

    // Records an event of work enqueued outside launch() (an FFT library, say).
    void recordEvent(const std::string& name, EventKind kind, const cl::Event& e);

    // Per-context state of a module (FFT plan cache, workload scratch buffers): created on first use,
    // destroyed with the context (before the OpenCL context is released).
    template <typename T>
    T& state(const std::string& key) {
        auto& slot = states_[key];
        if (!slot) slot = std::make_shared<T>();
        return *static_cast<T*>(slot.get());
    }

    // Device time of everything launched between begin and end: from the first start to the last end.
    void beginTiming();
    double endTiming();  // finishes the queue; seconds
    // The same, for each event recorded since beginTiming: its start and end in nanoseconds.
    std::size_t timedCount() const { return timed_.size(); }
    std::vector<std::pair<cl_ulong, cl_ulong>> endTimingSpans();  // finishes the queue

private:
    DeviceInfo device_;
    ContextOptions options_;
    cl::Context context_;
    cl::CommandQueue queue_;
    TuningProfile tuning_;
    Profiler profiler_;
    ProgramCache cache_;
    std::map<std::string, cl::Program> programs_;
    std::vector<cl::Buffer> kept_;  // keepBuffers: every buffer made
    std::map<std::string, BuildError> compilerFailures_;  // builds whose compiler crashed or hung
    bool timing_ = false;
    std::vector<cl::Event> timed_;
    std::map<std::string, std::shared_ptr<void>> states_;  // declared last: destroyed first
};

// Seconds from the first start to the last end of spans[from .. to - 1] (endTimingSpans); 0 when none.
double extentSeconds(const std::vector<std::pair<cl_ulong, cl_ulong>>& spans, std::size_t from, std::size_t to);

// Rounds n up to a multiple of m (m > 0).
inline std::size_t roundUp(std::size_t n, std::size_t m) { return (n + m - 1) / m * m; }

// Reads PORTACL_NO_CACHE and PORTACL_KEEP_BUFFERS into ContextOptions defaults.
ContextOptions defaultContextOptions();

}  // namespace portacl
