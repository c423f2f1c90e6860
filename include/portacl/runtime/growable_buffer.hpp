// A device buffer kept across calls (in a module's per-context state, say) and grown on demand, so
// that repeated calls (benchmark repeats, iterations, batches) allocate nothing once it is large
// enough. Growing allocates a new buffer: the old contents are not kept, and commands already
// enqueued on the old one still see it (OpenCL retains it for them).
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <string>

#include "portacl/runtime/context.hpp"

namespace portacl {

class PORTACL_API GrowableBuffer {
public:
    // Exact: grows to the size asked for. Doubling: to at least twice the old capacity (and at least
    // 256 bytes), for sizes that creep up from call to call.
    enum class Growth { Exact, Doubling };

    explicit GrowableBuffer(cl_mem_flags flags = CL_MEM_READ_WRITE, Growth growth = Growth::Exact)
        : flags_(flags), growth_(growth) {}

    // Room for at least `bytes` (at least 1); `what` names the buffer in an allocation failure.
    const cl::Buffer& reserve(Context& ctx, std::size_t bytes, const std::string& what);

    const cl::Buffer& buffer() const { return buffer_; }
    std::size_t capacity() const { return capacity_; }

private:
    cl::Buffer buffer_;
    std::size_t capacity_ = 0;
    cl_mem_flags flags_;
    Growth growth_;
};

}  // namespace portacl
