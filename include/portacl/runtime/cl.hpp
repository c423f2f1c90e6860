// The one place that includes the Khronos C++ bindings, so that every translation unit sees the
// same configuration: OpenCL 1.2 API surface (what NVIDIA, AMD, Intel and PoCL all provide),
// exceptions on, so that every failing call carries its status code.
#pragma once

#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_ENABLE_EXCEPTIONS
#define CL_HPP_ENABLE_EXCEPTIONS
#endif

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
#include <CL/opencl.hpp>
#include <CL/cl_ext.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
