// Internal: chemfiles' C library, opened at run time (dlopen). The few functions used are declared
// here from chemfiles' C API documentation; the handles are opaque.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace portacl::io::chemfiles {

using Status = int;  // chfl_status; CHFL_SUCCESS is 0
using Vector3 = double[3];  // chfl_vector3d

struct Library {
    void* (*trajectoryOpen)(const char* path, char mode);  // CHFL_TRAJECTORY*, null on failure
    Status (*trajectoryNsteps)(void* trajectory, std::uint64_t* nsteps);
    Status (*trajectoryReadStep)(void* trajectory, std::uint64_t step, void* frame);
    void (*trajectoryClose)(const void* trajectory);
    void* (*frameNew)();  // chfl_frame: CHFL_FRAME*, null on failure
    Status (*frameAtomsCount)(const void* frame, std::uint64_t* count);
    Status (*framePositions)(void* frame, Vector3** positions, std::uint64_t* size);
    Status (*free)(const void* object);
    const char* (*lastError)();
    const char* (*version)();
};

// The library, loaded on the first call (thread-safe); null when it cannot be loaded, and then
// `problem` says, in one sentence, where it was looked for and how to install it.
const Library* library(std::string* problem = nullptr);

// chemfiles' warnings since the last call, oldest first (they are kept, not printed).
std::vector<std::string> takeWarnings();

}  // namespace portacl::io::chemfiles
