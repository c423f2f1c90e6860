#include "portacl/runtime/context.hpp"

#include "address_space_limit.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "portacl/runtime/batch_phases.hpp"
#include "portacl/runtime/buffer_check.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/log.hpp"
#include "portacl/runtime/progress.hpp"
#include "portacl/runtime/isolated_build.hpp"
#include "runtime/output_capture.hpp"
#include "portacl/runtime/kernel_source.hpp"

namespace portacl {

namespace {

// Build options without those that let the compiler fuse or reassociate floating-point operations.
std::string withoutContraction(const std::string& options) {
    std::istringstream in(options);
    std::string out, word;
    while (in >> word)
        if (word != "-cl-mad-enable" && word != "-cl-unsafe-math-optimizations" && word != "-cl-fast-relaxed-math")
            out += (out.empty() ? "" : " ") + word;
    return out;
}

std::string humanBytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        ++u;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f %s", bytes, units[u]);
    return buf;
}

std::string buildLog(const cl::Program& p, const cl::Device& d) {
    try {
        return p.getBuildInfo<CL_PROGRAM_BUILD_LOG>(d);
    } catch (const cl::Error&) {
        return "(no build log available)";
    }
}

}  // namespace

ContextOptions defaultContextOptions() {
    ContextOptions o;
    if (const char* v = std::getenv("PORTACL_NO_CACHE"); v && *v && std::string(v) != "0") o.useDiskCache = false;
    if (const char* v = std::getenv("PORTACL_KEEP_BUFFERS"); v && *v && std::string(v) != "0") o.keepBuffers = true;
    return o;
}

namespace {

// PORTACL_DEVICE_TIMEOUT: seconds that one wait for device work may take (0 or unset: no limit).
double deviceTimeoutFromEnvironment() {
    const char* v = std::getenv("PORTACL_DEVICE_TIMEOUT");
    if (!v || !*v) return 0;
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (end == v || *end || !std::isfinite(s) || s < 0 || s > 1e6)
        throw Error(std::string("PORTACL_DEVICE_TIMEOUT is '") + v +
                    "'; it takes the seconds a wait for device work may last, from 0 (no limit) to 1000000");
    return s;
}

bool stallRequested() {
    const char* v = std::getenv("PORTACL_DEVICE_FAULT");
    if (!v || !*v) return false;
    if (std::string(v) != "stall")
        throw Error(std::string("PORTACL_DEVICE_FAULT is '") + v + "'; the one fault it injects is 'stall'");
    return true;
}

std::string secondsText(double s) {
    std::ostringstream out;
    out << s;
    return out.str();
}

}  // namespace

// One build of each program for every Context on one OpenCL context: the first to need it builds it
// (the others wait under the lock rather than build it again), and each keeps it in its own memo.
struct Context::SharedPrograms {
    std::mutex mutex;
    std::map<std::string, cl::Program> programs;
};

Context::Context(const DeviceInfo& device, ContextOptions options) : device_(device), options_(options), tuning_(tuningFor(device)) {
    context_ = clCall("clCreateContext", [&] { return cl::Context(device_.device); });
    sharedPrograms_ = std::make_shared<SharedPrograms>();
    makeQueue();
}

Context::Context(const DeviceInfo& device, ContextOptions options, Context& sibling)
    : device_(device), options_(options), tuning_(tuningFor(device)) {
    if (sibling.device_.device() != device_.device())
        throw Error("internal error: a context shared between " + sibling.device_.label() + " and " + device_.label());
    context_ = sibling.context_;
    sharedPrograms_ = sibling.sharedPrograms_;
    makeQueue();
}

void Context::makeQueue() {
    deviceTimeout_ = deviceTimeoutFromEnvironment();
    const bool stall = stallRequested();
    queue_ = clCall("clCreateCommandQueue",
                    [&] { return cl::CommandQueue(context_, device_.device, options_.queueProfiling || options_.profile ? CL_QUEUE_PROFILING_ENABLE : 0); });
    profiler_.setEnabled(options_.profile);
    if (stall) {
        stall_ = clCall("clCreateUserEvent", [&] { return cl::UserEvent(context_); });
        const std::vector<cl::Event> gate{stall_};
        clCall("clEnqueueBarrierWithWaitList", [&] { return queue_.enqueueBarrierWithWaitList(&gate); });
    }
}

