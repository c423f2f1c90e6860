// One device's working set: its OpenCL context and in-order profiling queue, its tuning profile, its
// compiled programs (memory and disk cache), its profiler, and checked allocation and launches.
// Every workload takes a Context&.
#pragma once

#include "portacl/export.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "portacl/runtime/cl.hpp"
#include "portacl/runtime/device.hpp"
#include "portacl/runtime/kernel_args.hpp"
#include "portacl/runtime/precision.hpp"
#include "portacl/runtime/profiler.hpp"
#include "portacl/runtime/program_cache.hpp"
#include "portacl/runtime/tuning.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl {

struct PORTACL_API ContextOptions {
    bool useDiskCache = true;  // false with --no-cache or PORTACL_NO_CACHE=1
    bool profile = false;      // --profile: keep every event for the per-kernel table
    bool queueProfiling = true;  // event timestamps (benchmarks and --profile need them)
    // PORTACL_KEEP_BUFFERS=1: every device buffer lives until the context ends, so that no buffer
    // takes the place of a released one. For memory checkers: oclgrind 21.10 keeps the shadow of a
    // released buffer for the next one created in its place and reports that one's later bytes as
    // uninitialised (docs/portability.md).
    bool keepBuffers = false;
    // Host threads a workload's own pool on this context may keep busy (the Voronoi tracer's): the
    // members of a device set share the host's cores. 0: the workload's default (every usable core,
    // up to its own cap).
    unsigned hostThreads = 0;
};

class PORTACL_API Context {
public:
    explicit Context(const DeviceInfo& device, ContextOptions options = {});
    // A context of its own queue on the OpenCL context of `sibling`, a Context of the same device
    // (the members of a device set on one GPU: their kernels may run at once, the driver keeps one
    // context's memory and state, not one per member, and each program is built once for all).
    Context(const DeviceInfo& device, ContextOptions options, Context& sibling);
    // Waits for the queue before anything is freed: a transfer enqueued without waiting (a staged
    // upload, a sample block's read) may still be copying from or into host memory that the
    // module states own, and an exception can unwind past the code that would have waited.
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    // Events, cached kernels and module state refer to this object: it is not moved either.
    Context(Context&&) = delete;
    Context& operator=(Context&&) = delete;

    const DeviceInfo& device() const { return device_; }
    const cl::Context& clContext() const { return context_; }
    // The in-order queue, for libraries that enqueue on it themselves (the FFT backends); record
    // their events with recordEvent. Workloads use the calls below.
    cl::CommandQueue& queue() { return queue_; }
    const TuningProfile& tuning() const { return tuning_; }
    const ContextOptions& options() const { return options_; }
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
    // for the same work catch it). `generated`: code the host wrote for this build (a median
    // network, for instance), appended to the file's text.
    cl::Program program(const std::string& source, Precision element, const std::string& extraOptions = "",
                        const std::string& generated = "");

    // The kernel `name` of a program, one object per program and name for the life of the context:
    // creating it is paid once (and, by source, the program's source is read once per context). Its arguments are whatever was set last, so a caller sets every
    // argument (setArg, setArgs) before its launches; a kernel whose arguments are bound once and
    // kept across calls is made with newKernel instead.
    cl::Kernel& kernel(const cl::Program& program, const std::string& name);
    cl::Kernel& kernel(const std::string& source, const std::string& name, Precision element,
                       const std::string& extraOptions = "", const std::string& generated = "");
    // A kernel object of the caller's own (arguments bound once and kept).
    cl::Kernel newKernel(const std::string& source, const std::string& name, Precision element,
                         const std::string& extraOptions = "");

    // A device buffer; refuses (portacl::Error saying how much is needed and how much the device
    // has) before allocating when it cannot fit. `what` names the buffer in that sentence.
    cl::Buffer buffer(std::size_t bytes, const std::string& what, cl_mem_flags flags = CL_MEM_READ_WRITE);
    // Refuses a working set larger than the device's memory before anything is allocated.
    void checkFits(std::size_t totalBytes, const std::string& what) const;
    // Bytes [offset, offset + bytes) of `parent` as a buffer of its own; offset must be a multiple of
    // the device's sub-buffer alignment (subBufferAlignment).
    cl::Buffer subBuffer(const cl::Buffer& parent, std::size_t offset, std::size_t bytes, const std::string& what,
                         cl_mem_flags flags = CL_MEM_READ_WRITE);
    std::size_t subBufferAlignment() const;

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

