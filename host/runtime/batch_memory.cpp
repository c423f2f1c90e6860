#include "portacl/runtime/batch_memory.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "portacl/runtime/error.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace portacl {

void keepFreedMemoryForBatches() {
    static std::once_flag once;
    std::call_once(once, [] {
        const char* choice = std::getenv("PORTACL_BATCH_MALLOC");
        if (choice && std::strcmp(choice, "system") == 0) return;
        if (choice && *choice && std::strcmp(choice, "keep") != 0)
            throw Error(std::string("PORTACL_BATCH_MALLOC must be keep (the default) or system, not ") + choice);
#if defined(__GLIBC__)
        constexpr int kMiB = 1 << 20;
        // A fixed threshold (glibc's own moves with the largest block freed) keeps a batch's
        // per-item buffers, images of 4096^2 x 4 bytes included, in the heaps; larger ones (k-Wave's
        // fields, whole volumes) are still mapped and returned on free.
        mallopt(M_MMAP_THRESHOLD, 64 * kMiB);
        mallopt(M_TRIM_THRESHOLD, 1024 * kMiB);  // a heap gives memory back only past 1 GiB free at its top
        mallopt(M_TOP_PAD, 16 * kMiB);           // and grows 16 MiB at a time, not a block's size
#endif
    });
}

}  // namespace portacl