Context::~Context() {
    if (hung_) {
        // Device work that did not finish may still use the module states' memory, and releasing the
        // queue would wait for it: all of it is left to the process's exit.
        new auto(std::move(states_));
        new auto(std::move(pendingTransfers_));
        new cl::CommandQueue(queue_);
        new cl::Context(context_);
        return;
    }
    if (stall_()) {
        try {
            stall_.setStatus(CL_COMPLETE);  // no wait ran out: open the gate so that the queue drains
        } catch (...) {
        }
    }
    // Commands still queued may read host memory this context keeps alive (non-blocking writes from
    // module state): they finish before any of it is released.
    try {
        if (queue_()) queue_.finish();
    } catch (...) {  // a failed queue has nothing left to copy
    }
    pendingTransfers_.clear();
    states_.clear();
}

void Context::requirePrecision(Precision p, bool mixedOffered) const {
    if (p != Precision::Float && !device_.fp64)
        throw Error("the device " + device_.label() + " has no fp64 support (cl_khr_fp64), so " +
                    precisionName(p) + " precision cannot run on it; use " +
                    (mixedOffered ? "mixed precision (double-float where float cannot decide) or float" : "float precision"));
}

void Context::stopIfRequested() {
    if (!stop_) return;
    try {
        finish();  // nothing enqueued may still use host memory that unwinding frees
    } catch (const std::exception&) {
    }
    throw WorkAbandoned("the work on " + device_.label() + " was stopped (another device finished it first)");
}

