// The thread counts OpenCL's CPU runtimes take from the environment, set before the first OpenCL call.
// PoCL sizes its pool from the machine's cores (POCL_MAX_PTHREAD_COUNT, every version;
// POCL_CPU_MAX_CU_COUNT, 4.0 on), not from the process's CPU affinity: under taskset, mpirun's
// binding or a batch scheduler's cpuset it runs a thread for every core of the machine on the few
// the process may use (docs/portability.md, "PoCL and the cores a process may use").
#pragma once

#include "portacl/export.hpp"

namespace portacl {

// Sets the CPU runtimes' thread counts to `threads`; where one is set already, only with `overwrite`.
PORTACL_API void setCpuRuntimeThreads(unsigned threads, bool overwrite);
// The CPU runtimes' threads fitted to the cores this process may use (usableCores()) when it may not
// use every core of the machine and the user has set no count of their own. Call it before any
// OpenCL call; the command line does, first thing.
PORTACL_API void fitCpuRuntimeThreadsToAffinity();

}  // namespace portacl
