// Copying a list of byte ranges on the threads of a HostPool: the shared-memory all-to-all's
// (block_exchange.cpp) copies into and out of the node's window, which one thread would make as slow
// as MPI's own shared-memory transport (one core's copy rate per pair of ranks).
#pragma once

#include <cstddef>
#include <vector>

namespace portacl {
class HostPool;
}

namespace portacl::cluster::detail {

struct CopyRange {
    unsigned char* to;
    const unsigned char* from;
    std::size_t bytes;
};

// Copies every range (they must not overlap one another's destinations) on the caller and the pool's
// threads, and returns when all are done. The ranges are cut into pieces of a few MB that the threads
// take in turn, so a slow thread takes fewer of them.
void copyInParallel(HostPool& pool, const std::vector<CopyRange>& ranges);

}  // namespace portacl::cluster::detail
