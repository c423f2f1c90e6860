// Memory the host and a CPU device share in place, and host functions run in the device's queue: what
// lets host work (FFTW's transforms) sit between kernels without the queue waiting for the host.
//
// A CPU runtime keeps a CL_MEM_USE_HOST_PTR buffer on the host memory it was given when that memory
// is aligned as it wants (PoCL, Intel's runtime: a page is enough); otherwise it may copy to storage
// of its own. The first sharedBuffer of a context checks which: the device fills a page-aligned
// buffer, the host reads the fill from the memory directly, writes it over, and a copy on the device
// must see the host's bytes. Only then are buffers and their host addresses handed out as shared.
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "portacl/runtime/context.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl {

namespace {

constexpr std::size_t kPageBytes = 4096;
// Buffers from this size on ask for transparent huge pages (where the kernel leaves that to
// madvise): the FFTs' strided passes over a field otherwise miss the TLB on every line.
constexpr std::size_t kHugePageBytes = std::size_t(2) << 20;

void* pageAligned(std::size_t bytes) {
    const bool huge = bytes >= kHugePageBytes;
    const std::size_t align = huge ? kHugePageBytes : kPageBytes;
    void* p = std::aligned_alloc(align, roundUp(std::max<std::size_t>(bytes, 1), align));
#ifdef MADV_HUGEPAGE
    if (p && huge) ::madvise(p, roundUp(bytes, align), MADV_HUGEPAGE);  // a hint: failure changes nothing
#endif
    return p;
}

void check(cl_int err, const char* what) {
    if (err != CL_SUCCESS) throw ClError(err, what);
}

void CL_CALLBACK freeHostMemory(cl_mem, void* host) { std::free(host); }

cl_mem parentOf(cl_mem m) {
    cl_mem parent = nullptr;
    check(clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, nullptr), "clGetMemObjectInfo(CL_MEM_ASSOCIATED_MEMOBJECT)");
    return parent;
}

}  // namespace

cl::Buffer Context::sharedBuffer(std::size_t bytes, const std::string& what, cl_mem_flags flags) {
    if (hostInPlace_ < 0) {
        hostInPlace_ = 0;
        if (device_.isCpu) {
            // The check of the file comment, on one page.
            std::unique_ptr<unsigned char, decltype(&std::free)> host(static_cast<unsigned char*>(pageAligned(kPageBytes)), &std::free);
            if (!host) throw Error("could not allocate host memory for " + what);
            std::memset(host.get(), 0, kPageBytes);
            bool inPlace = false;
            {
                cl::Buffer probe = clCall("clCreateBuffer(host memory check)", [&] {
                    return cl::Buffer(context_, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, kPageBytes, host.get());
                });
                cl::Buffer copy = buffer(kPageBytes, "host memory check");
                wait(fill(probe, 0x5a, kPageBytes, "host memory check"), "host memory check");
                inPlace = std::all_of(host.get(), host.get() + kPageBytes, [](unsigned char c) { return c == 0x5a; });
                std::memset(host.get(), 0xa5, kPageBytes);
                wait(this->copy(probe, copy, kPageBytes, "host memory check"), "host memory check");
                std::vector<unsigned char> back(kPageBytes);
                read(copy, back.data(), kPageBytes, "host memory check");
                inPlace = inPlace && std::all_of(back.begin(), back.end(), [](unsigned char c) { return c == 0xa5; });
            }
            hostInPlace_ = inPlace ? 1 : 0;
        }
    }
    if (!hostInPlace_) return buffer(bytes, what, flags | CL_MEM_ALLOC_HOST_PTR);
    if (bytes > device_.maxAllocBytes) return buffer(bytes, what, flags);  // refuses with buffer()'s sentence
    checkFits(bytes, what);
    void* host = pageAligned(bytes);
    if (!host) throw Error("could not allocate " + std::to_string(bytes) + " bytes of host memory for " + what);
    cl::Buffer b;
    try {
        b = clCall(("clCreateBuffer(" + what + ")").c_str(), [&] {
            return cl::Buffer(context_, flags | CL_MEM_USE_HOST_PTR, std::max<std::size_t>(bytes, 1), host);
        });
    } catch (...) {
        std::free(host);
        throw;
    }
    const cl_int err = clSetMemObjectDestructorCallback(b(), freeHostMemory, host);
    if (err != CL_SUCCESS) {
        b = cl::Buffer();  // released before its memory is
        std::free(host);
        check(err, "clSetMemObjectDestructorCallback");
    }
    if (options_.keepBuffers) kept_.push_back(b);
    return b;
}

void* Context::hostAddress(const cl::Buffer& b) {
    if (hostInPlace_ != 1) return nullptr;
    cl_mem m = b();
    std::size_t offset = 0;
    if (cl_mem parent = parentOf(m)) {
        check(clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof offset, &offset, nullptr), "clGetMemObjectInfo(CL_MEM_OFFSET)");
        m = parent;
    }
    cl_mem_flags flags = 0;
    void* host = nullptr;
    check(clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof flags, &flags, nullptr), "clGetMemObjectInfo(CL_MEM_FLAGS)");
    if (!(flags & CL_MEM_USE_HOST_PTR)) return nullptr;
    check(clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof host, &host, nullptr), "clGetMemObjectInfo(CL_MEM_HOST_PTR)");
    // Only page-aligned memory is what the check above showed the device to use in place.
    if (!host || reinterpret_cast<std::uintptr_t>(host) % kPageBytes != 0) return nullptr;
    return static_cast<char*>(host) + offset;
}

bool Context::runsHostTasks() const {
    const cl_device_exec_capabilities caps = clCall("clGetDeviceInfo(CL_DEVICE_EXECUTION_CAPABILITIES)", [&] {
        return device_.device.getInfo<CL_DEVICE_EXECUTION_CAPABILITIES>();
    });
    return (caps & CL_EXEC_NATIVE_KERNEL) != 0;
}

cl::Event Context::hostTask(void(CL_CALLBACK* fn)(void*), const void* args, std::size_t bytes, const std::string& name) {
    stopIfRequested();
    cl_event e = nullptr;
    check(clEnqueueNativeKernel(queue_(), fn, const_cast<void*>(args), bytes, 0, nullptr, nullptr, 0, nullptr, &e), "clEnqueueNativeKernel");
    cl::Event event(e);  // takes over the reference
    recordEvent(name, EventKind::Kernel, event);
    return event;
}

}  // namespace portacl
