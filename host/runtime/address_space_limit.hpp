// This process's address-space limit (ulimit -v; SGE's h_vmem sets one), and loading the OpenCL
// runtimes under it: they crash there instead of failing (PoCL aborts when it cannot start its
// worker threads, Intel's runtime throws from a static constructor) or hang, before the engine can
// check anything.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace portacl {

// The limit in bytes; none when there is no limit.
std::optional<std::uint64_t> addressSpaceLimit();

// " under this process's address-space limit of N MiB (ulimit -v); raise it" where one is set, else
// "": the end of a sentence that says what ran out of memory.
std::string addressSpaceLimitNote();

// Under an address-space limit, loads and lists the OpenCL runtimes once in a forked child, whose
// address space is this process's, so that a crash or hang there is one sentence (an Error) here.
// Without a limit, and after the first call, it does nothing.
void probeRuntimesUnderAddressSpaceLimit();

}  // namespace portacl
