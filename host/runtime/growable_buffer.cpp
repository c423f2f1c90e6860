#include "portacl/runtime/growable_buffer.hpp"

#include <algorithm>

namespace portacl {

const cl::Buffer& GrowableBuffer::reserve(Context& ctx, std::size_t bytes, const std::string& what) {
    bytes = std::max<std::size_t>(bytes, 1);
    if (capacity_ > 0 && bytes <= capacity_) return buffer_;
    const std::size_t size = growth_ == Growth::Doubling ? std::max<std::size_t>({bytes, 2 * capacity_, 256}) : bytes;
    buffer_ = ctx.buffer(size, what, flags_);
    capacity_ = size;
    return buffer_;
}

}  // namespace portacl
