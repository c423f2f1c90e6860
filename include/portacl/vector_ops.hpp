// The lecture's first example, the vector sum c = a + b, on device buffers and on host vectors,
// with its serial reference.
#pragma once

#include "portacl/export.hpp"

#include <vector>

#include "portacl/runtime/context.hpp"

namespace portacl {

// Enqueues c = a + b on n elements of `element` precision already on the device.
PORTACL_API void vectorSum(Context& ctx, Precision element, const cl::Buffer& a, const cl::Buffer& b, const cl::Buffer& c,
                           std::size_t n);

// Host convenience: uploads, adds, downloads. a and b must have the same length.
template <typename T>
PORTACL_API std::vector<T> vectorSum(Context& ctx, const std::vector<T>& a, const std::vector<T>& b);

// The serial C++ reference.
template <typename T>
PORTACL_API std::vector<T> vectorSumReference(const std::vector<T>& a, const std::vector<T>& b);

}  // namespace portacl