    // Blocking transfers (fill: enqueued), recorded as named events; each returns its event. Under the
    // watchdog (PORTACL_DEVICE_TIMEOUT) write and read copy through memory the context owns, so one
    // whose wait runs out never touches the caller's memory after the throw.
    cl::Event write(const cl::Buffer& b, const void* src, std::size_t bytes, const std::string& name, std::size_t offset = 0);
    cl::Event read(const cl::Buffer& b, void* dst, std::size_t bytes, const std::string& name, std::size_t offset = 0);
    cl::Event fill(const cl::Buffer& b, unsigned char byte, std::size_t bytes, const std::string& name);

    // Non-blocking commands, recorded as named events like the blocking ones; each returns its event.
    // writeAsync: the context holds `keepAlive` (whatever owns src) until the write has completed, so
    // the memory cannot be freed under the queue; src must not change before then (a later blocking
    // call, finish() or the event's wait guarantees it).
    cl::Event writeAsync(const cl::Buffer& b, const void* src, std::size_t bytes, const std::string& name,
                         std::shared_ptr<const void> keepAlive, std::size_t offset = 0);
    // The same for host data the context takes over: it is freed once the write has completed.
    template <typename T>
    cl::Event writeAsync(const cl::Buffer& b, std::vector<T> host, const std::string& name, std::size_t offset = 0) {
        auto owned = std::make_shared<const std::vector<T>>(std::move(host));
        const void* src = owned->data();
        const std::size_t bytes = owned->size() * sizeof(T);  // before owned is moved into the call
        return writeAsync(b, src, bytes, name, std::move(owned), offset);
    }
    // dst must stay valid until the returned event has completed (wait on it, or finish()).
    cl::Event readAsync(const cl::Buffer& b, void* dst, std::size_t bytes, const std::string& name, std::size_t offset = 0);
    cl::Event copy(const cl::Buffer& src, const cl::Buffer& dst, std::size_t bytes, const std::string& name,
                   std::size_t srcOffset = 0, std::size_t dstOffset = 0);
    // Maps bytes [0, bytes) of b into host memory (blocking); unmap releases the mapping.
    void* map(const cl::Buffer& b, cl_map_flags flags, std::size_t bytes, const std::string& name);
    cl::Event unmap(const cl::Buffer& b, void* mapped, const std::string& name);
    // An event that completes when everything enqueued before it has.
    cl::Event marker(const std::string& name);
    // The commands enqueued after it wait for `events`, which may belong to another queue on the same
    // OpenCL context (a sibling Context's transfers, say); its event completes once they have.
    cl::Event barrier(const std::vector<cl::Event>& events, const std::string& name);

    // Memory the host and the device share in place, for host work on device buffers between
    // kernels (FFTW on a CPU device). On a device that runs CL_MEM_USE_HOST_PTR buffers on their own
    // host memory (checked once per context; CPU runtimes do), a USE_HOST_PTR buffer on page-aligned
    // memory the context allocates and the buffer's release frees; elsewhere
    // buffer(bytes, what, flags | CL_MEM_ALLOC_HOST_PTR). Sub-buffers of it share too.
    cl::Buffer sharedBuffer(std::size_t bytes, const std::string& what, cl_mem_flags flags = CL_MEM_READ_WRITE);
    // The host address of a shared buffer's memory (a sub-buffer's part of it), valid while the
    // buffer lives, for a hostTask to read and write; nullptr for a buffer the device keeps apart.
    void* hostAddress(const cl::Buffer& b);
    // Whether the device runs host functions among its commands (CL_EXEC_NATIVE_KERNEL).
    bool runsHostTasks() const;
    // Enqueues fn on a copy of the `bytes` of args (clEnqueueNativeKernel, no memory objects): it
    // runs on one of the device's threads once every command before it has completed, and the
    // commands after it wait for it, so the queue never waits for the host. fn must not throw or
    // enqueue work. Recorded as a kernel event named `name`.
    cl::Event hostTask(void(CL_CALLBACK* fn)(void*), const void* args, std::size_t bytes, const std::string& name);

    // Enqueues a kernel. `global` is rounded up to a multiple of `local` when local is given; the
    // kernel's name (CL_KERNEL_FUNCTION_NAME) labels the event.
    cl::Event launch(const cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local = cl::NullRange);
    // The same over the work-items offset + [0, global): get_global_id starts at `offset` (the kernel
    // checks its own upper bounds, since global is rounded up as above).
    cl::Event launch(const cl::Kernel& k, const cl::NDRange& offset, const cl::NDRange& global, const cl::NDRange& local);
    void finish();
    // Submits what the queue holds to the device without waiting for it (clFlush).
    void flush();
    // Waits for `e` (`what` names it in a message). The watchdog: with PORTACL_DEVICE_TIMEOUT=S set,
    // this wait, finish() and the blocking transfers end after S seconds in one sentence instead of
    // waiting for device work that cannot finish (a hung kernel, a lost device); the context then
    // frees nothing the device may still use. PORTACL_DEVICE_FAULT=stall holds every command of a
    // new context behind a gate that only the watchdog opens (the watchdog's test).
    void wait(const cl::Event& e, const std::string& what);
    double deviceTimeout() const { return deviceTimeout_; }  // seconds; 0: no limit

