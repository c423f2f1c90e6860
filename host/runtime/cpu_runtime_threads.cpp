#include "portacl/runtime/cpu_runtime_threads.hpp"

#include <cstdlib>
#include <string>

#include "portacl/runtime/host_cores.hpp"

namespace portacl {
namespace {
constexpr const char* kThreadVariables[] = {"POCL_MAX_PTHREAD_COUNT", "POCL_CPU_MAX_CU_COUNT"};
}  // namespace

void setCpuRuntimeThreads(unsigned threads, bool overwrite) {
    for (const char* name : kThreadVariables) ::setenv(name, std::to_string(threads).c_str(), overwrite ? 1 : 0);
}

void fitCpuRuntimeThreadsToAffinity() {
    for (const char* name : kThreadVariables)
        if (std::getenv(name)) return;  // the user's count, whichever of the two they set
    const unsigned usable = usableCores();
    if (usable < machineCores()) setCpuRuntimeThreads(usable, false);
}

}  // namespace portacl
