// Errors the engine raises. Every user-facing failure is one of these, so that the command line can
// print a single clear sentence and exit non-zero.
#pragma once

#include "portacl/export.hpp"

#include <stdexcept>
#include <string>

namespace portacl {

// A failure the user can act on: bad input, no such device, not enough memory, no fp64.
class PORTACL_API Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The work on a context was stopped on purpose (Context::requestStop): a device set stops the slower
// copy of an item another device has finished. Not an Error, so that no workload takes it for a
// failure of its input.
class PORTACL_API WorkAbandoned : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The name of an OpenCL status code ("CL_OUT_OF_RESOURCES" for -5), or "CL_UNKNOWN_ERROR(<n>)".
PORTACL_API std::string clStatusName(int status);

// An OpenCL call returned a status other than CL_SUCCESS.
class PORTACL_API ClError : public Error {
public:
    ClError(int status, const std::string& call);
    int status() const { return status_; }
    const std::string& call() const { return call_; }
    std::string statusName() const { return clStatusName(status_); }

protected:
    // For subclasses that say more than "<call> failed with <status>".
    ClError(int status, const std::string& call, const std::string& message);

private:
    int status_;
    std::string call_;
};

// A kernel failed to compile (status CL_BUILD_PROGRAM_FAILURE or CL_INVALID_BUILD_OPTIONS); carries
// the compiler's log and the options used.
class PORTACL_API BuildError : public ClError {
public:
    BuildError(int status, const std::string& program, const std::string& device, const std::string& options,
               const std::string& log);
    const std::string& log() const { return log_; }
    const std::string& options() const { return options_; }
    // True when the compiler itself failed (crashed or hung) rather than rejecting the source: the
    // caller may try another path of the same computation.
    bool compilerFailed() const { return compilerFailed_; }

    // The vendor's compiler crashed or hung building `program` (isolated in a child process); the
    // message is one sentence naming the driver, the device, the program and its options.
    static BuildError compilerFailure(const std::string& program, const std::string& driver,
                                      const std::string& device, const std::string& options,
                                      const std::string& what);

private:
    BuildError(const std::string& message, const std::string& options);
    std::string options_;
    std::string log_;
    bool compilerFailed_ = false;
};

// Runs an OpenCL call made through the C++ bindings and turns a cl::Error into a ClError that names
// the status and the call: the library lets no cl::Error escape.
template <typename F>
auto clCall(const char* what, F&& f) -> decltype(f());

}  // namespace portacl

#include "portacl/runtime/cl.hpp"

namespace portacl {
template <typename F>
auto clCall(const char* what, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const cl::Error& e) {
        throw ClError(e.err(), std::string(what) + " (" + e.what() + ")");
    }
}
}  // namespace portacl