cl::Program Context::program(const std::string& sourceName, Precision element, const std::string& extraOptions,
                             const std::string& generated) {
    stopIfRequested();
    requirePrecision(element);
    std::string options = std::string("-D REAL=") + realTypeName(element) +
                          " -D PORTACL_DOUBLE=" + (element == Precision::Double ? "1" : "0");
    // The device's vendor, for kernels whose correctness (not only speed) needs a vendor path.
    if (device_.isNvidia()) options += " -D PORTACL_DEVICE_NVIDIA=1";
    std::string profileOptions = tuning_.buildOptions();
    // Double-float code (common/double_float.h) needs every operation rounded once: no a * b + c
    // fused into a mad by the profile's options.
    if (extraOptions.find("PORTACL_DOUBLE_FLOAT=1") != std::string::npos) profileOptions = withoutContraction(profileOptions);
    if (!profileOptions.empty()) options += " " + profileOptions;
    if (!extraOptions.empty()) options += " " + extraOptions;

    const std::string source = kernelSource(sourceName) + generated;
    const std::string memoKey = sourceName + "\n" + options + "\n" + std::to_string(fnv1a64(source));
    if (auto it = programs_.find(memoKey); it != programs_.end()) return it->second;
    PhaseScope buildPhase(BatchPhase::Build);
    std::lock_guard<std::mutex> sharedLock(sharedPrograms_->mutex);
    if (auto it = sharedPrograms_->programs.find(memoKey); it != sharedPrograms_->programs.end())
        return programs_[memoKey] = it->second;
    const auto remember = [&](const cl::Program& p) {
        programs_[memoKey] = p;
        sharedPrograms_->programs[memoKey] = p;
    };

    const std::vector<cl::Device> devices{device_.device};
    const std::string cacheKey = ProgramCache::key(device_, source, options);
    if (options_.useDiskCache) {
        if (auto binary = cache_.load(cacheKey)) {
            try {
                cl::Program::Binaries bins{*binary};
                cl::Program p(context_, devices, bins);
                p.build(devices, options.c_str());
                remember(p);
                return p;
            } catch (const cl::Error&) {
                // A stale or foreign binary: compile from source below.
            }
        }
    }

    // A program this driver has not built before (the disk cache does not hold it) is compiled in a
    // child process first: a compiler that crashes or hangs ends the child, and the caller gets one
    // sentence and may take another path.
    if (auto failed = compilerFailures_.find(memoKey); failed != compilerFailures_.end()) throw failed->second;
    // A compiler crash is remembered beside the cache entry it would have made (the key holds the
    // driver's version, so a new driver tries again); a timeout is not, as a loaded machine can cause it.
    const std::string crashMarker = cache_.pathFor(cacheKey) + ".crashed";
    // Out of host memory in the compiler: the same build in this process, or another path's, would
    // run out too (and a std::bad_alloc thrown through the runtime's C code may leave its locks
    // held). Under an address-space limit a compiler that crashes has most likely run into the
    // limit: that is said, and nothing is remembered against the driver.
    const auto compilerOutOfMemory = [&](const std::string& what) {
        return Error("building the kernels of " + sourceName + " on " + device_.label() + ": " + what + addressSpaceLimitNote());
    };
    const auto compilerFailure = [&](const std::string& what) {
        const BuildError e = BuildError::compilerFailure(
            sourceName, device_.platformName + " (driver " + device_.driverVersion + ")", device_.label(), options, what);
        compilerFailures_.emplace(memoKey, e);
        return e;
    };
    if (options_.useDiskCache && isolatedBuildsEnabled()) {
        std::ifstream marker(crashMarker);
        std::string what;
        if (marker && std::getline(marker, what) && !what.empty()) throw compilerFailure(what + " (remembered; `portacl cache clear` retries)");
    }
    if (isolatedBuildsEnabled()) {
        Progress building("building kernels of " + sourceName + " (cached afterwards)", 0, "done");
        const IsolatedBuild built = buildInChildProcess(device_, source, options, isolatedBuildTimeout(), &stop_);
        using Outcome = IsolatedBuild::Outcome;
        if (built.outcome == Outcome::Stopped) stopIfRequested();
        if (built.outcome == Outcome::OutOfMemory) throw compilerOutOfMemory("the compiler ran out of host memory");
        if (built.outcome == Outcome::Crashed && addressSpaceLimit())
            throw compilerOutOfMemory("the compiler " + built.detail + ", most likely for want of memory,");
        // PoCL rejects a build whose compiler ran out of memory with no diagnostic in its log.
        if (built.outcome == Outcome::Rejected && addressSpaceLimit() && built.log.find("error") == std::string::npos)
            throw compilerOutOfMemory("the compiler failed without a diagnostic, most likely for want of memory,");
        if (built.outcome == Outcome::Rejected)
            throw BuildError(CL_BUILD_PROGRAM_FAILURE, sourceName, device_.label(), options, built.log);
        if (built.outcome == Outcome::Crashed && options_.useDiskCache) {
            std::error_code ec;
            std::filesystem::create_directories(ProgramCache::directory(), ec);
            std::ofstream(crashMarker) << built.detail << "\n";
        }
        if (built.outcome == Outcome::Crashed || built.outcome == Outcome::TimedOut) throw compilerFailure(built.detail);
        if (built.outcome == Outcome::Built && !built.binary.empty()) {
            try {
                cl::Program::Binaries bins{built.binary};
                cl::Program p(context_, devices, bins);
                p.build(devices, options.c_str());
                if (const char* show = std::getenv("PORTACL_SHOW_BUILD_LOG"); show && *show && std::string(show) != "0")
                    log(LogLevel::Info, "build log of " + sourceName + " [" + options + "] on " + device_.label() + ":\n" + built.log + built.output);
                if (options_.useDiskCache) cache_.store(cacheKey, built.binary);
                remember(p);
                return p;
            } catch (const cl::Error&) {
                // The driver does not take back its own binary: compile from source below.
            }
        }
        // Built without a binary to hand over, or no worker for this device: the compiler has not
        // crashed on this source (or cannot be isolated), so compile here.
    }

    cl::Program p = clCall("clCreateProgramWithSource", [&] { return cl::Program(context_, source); });
    // A build from source can take seconds to a minute (the disk cache makes later runs fast): say so
    // on the progress line. What the compiler prints by itself is captured, not shown.
    Progress building("building kernels of " + sourceName + " (cached afterwards)", 0, "done");
    std::string compilerOutput;
    try {
        detail::OutputCapture capture;
        try {
            p.build(devices, options.c_str());
        } catch (const std::bad_alloc&) {
            new cl::Program(std::move(p));  // never released: the runtime's locks may be held
            throw compilerOutOfMemory("the compiler ran out of host memory");
        } catch (...) {
            compilerOutput = capture.finish();
            throw;
        }
        compilerOutput = capture.finish();
    } catch (const cl::Error& e) {
        if (e.err() == CL_BUILD_PROGRAM_FAILURE || e.err() == CL_INVALID_BUILD_OPTIONS)
            throw BuildError(e.err(), sourceName, device_.label(), options, buildLog(p, device_.device) + compilerOutput);
        throw ClError(e.err(), "clBuildProgram(" + sourceName + ")");
    }
    // PORTACL_SHOW_BUILD_LOG=1 sends the compiler's log of successful builds to the logger too (with
    // NVIDIA's -cl-nv-verbose it reports registers and spills per kernel).
    if (const char* show = std::getenv("PORTACL_SHOW_BUILD_LOG"); show && *show && std::string(show) != "0")
        log(LogLevel::Info, "build log of " + sourceName + " [" + options + "] on " + device_.label() + ":\n" +
                                buildLog(p, device_.device) + compilerOutput);
    if (options_.useDiskCache) {
        try {
            auto bins = p.getInfo<CL_PROGRAM_BINARIES>();
            if (!bins.empty() && !bins.front().empty()) cache_.store(cacheKey, bins.front());
        } catch (const cl::Error&) {
            // Devices that cannot return binaries simply are not cached.
        }
    }
    remember(p);
    return p;
}

