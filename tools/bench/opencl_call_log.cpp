// An OpenCL layer that logs every OpenCL call a process makes: which entry point, from which
// thread, when it was entered and when it returned. It sits between the ICD loader and the
// drivers (the loader's OPENCL_LAYERS variable names it; no LD_PRELOAD), so it sees the calls of
// every caller in the process alike: the library called from C++, from the Python package, or
// from a test. tools/bench/python_overhead_cl_calls.py builds and reads it:
//
//   g++ -std=c++17 -O2 -fPIC -shared -DOPENCL_CALL_LOG_NAMES='"NAMES"' tools/bench/opencl_call_log.cpp \
//       -o build/libopencl_call_log.so
//   OPENCL_LAYERS=$PWD/build/libopencl_call_log.so python3 ...
//
// NAMES holds one X(clName) line per member of the loader's dispatch table (<CL/cl_icd.h>), in any
// order; the tool writes it from the header. The log is off until portacl_cl_log_start(CAPACITY)
// and keeps at most CAPACITY calls; reading it (portacl_cl_log_entry) is for after
// portacl_cl_log_stop().
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl_layer.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace {

struct Entry {
    std::uint32_t slot;     // the entry point: an index into names()
    std::uint32_t thread;   // a small number per calling thread, in order of first call
    std::int64_t enterNs;   // steady clock, nanoseconds
    std::int64_t leaveNs;
};

cl_icd_dispatch target{};   // the next layer's or the loader's table
cl_icd_dispatch wrapped{};  // ours

std::vector<Entry> entries;
std::atomic<std::size_t> used{0};
std::atomic<bool> logging{false};
std::atomic<std::uint32_t> threads{0};

std::int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::uint32_t threadNumber() {
    thread_local const std::uint32_t n = threads.fetch_add(1);
    return n;
}

// The names of the entry points wrapped, in the order of NAMES.
std::vector<const char*>& names() {
    static std::vector<const char*> n;
    return n;
}

void record(std::uint32_t slot, std::int64_t enter) {
    const std::int64_t leave = nowNs();
    const std::size_t i = used.fetch_add(1);
    if (i < entries.size()) entries[i] = Entry{slot, threadNumber(), enter, leave};
}

// One wrapper per entry point: the same signature, forwarding to the target's member M.
template <auto M, typename F = std::remove_reference_t<decltype(std::declval<cl_icd_dispatch&>().*M)>>
struct Wrap;

template <auto M, typename R, typename... A>
struct Wrap<M, R(CL_API_CALL*)(A...)> {
    static inline std::uint32_t slot = 0;
    static R CL_API_CALL call(A... a) {
        if (!logging.load(std::memory_order_relaxed)) return (target.*M)(a...);
        const std::int64_t enter = nowNs();
        if constexpr (std::is_void_v<R>) {
            (target.*M)(a...);
            record(slot, enter);
        } else {
            R r = (target.*M)(a...);
            record(slot, enter);
            return r;
        }
    }
};

// Members that are not functions on this platform (the Direct3D ones outside Windows) are copied.
template <auto M>
void install(const char* name) {
    using F = std::remove_reference_t<decltype(std::declval<cl_icd_dispatch&>().*M)>;
    if constexpr (std::is_pointer_v<F> && std::is_function_v<std::remove_pointer_t<F>>) {
        Wrap<M>::slot = static_cast<std::uint32_t>(names().size());
        names().push_back(name);
        wrapped.*M = (target.*M) ? &Wrap<M>::call : nullptr;
    } else {
        wrapped.*M = target.*M;
    }
}

}  // namespace

extern "C" {

CL_API_ENTRY cl_int CL_API_CALL clGetLayerInfo(cl_layer_info param, size_t size, void* value, size_t* sizeRet) {
    if (param == CL_LAYER_API_VERSION) {
        const cl_layer_api_version v = CL_LAYER_API_VERSION_100;
        if (sizeRet) *sizeRet = sizeof v;
        if (value) {
            if (size < sizeof v) return CL_INVALID_VALUE;
            std::memcpy(value, &v, sizeof v);
        }
        return CL_SUCCESS;
    }
    return CL_INVALID_VALUE;
}

CL_API_ENTRY cl_int CL_API_CALL clInitLayer(cl_uint numEntries, const cl_icd_dispatch* next, cl_uint* numEntriesRet,
                                            const cl_icd_dispatch** dispatchRet) {
    const cl_uint ours = sizeof(cl_icd_dispatch) / sizeof(void*);
    if (!next || !numEntriesRet || !dispatchRet) return CL_INVALID_VALUE;
    // A loader with a shorter table gives fewer entries; the rest stay null.
    std::memcpy(&target, next, std::min<std::size_t>(numEntries, ours) * sizeof(void*));
    names().clear();
#define X(name) install<&cl_icd_dispatch::name>(#name);
#include OPENCL_CALL_LOG_NAMES
#undef X
    *numEntriesRet = ours;
    *dispatchRet = &wrapped;
    return CL_SUCCESS;
}

// Starts a new log of at most `capacity` calls (earlier entries are dropped).
void portacl_cl_log_start(std::size_t capacity) {
    logging = false;
    entries.assign(capacity, Entry{});
    used = 0;
    logging = true;
}

// Stops logging; gives the number of calls logged (more than the capacity: the log is full).
std::size_t portacl_cl_log_stop() {
    logging = false;
    return used.load();
}

// Entry i of the log: its entry point (an index for portacl_cl_log_name), thread, and times.
int portacl_cl_log_entry(std::size_t i, std::uint32_t* slot, std::uint32_t* thread, std::int64_t* enterNs,
                         std::int64_t* leaveNs) {
    if (i >= std::min(used.load(), entries.size())) return -1;
    *slot = entries[i].slot;
    *thread = entries[i].thread;
    *enterNs = entries[i].enterNs;
    *leaveNs = entries[i].leaveNs;
    return 0;
}

const char* portacl_cl_log_name(std::uint32_t slot) { return slot < names().size() ? names()[slot] : nullptr; }

}  // extern "C"
