// Kernel arguments through one checked call: a failure (an index past the kernel's arguments, a
// size that does not match) is a ClError naming the kernel and the argument, never a raw cl::Error.
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <string>

#include "portacl/runtime/cl.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl {

// The kernel's function name (CL_KERNEL_FUNCTION_NAME).
PORTACL_API std::string kernelName(const cl::Kernel& k);

// The most work-items a work-group of this kernel may have on the device (CL_KERNEL_WORK_GROUP_SIZE:
// a kernel with a large private frame may allow fewer than the device's maximum).
PORTACL_API std::size_t workGroupLimit(const cl::Kernel& k, const cl::Device& device);

template <typename T>
void setArg(cl::Kernel& k, cl_uint index, const T& value) {
    try {
        k.setArg(index, value);
    } catch (const cl::Error& e) {
        throw ClError(e.err(), "clSetKernelArg(" + kernelName(k) + ", argument " + std::to_string(index) + ")");
    }
}

// Arguments first, first + 1, ... in order.
template <typename... Args>
void setArgs(cl::Kernel& k, cl_uint first, const Args&... args) {
    (setArg(k, first++, args), ...);
}

}  // namespace portacl
