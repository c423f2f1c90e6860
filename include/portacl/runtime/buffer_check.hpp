// A size check for the device-buffer API: the workloads that take untyped cl::Buffers and a runtime
// element precision check each buffer's size first, so that a precision that does not match the
// buffers (double asked of float buffers) is an exception rather than reads and writes past the end.
#pragma once

#include "portacl/export.hpp"

#include <string>

#include "portacl/runtime/cl.hpp"
#include "portacl/runtime/precision.hpp"

namespace portacl {

// Throws portacl::Error when `buffer` holds fewer than `elements` elements of `element` precision
// (Mixed counts as double); `what` names the buffer and the call ("b of vectorSum").
PORTACL_API void requireElements(const cl::Buffer& buffer, std::size_t elements, Precision element, const std::string& what);

// Throws portacl::Error when `buffer` holds fewer than `bytes` bytes (`contents` says what they are:
// "4 query indices per query"), for buffers whose element type is fixed.
PORTACL_API void requireBytes(const cl::Buffer& buffer, std::size_t bytes, const std::string& contents, const std::string& what);

}  // namespace portacl