cl::Kernel& Context::kernel(const cl::Program& program, const std::string& name) {
    const auto key = std::make_pair(program(), name);
    auto it = kernels_.find(key);
    if (it == kernels_.end()) {
        cl::Kernel k = clCall(("clCreateKernel(" + name + ")").c_str(), [&] { return cl::Kernel(program, name.c_str()); });
        it = kernels_.emplace(key, std::make_pair(program, std::move(k))).first;
    }
    return it->second.second;
}

cl::Kernel& Context::kernel(const std::string& source, const std::string& name, Precision element,
                            const std::string& extraOptions, const std::string& generated) {
    std::string key;
    key.reserve(source.size() + name.size() + extraOptions.size() + 8);
    key.append(source).append(1, '\n').append(name).append(1, '\n').append(std::to_string(static_cast<int>(element)));
    key.append(1, '\n').append(extraOptions);
    if (!generated.empty()) key.append(1, '\n').append(std::to_string(fnv1a64(generated)));
    auto it = kernelsBySource_.find(key);
    if (it != kernelsBySource_.end()) return *it->second;
    cl::Kernel& k = kernel(program(source, element, extraOptions, generated), name);
    kernelsBySource_.emplace(std::move(key), &k);
    return k;
}

cl::Kernel Context::newKernel(const std::string& source, const std::string& name, Precision element,
                              const std::string& extraOptions) {
    cl::Program p = program(source, element, extraOptions);
    return clCall(("clCreateKernel(" + name + ")").c_str(), [&] { return cl::Kernel(p, name.c_str()); });
}

