// Loading the OpenCL runtimes under an address-space limit (ulimit -v; SGE's h_vmem sets one): the
// runtimes crash there instead of failing (PoCL aborts when it cannot start its worker threads,
// Intel's runtime throws from a static constructor), before the engine can check anything.
#pragma once

namespace portacl {

// Under an address-space limit, loads and lists the OpenCL runtimes once in a forked child, whose
// address space is this process's, so that a crash or hang there is one sentence (an Error) here.
// Without a limit, and after the first call, it does nothing.
void probeRuntimesUnderAddressSpaceLimit();

}  // namespace portacl
