// Builds an OpenCL program in a child process, so that a vendor compiler that crashes or hangs ends
// the child, not the caller. The engine does this for every program the disk cache does not hold
// yet (Context::program); the child is the small executable portacl-compile-worker, which compiles
// on the same device and hands the binary back. A warm cache never starts a child.
//
// Environment:
//   PORTACL_ISOLATED_BUILD=0       compile in the calling process instead
//   PORTACL_BUILD_TIMEOUT=S        seconds a child may compile before it is stopped (default 300)
//   PORTACL_COMPILE_WORKER=PATH    the worker executable (default: beside libportacl, or installed)
//   PORTACL_KEEP_BUILD_REQUESTS=1  keep each request's folder (source, options, the worker's output)
//   PORTACL_COMPILE_WORKER_FAULT   abort | hang, optionally :TEXT,TEXT: the worker aborts or hangs
//                                  instead of compiling (only for options containing a TEXT), for
//                                  tests of the crash and timeout paths
#pragma once

#include "portacl/export.hpp"

#include <atomic>
#include <string>
#include <vector>

namespace portacl {

struct DeviceInfo;

struct PORTACL_API IsolatedBuild {
    enum class Outcome {
        Built,        // compiled; `binary` holds the program binary (empty if the driver gives none)
        Rejected,     // the compiler reported errors; `log` holds its build log
        Crashed,      // the child died (signal or unexpected exit); `detail` says how
        TimedOut,     // the child did not finish within the timeout and was killed
        Unavailable,  // no worker, or it could not find the device: compile in-process instead
        Stopped,      // *stop became true and the child was killed
        OutOfMemory,  // the compiler ran out of host memory (an address-space limit, say)
    };
    Outcome outcome = Outcome::Unavailable;
    std::vector<unsigned char> binary;
    std::string log;
    std::string output;  // what the worker and the compiler printed by themselves
    std::string detail;
};

// Whether Context::program should build in a child process (PORTACL_ISOLATED_BUILD, default on,
// and a worker executable exists).
PORTACL_API bool isolatedBuildsEnabled();
// PORTACL_BUILD_TIMEOUT in seconds, default 300.
PORTACL_API double isolatedBuildTimeout();
// The worker executable, or "" when there is none.
PORTACL_API std::string compileWorkerPath();

// Compiles `source` with `options` for `device` in a child process; a `stop` flag that becomes true
// ends the child (Outcome::Stopped).
PORTACL_API IsolatedBuild buildInChildProcess(const DeviceInfo& device, const std::string& source, const std::string& options,
                                              double timeoutSeconds, const std::atomic<bool>* stop = nullptr);

// The child's side: reads the request file, compiles, writes <request>.bin and <request>.log.
// Exit status: 0 built, 3 rejected by the compiler, 4 device not found, 5 any other failure, 6 out
// of host memory.
PORTACL_API int compileWorkerMain(int argc, char** argv);

}  // namespace portacl