namespace {

// What the runtime itself maps after the check, under an address-space limit: PoCL's per-buffer
// padding, its worker threads' stacks, compiled code. Without it a limit that leaves the buffers'
// bytes and a few MiB more passes the check, and PoCL then aborts.
constexpr std::uint64_t kAddressSpaceReserve = 64ull << 20;

// A CPU device's memory is the host's, and what it can have is what the host has free now: the
// kernel's MemAvailable, and under an address-space limit (ulimit -v) that limit less what the
// process has mapped and the reserve above. PoCL takes a buffer's memory at its first use and
// aborts when it cannot, so a run that does not fit must be refused before its buffers exist.
std::uint64_t hostMemoryAvailable() {
    std::uint64_t available = std::numeric_limits<std::uint64_t>::max();
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    while (meminfo >> key >> kib) {
        if (key == "MemAvailable:") {
            available = kib * 1024;
            break;
        }
        meminfo.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    std::uint64_t pages = 0;
    if (const auto limit = addressSpaceLimit(); limit && (std::ifstream("/proc/self/statm") >> pages)) {
        const std::uint64_t used = pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) + kAddressSpaceReserve;
        available = std::min<std::uint64_t>(available, *limit > used ? *limit - used : 0);
    }
    return available;
}

// hostMemoryAvailable reads /proc/meminfo, about 12 us: more than a small call's device work on a
// CPU device, which checks several times per call. A reading younger than 0.5 s is a budget: a
// request of at most a quarter of what is left of it is taken from it without reading again; a
// larger request, an older reading, or a process under an address-space limit (whose mappings the
// reading counts) reads afresh, so that a refusal always rests on a fresh reading.
bool hostMemoryFits(std::uint64_t bytes, std::uint64_t* freshFree) {
    using Clock = std::chrono::steady_clock;
    static std::mutex mutex;
    static std::uint64_t budget = 0;  // 0 under an address-space limit: every request reads afresh
    static Clock::time_point lastRead;
    const Clock::time_point now = Clock::now();
    std::lock_guard<std::mutex> lock(mutex);
    if (now - lastRead < std::chrono::milliseconds(500) && bytes <= budget / 4) {
        budget -= bytes;
        return true;
    }
    const std::uint64_t free = hostMemoryAvailable();
    budget = addressSpaceLimit() ? 0 : free;
    lastRead = now;
    *freshFree = free;
    return bytes <= free;
}

}  // namespace

void Context::checkFits(std::size_t totalBytes, const std::string& what) const {
    if (totalBytes > device_.globalMemBytes)
        throw Error(what + " needs " + humanBytes(static_cast<double>(totalBytes)) + " of device memory, but " +
                    device_.label() + " has " + humanBytes(static_cast<double>(device_.globalMemBytes)));
    if (std::uint64_t free = 0; device_.isCpu && !hostMemoryFits(totalBytes, &free))
        throw Error(what + " needs " + humanBytes(static_cast<double>(totalBytes)) + " of memory on the CPU device " +
                    device_.label() + ", but the host has " + humanBytes(static_cast<double>(free)) + " free");
}

cl::Buffer Context::buffer(std::size_t bytes, const std::string& what, cl_mem_flags flags) {
    if (bytes > device_.maxAllocBytes)
        throw Error(what + " needs one buffer of " + humanBytes(static_cast<double>(bytes)) + ", but " +
                    device_.label() + " allows at most " + humanBytes(static_cast<double>(device_.maxAllocBytes)) +
                    " per buffer");
    checkFits(bytes, what);
    cl::Buffer b = clCall(("clCreateBuffer(" + what + ")").c_str(),
                          [&] { return cl::Buffer(context_, flags, std::max<std::size_t>(bytes, 1)); });
    if (options_.keepBuffers) kept_.push_back(b);
    return b;
}

cl::Event Context::write(const cl::Buffer& b, const void* src, std::size_t bytes, const std::string& name,
                    std::size_t offset) {
    requireBytes(b, offset + bytes, std::to_string(bytes) + " bytes written at offset " + std::to_string(offset), "the buffer of " + name);
    if (deviceTimeout_ > 0) {
        // With the watchdog on, a transfer whose wait runs out may still run after the caller has
        // freed src: it copies from memory the context keeps until the write is done.
        const auto* first = static_cast<const unsigned char*>(src);
        auto staged = std::make_shared<const std::vector<unsigned char>>(first, first + bytes);
        const void* from = staged->data();
        cl::Event e = writeAsync(b, from, bytes, name, std::move(staged), offset);
        wait(e, name);
        return e;
    }
    cl::Event e;
    {
        PhaseScope waiting(BatchPhase::Device);
        clCall("clEnqueueWriteBuffer", [&] { return queue_.enqueueWriteBuffer(b, CL_TRUE, offset, bytes, src, nullptr, &e); });
    }
    recordEvent(name, EventKind::Transfer, e);
    return e;
}

