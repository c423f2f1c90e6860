// How a batch process's allocator treats freed memory. A batch allocates the same buffers item after
// item (a frame's tracer, a 16 MB image) on many threads at once. glibc by default returns large
// blocks to the kernel on free and grows its per-thread heaps a page range at a time, so each item
// maps fresh pages again: page faults, zeroing, and mprotect/munmap calls that take the process's
// address-space lock and interrupt every core it runs on (docs/multi_device.md, "On four H200s").
// Kept, the freed blocks serve the next item.
#pragma once

#include "portacl/export.hpp"

namespace portacl {

// Once per process: blocks up to 64 MiB come from the allocator's heaps and freed memory stays there
// (glibc's mallopt; elsewhere nothing). The command line's batches call it before opening their
// devices; the library never does, since a host program's allocator is its own to set (Python's, for
// one). PORTACL_BATCH_MALLOC=system leaves the allocator as it was, for comparison (=keep: the
// default); any other value throws Error, and a later call looks again.
PORTACL_API void keepFreedMemoryForBatches();

}  // namespace portacl
