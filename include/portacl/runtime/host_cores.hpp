// How many cores the host threads of this process may use. A process that mpirun, taskset or a
// batch scheduler bound to some cores runs its threads on those alone, so thread counts come from
// its CPU affinity, not from the machine's core count.
#pragma once

#include "portacl/export.hpp"

namespace portacl {

// The cores this process may run on (its CPU affinity; the machine's count where that is unknown).
PORTACL_API unsigned usableCores();
// Every online core of this machine.
PORTACL_API unsigned machineCores();

}  // namespace portacl