cl::Event Context::read(const cl::Buffer& b, void* dst, std::size_t bytes, const std::string& name, std::size_t offset) {
    requireBytes(b, offset + bytes, std::to_string(bytes) + " bytes read at offset " + std::to_string(offset), "the buffer of " + name);
    if (deviceTimeout_ > 0) {
        // The same for a read: one whose wait runs out writes into the context's memory, not dst.
        releaseCompletedTransfers();
        auto staged = std::make_shared<std::vector<unsigned char>>(bytes);
        cl::Event e = readAsync(b, staged->data(), bytes, name, offset);
        pendingTransfers_.emplace_back(e, staged);
        wait(e, name);
        std::copy(staged->begin(), staged->end(), static_cast<unsigned char*>(dst));
        return e;
    }
    cl::Event e;
    {
        PhaseScope waiting(BatchPhase::Device);
        clCall("clEnqueueReadBuffer", [&] { return queue_.enqueueReadBuffer(b, CL_TRUE, offset, bytes, dst, nullptr, &e); });
    }
    recordEvent(name, EventKind::Transfer, e);
    return e;
}

// NVIDIA's driver (580.159, checked on an H200) mishandles clEnqueueFillBuffer at 2 GiB: one fill of
// exactly 2 GiB never finished (a 1024^3 k-Wave slab's field), and every fill of a buffer larger than
// 2 GiB broke the queue, whatever its pieces. So fills go in pieces of at most 1 GiB below 2 GiB, and
// the bytes past 2 GiB are written from a block of the pattern on the host. The queue is in order, so
// the last piece's event is the whole fill's.
cl::Event Context::fill(const cl::Buffer& b, unsigned char byte, std::size_t bytes, const std::string& name) {
    constexpr std::size_t kPiece = std::size_t(1) << 30, kFillEnd = std::size_t(1) << 31, kBlock = std::size_t(64) << 20;
    const std::size_t filled = bytes > kFillEnd ? kFillEnd : bytes;
    cl::Event e;
    for (std::size_t offset = 0; offset < filled || offset == 0; offset += kPiece) {
        const std::size_t piece = std::min(kPiece, filled - offset);
        clCall("clEnqueueFillBuffer", [&] { return queue_.enqueueFillBuffer(b, byte, offset, piece, nullptr, &e); });
        recordEvent(name, EventKind::Transfer, e);
    }
    if (bytes > kFillEnd) {
        const std::vector<unsigned char> pattern(std::min(kBlock, bytes - kFillEnd), byte);
        for (std::size_t offset = kFillEnd; offset < bytes; offset += pattern.size())
            e = write(b, pattern.data(), std::min(pattern.size(), bytes - offset), name, offset);
    }
    return e;
}

std::size_t Context::subBufferAlignment() const {
    const cl_uint bits = clCall("clGetDeviceInfo(CL_DEVICE_MEM_BASE_ADDR_ALIGN)",
                                [&] { return device_.device.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>(); });
    return std::max<std::size_t>(1, bits / 8);
}

cl::Buffer Context::subBuffer(const cl::Buffer& parent, std::size_t offset, std::size_t bytes, const std::string& what,
                              cl_mem_flags flags) {
    cl_buffer_region region{offset, bytes};
    cl_int err = CL_SUCCESS;
    cl::Buffer b = clCall(("clCreateSubBuffer(" + what + ")").c_str(), [&] {
        return cl::Buffer(parent).createSubBuffer(flags, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    });
    if (err != CL_SUCCESS) throw ClError(err, "clCreateSubBuffer(" + what + ")");
    return b;
}

void Context::releaseCompletedTransfers() {
    auto done = [](const std::pair<cl::Event, std::shared_ptr<const void>>& w) {
        cl_int status = CL_QUEUED;
        try {
            w.first.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status);
        } catch (const cl::Error&) {
            return false;  // kept until finish()
        }
        return status <= CL_COMPLETE;  // complete, or ended by an error: the queue no longer reads it
    };
    pendingTransfers_.erase(std::remove_if(pendingTransfers_.begin(), pendingTransfers_.end(), done), pendingTransfers_.end());
}