    // Asks the work running on this context, from any thread, to stop: its next kernel launch or
    // program build (a build in a child process is ended) first waits for what the queue holds, so
    // that no host memory is still in use, then throws WorkAbandoned; so does every launch until
    // requestStop(false). A kernel already running is not cut short. For the device set, which
    // stops the slower of two copies of an item.
    void requestStop(bool stop = true) { stop_ = stop; }
    bool stopRequested() const { return stop_; }

    // Records an event of work enqueued outside launch() (an FFT library, say).
    void recordEvent(const std::string& name, EventKind kind, const cl::Event& e);

    // Per-context state of a module (FFT plan cache, workload scratch buffers), one per type: created
    // on first use, destroyed with the context (after its queue has finished, before the OpenCL
    // context is released).
    template <typename T>
    T& state() {
        auto& slot = states_[std::type_index(typeid(T))];
        if (!slot) slot = std::make_shared<T>();
        return *static_cast<T*>(slot.get());
    }
    // The same state as a shared pointer (to keep it alive as writeAsync's keepAlive, say).
    template <typename T>
    std::shared_ptr<T> stateHandle() {
        state<T>();
        return std::static_pointer_cast<T>(states_[std::type_index(typeid(T))]);
    }

    // Device time of everything launched between begin and end: from the first start to the last end.
    void beginTiming();
    double endTiming();  // finishes the queue; seconds
    // The same, for each event recorded since beginTiming: its start and end in nanoseconds.
    std::size_t timedCount() const { return timed_.size(); }
    std::vector<std::pair<cl_ulong, cl_ulong>> endTimingSpans();  // finishes the queue

private:
    // The constructors' common part: the queue on context_ (and the test's stall gate).
    void makeQueue();
    // requestStop: waits for the queue, then throws WorkAbandoned.
    void stopIfRequested();
    // Releases the host memory of non-blocking transfers that have completed.
    void releaseCompletedTransfers();

    DeviceInfo device_;
    ContextOptions options_;
    cl::Context context_;
    cl::CommandQueue queue_;
    TuningProfile tuning_;
    Profiler profiler_;
    ProgramCache cache_;
    std::map<std::string, cl::Program> programs_;
    // The programs built on context_, shared with the Contexts made on it as siblings.
    struct SharedPrograms;
    std::shared_ptr<SharedPrograms> sharedPrograms_;
    std::vector<cl::Buffer> kept_;  // keepBuffers: every buffer made
    std::map<std::string, BuildError> compilerFailures_;  // builds whose compiler crashed or hung
    std::map<std::pair<cl_program, std::string>, std::pair<cl::Program, cl::Kernel>> kernels_;
    // The same kernels by source, name, precision and options: a lookup without building the
    // program's source (a workload that launches thousands of times asks on every launch).
    std::map<std::string, cl::Kernel*> kernelsBySource_;
    bool timing_ = false;
    std::vector<cl::Event> timed_;
    std::vector<std::pair<cl::Event, std::shared_ptr<const void>>> pendingTransfers_;
    double deviceTimeout_ = 0;  // PORTACL_DEVICE_TIMEOUT
    bool hung_ = false;         // a wait ran out of time: the queue may never drain
    std::atomic<bool> stop_{false};  // requestStop
    cl::UserEvent stall_;       // PORTACL_DEVICE_FAULT=stall: the gate before every command
    int hostInPlace_ = -1;      // sharedBuffer's check: -1 not yet made, else 0 or 1
    std::map<std::type_index, std::shared_ptr<void>> states_;  // declared last: destroyed first
};

// Seconds from the first start to the last end of spans[from .. to - 1] (endTimingSpans); 0 when none.
PORTACL_API double extentSeconds(const std::vector<std::pair<cl_ulong, cl_ulong>>& spans, std::size_t from, std::size_t to);

// Rounds n up to a multiple of m (m > 0).
inline std::size_t roundUp(std::size_t n, std::size_t m) { return (n + m - 1) / m * m; }

// Reads PORTACL_NO_CACHE and PORTACL_KEEP_BUFFERS into ContextOptions defaults.
PORTACL_API ContextOptions defaultContextOptions();

}  // namespace portacl
