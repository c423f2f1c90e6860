#include "portacl/runtime/host_cores.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

namespace portacl {

unsigned machineCores() {
    const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? static_cast<unsigned>(online) : std::max(1u, std::thread::hardware_concurrency());
}

unsigned usableCores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n > 0) return static_cast<unsigned>(n);
    }
    return machineCores();
}

}  // namespace portacl