cl::Event Context::writeAsync(const cl::Buffer& b, const void* src, std::size_t bytes, const std::string& name,
                              std::shared_ptr<const void> keepAlive, std::size_t offset) {
    releaseCompletedTransfers();
    requireBytes(b, offset + bytes, std::to_string(bytes) + " bytes written at offset " + std::to_string(offset), "the buffer of " + name);
    cl::Event e;
    clCall("clEnqueueWriteBuffer", [&] { return queue_.enqueueWriteBuffer(b, CL_FALSE, offset, bytes, src, nullptr, &e); });
    recordEvent(name, EventKind::Transfer, e);
    if (keepAlive) pendingTransfers_.emplace_back(e, std::move(keepAlive));
    return e;
}

cl::Event Context::readAsync(const cl::Buffer& b, void* dst, std::size_t bytes, const std::string& name, std::size_t offset) {
    requireBytes(b, offset + bytes, std::to_string(bytes) + " bytes read at offset " + std::to_string(offset), "the buffer of " + name);
    cl::Event e;
    clCall("clEnqueueReadBuffer", [&] { return queue_.enqueueReadBuffer(b, CL_FALSE, offset, bytes, dst, nullptr, &e); });
    recordEvent(name, EventKind::Transfer, e);
    return e;
}

cl::Event Context::copy(const cl::Buffer& src, const cl::Buffer& dst, std::size_t bytes, const std::string& name,
                        std::size_t srcOffset, std::size_t dstOffset) {
    cl::Event e;
    clCall("clEnqueueCopyBuffer", [&] { return queue_.enqueueCopyBuffer(src, dst, srcOffset, dstOffset, bytes, nullptr, &e); });
    recordEvent(name, EventKind::Transfer, e);
    return e;
}

void* Context::map(const cl::Buffer& b, cl_map_flags flags, std::size_t bytes, const std::string& name) {
    cl::Event e;
    cl_int err = CL_SUCCESS;
    const cl_bool blocking = deviceTimeout_ > 0 ? CL_FALSE : CL_TRUE;
    void* host = nullptr;
    {
        std::optional<PhaseScope> waiting;
        if (blocking) waiting.emplace(BatchPhase::Device);
        host = clCall("clEnqueueMapBuffer", [&] { return queue_.enqueueMapBuffer(b, blocking, flags, 0, bytes, nullptr, &e, &err); });
    }
    if (err != CL_SUCCESS) throw ClError(err, "clEnqueueMapBuffer(" + name + ")");
    recordEvent(name, EventKind::Transfer, e);
    if (!blocking) wait(e, name);
    return host;
}

cl::Event Context::unmap(const cl::Buffer& b, void* mapped, const std::string& name) {
    cl::Event e;
    clCall("clEnqueueUnmapMemObject", [&] { return queue_.enqueueUnmapMemObject(b, mapped, nullptr, &e); });
    recordEvent(name, EventKind::Transfer, e);
    return e;
}

cl::Event Context::marker(const std::string& name) {
    cl::Event e;
    clCall("clEnqueueMarkerWithWaitList", [&] { return queue_.enqueueMarkerWithWaitList(nullptr, &e); });
    recordEvent(name, EventKind::Marker, e);
    return e;
}

cl::Event Context::barrier(const std::vector<cl::Event>& events, const std::string& name) {
    cl::Event e;
    clCall("clEnqueueBarrierWithWaitList", [&] { return queue_.enqueueBarrierWithWaitList(events.empty() ? nullptr : &events, &e); });
    recordEvent(name, EventKind::Marker, e);
    return e;
}

cl::Event Context::launch(const cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local) {
    return launch(k, cl::NullRange, global, local);
}

cl::Event Context::launch(const cl::Kernel& k, const cl::NDRange& offset, const cl::NDRange& global, const cl::NDRange& local) {
    stopIfRequested();
    cl::NDRange g = global;
    if (local.dimensions() > 0) {
        const std::size_t* gs = global;
        const std::size_t* ls = local;
        if (global.dimensions() == 1) g = cl::NDRange(roundUp(gs[0], ls[0]));
        if (global.dimensions() == 2) g = cl::NDRange(roundUp(gs[0], ls[0]), roundUp(gs[1], ls[1]));
        if (global.dimensions() == 3)
            g = cl::NDRange(roundUp(gs[0], ls[0]), roundUp(gs[1], ls[1]), roundUp(gs[2], ls[2]));
    }
    const std::string name = kernelName(k);
    cl::Event e;
    clCall(("clEnqueueNDRangeKernel(" + name + ")").c_str(),
           [&] { return queue_.enqueueNDRangeKernel(k, offset, g, local, nullptr, &e); });
    recordEvent(name, EventKind::Kernel, e);
    return e;
}

