#include "portacl/runtime/error.hpp"

#include "portacl/runtime/cl.hpp"
#include "portacl/runtime/kernel_args.hpp"

namespace portacl {

std::string clStatusName(int status) {
#define PORTACL_CASE(code) \
    case code:             \
        return #code;
    switch (status) {
        PORTACL_CASE(CL_SUCCESS)
        PORTACL_CASE(CL_DEVICE_NOT_FOUND)
        PORTACL_CASE(CL_DEVICE_NOT_AVAILABLE)
        PORTACL_CASE(CL_COMPILER_NOT_AVAILABLE)
        PORTACL_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        PORTACL_CASE(CL_OUT_OF_RESOURCES)
        PORTACL_CASE(CL_OUT_OF_HOST_MEMORY)
        PORTACL_CASE(CL_PROFILING_INFO_NOT_AVAILABLE)
        PORTACL_CASE(CL_MEM_COPY_OVERLAP)
        PORTACL_CASE(CL_IMAGE_FORMAT_MISMATCH)
        PORTACL_CASE(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        PORTACL_CASE(CL_BUILD_PROGRAM_FAILURE)
        PORTACL_CASE(CL_MAP_FAILURE)
        PORTACL_CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        PORTACL_CASE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        PORTACL_CASE(CL_COMPILE_PROGRAM_FAILURE)
        PORTACL_CASE(CL_LINKER_NOT_AVAILABLE)
        PORTACL_CASE(CL_LINK_PROGRAM_FAILURE)
        PORTACL_CASE(CL_DEVICE_PARTITION_FAILED)
        PORTACL_CASE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        PORTACL_CASE(CL_INVALID_VALUE)
        PORTACL_CASE(CL_INVALID_DEVICE_TYPE)
        PORTACL_CASE(CL_INVALID_PLATFORM)
        PORTACL_CASE(CL_INVALID_DEVICE)
        PORTACL_CASE(CL_INVALID_CONTEXT)
        PORTACL_CASE(CL_INVALID_QUEUE_PROPERTIES)
        PORTACL_CASE(CL_INVALID_COMMAND_QUEUE)
        PORTACL_CASE(CL_INVALID_HOST_PTR)
        PORTACL_CASE(CL_INVALID_MEM_OBJECT)
        PORTACL_CASE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        PORTACL_CASE(CL_INVALID_IMAGE_SIZE)
        PORTACL_CASE(CL_INVALID_SAMPLER)
        PORTACL_CASE(CL_INVALID_BINARY)
        PORTACL_CASE(CL_INVALID_BUILD_OPTIONS)
        PORTACL_CASE(CL_INVALID_PROGRAM)
        PORTACL_CASE(CL_INVALID_PROGRAM_EXECUTABLE)
        PORTACL_CASE(CL_INVALID_KERNEL_NAME)
        PORTACL_CASE(CL_INVALID_KERNEL_DEFINITION)
        PORTACL_CASE(CL_INVALID_KERNEL)
        PORTACL_CASE(CL_INVALID_ARG_INDEX)
        PORTACL_CASE(CL_INVALID_ARG_VALUE)
        PORTACL_CASE(CL_INVALID_ARG_SIZE)
        PORTACL_CASE(CL_INVALID_KERNEL_ARGS)
        PORTACL_CASE(CL_INVALID_WORK_DIMENSION)
        PORTACL_CASE(CL_INVALID_WORK_GROUP_SIZE)
        PORTACL_CASE(CL_INVALID_WORK_ITEM_SIZE)
        PORTACL_CASE(CL_INVALID_GLOBAL_OFFSET)
        PORTACL_CASE(CL_INVALID_EVENT_WAIT_LIST)
        PORTACL_CASE(CL_INVALID_EVENT)
        PORTACL_CASE(CL_INVALID_OPERATION)
        PORTACL_CASE(CL_INVALID_GL_OBJECT)
        PORTACL_CASE(CL_INVALID_BUFFER_SIZE)
        PORTACL_CASE(CL_INVALID_MIP_LEVEL)
        PORTACL_CASE(CL_INVALID_GLOBAL_WORK_SIZE)
        PORTACL_CASE(CL_INVALID_PROPERTY)
        PORTACL_CASE(CL_INVALID_IMAGE_DESCRIPTOR)
        PORTACL_CASE(CL_INVALID_COMPILER_OPTIONS)
        PORTACL_CASE(CL_INVALID_LINKER_OPTIONS)
        PORTACL_CASE(CL_INVALID_DEVICE_PARTITION_COUNT)
        // Codes of OpenCL 2.x and 3.0, which the 1.2 headers we target do not declare.
        case -69: return "CL_INVALID_PIPE_SIZE";
        case -70: return "CL_INVALID_DEVICE_QUEUE";
        case -71: return "CL_INVALID_SPEC_ID";
        case -72: return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
#ifdef CL_PLATFORM_NOT_FOUND_KHR
        PORTACL_CASE(CL_PLATFORM_NOT_FOUND_KHR)
#endif
        default:
            return "CL_UNKNOWN_ERROR(" + std::to_string(status) + ")";
    }
#undef PORTACL_CASE
}

std::string kernelName(const cl::Kernel& k) {
    try {
        return k.getInfo<CL_KERNEL_FUNCTION_NAME>();
    } catch (const cl::Error& e) {
        throw ClError(e.err(), "clGetKernelInfo(CL_KERNEL_FUNCTION_NAME)");
    }
}

std::size_t workGroupLimit(const cl::Kernel& k, const cl::Device& device) {
    try {
        return k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device);
    } catch (const cl::Error& e) {
        throw ClError(e.err(), "clGetKernelWorkGroupInfo(" + kernelName(k) + ")");
    }
}

namespace {

// The statuses by which an implementation says it ran out of memory mid-run (after the checks
// before allocating: a driver may commit a buffer's memory only at its first use): one sentence that
// says so, with the call and the status for the record. CL_OUT_OF_RESOURCES also covers registers
// and, on some drivers, a kernel's faulting access, so it names resources, not memory alone.
std::string failureSentence(int status, const std::string& call) {
    const std::string failed = "(" + call + " failed with " + clStatusName(status) + ")";
    const std::string smaller = "; try a smaller problem, fewer runs at once on this device, or a device with more memory";
    switch (status) {
        case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "the device ran out of memory " + failed + smaller;
        case CL_OUT_OF_RESOURCES: return "the device ran out of memory or other resources " + failed + smaller;
        case CL_OUT_OF_HOST_MEMORY: return "the host ran out of memory " + failed + "; try a smaller problem or fewer runs at once";
        default: return call + " failed with " + clStatusName(status);
    }
}

}  // namespace

ClError::ClError(int status, const std::string& call)
    : Error(failureSentence(status, call)), status_(status), call_(call) {}

ClError::ClError(int status, const std::string& call, const std::string& message)
    : Error(message), status_(status), call_(call) {}

BuildError::BuildError(int status, const std::string& program, const std::string& device, const std::string& options,
                       const std::string& log)
    : ClError(status, "clBuildProgram(" + program + ")",
              "kernel program '" + program + "' failed to build for " + device + " with options [" + options +
                  "]; build log:\n" + log),
      options_(options),
      log_(log) {}

// The compiler crashed or hung: no status came back, so the build counts as CL_BUILD_PROGRAM_FAILURE.
BuildError::BuildError(const std::string& message, const std::string& options)
    : ClError(CL_BUILD_PROGRAM_FAILURE, "clBuildProgram", message), options_(options), compilerFailed_(true) {}

BuildError BuildError::compilerFailure(const std::string& program, const std::string& driver,
                                       const std::string& device, const std::string& options,
                                       const std::string& what) {
    return BuildError("the OpenCL compiler of " + driver + " " + what + " while building kernel program '" + program +
                          "' for " + device + " with options [" + options + "]",
                      options);
}

}  // namespace portacl