void Context::recordEvent(const std::string& name, EventKind kind, const cl::Event& e) {
    profiler_.record(name, kind, e);
    if (timing_ && kind != EventKind::Marker) timed_.push_back(e);
}

void Context::finish() {
    PhaseScope waiting(BatchPhase::Device);
    if (deviceTimeout_ > 0) {
        cl::Event e;
        clCall("clEnqueueMarkerWithWaitList", [&] { return queue_.enqueueMarkerWithWaitList(nullptr, &e); });
        wait(e, "the queue's end");
    }
    clCall("clFinish", [&] { return queue_.finish(); });
    pendingTransfers_.clear();
}

void Context::flush() { clCall("clFlush", [&] { return queue_.flush(); }); }

void Context::wait(const cl::Event& e, const std::string& what) {
    PhaseScope waiting(BatchPhase::Device);
    if (deviceTimeout_ <= 0) {
        clCall(("clWaitForEvents(" + what + ")").c_str(), [&] { return e.wait(); });
        return;
    }
    const std::string limit = secondsText(deviceTimeout_) + " s (PORTACL_DEVICE_TIMEOUT)";
    if (hung_)
        throw Error("device work on " + device_.label() + " did not finish within " + limit +
                    " earlier, so nothing more can be waited for on it: " + what);
    clCall("clFlush", [&] { return queue_.flush(); });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(deviceTimeout_);
    auto pause = std::chrono::microseconds(50);
    for (;;) {
        const cl_int status = clCall(("clGetEventInfo(" + what + ")").c_str(),
                                     [&] { return e.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(); });
        if (status == CL_COMPLETE) return;
        if (status < 0) throw ClError(status, "clWaitForEvents(" + what + ")");
        if (std::chrono::steady_clock::now() >= deadline) break;
        std::this_thread::sleep_for(pause);
        pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(20));
    }
    if (stall_()) {
        // The injected fault: the watchdog opens its gate, so that what waited behind it runs and the
        // queue drains as after any other error.
        clCall("clSetUserEventStatus", [&] { return stall_.setStatus(CL_COMPLETE); });
        stall_ = cl::UserEvent();
        try {
            queue_.finish();  // nothing then runs after the throw, in memory the caller frees
        } catch (const cl::Error&) {
        }
    } else {
        hung_ = true;
    }
    throw Error("device work did not finish within " + limit + ": " + what + " was still waiting or running on " +
                device_.label() + "; the device may be hung, or the work too long for the limit");
}

void Context::beginTiming() {
    if (!options_.queueProfiling && !options_.profile)
        throw Error("device timing needs a queue with event timestamps (ContextOptions::queueProfiling)");
    timing_ = true;
    timed_.clear();
}

double Context::endTiming() {
    const auto spans = endTimingSpans();
    return extentSeconds(spans, 0, spans.size());
}

std::vector<std::pair<cl_ulong, cl_ulong>> Context::endTimingSpans() {
    finish();
    timing_ = false;
    std::vector<std::pair<cl_ulong, cl_ulong>> spans;
    for (const auto& e : timed_)
        spans.push_back(clCall("clGetEventProfilingInfo", [&] {
            return std::make_pair(e.getProfilingInfo<CL_PROFILING_COMMAND_START>(), e.getProfilingInfo<CL_PROFILING_COMMAND_END>());
        }));
    timed_.clear();
    return spans;
}

double extentSeconds(const std::vector<std::pair<cl_ulong, cl_ulong>>& spans, std::size_t from, std::size_t to) {
    cl_ulong first = std::numeric_limits<cl_ulong>::max(), last = 0;
    for (std::size_t e = from; e < to; ++e) {
        first = std::min(first, spans[e].first);
        last = std::max(last, spans[e].second);
    }
    return last > first ? (last - first) * 1e-9 : 0.0;
}

}  // namespace portacl
