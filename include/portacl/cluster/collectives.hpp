// The collectives code that spreads one computation over the ranks of a job uses (the distributed
// k-Wave solver): reductions, a gather on rank 0, a broadcast and an all-to-all. Every rank calls
// each of them. `world` defaults to the process's World; in a world of one (no MPI launcher, or a
// build without MPI) each is the local answer.
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <string>
#include <vector>

#include "portacl/cluster/world.hpp"

namespace portacl::cluster {

// True when an MPI launcher (mpirun, mpiexec, srun, hydra) started this process.
PORTACL_API bool launchedByMpi();

// The sum, maximum and minimum over every rank.
PORTACL_API double sum(double v, const World& world = World::process());
PORTACL_API double maxOf(double v, const World& world = World::process());
PORTACL_API std::size_t maxOver(std::size_t v, const World& world = World::process());
PORTACL_API std::size_t minOver(std::size_t v, const World& world = World::process());
PORTACL_API bool all(bool v, const World& world = World::process());
// Every rank's `count` elements of `elementBytes` gathered on rank 0 in rank order (empty elsewhere).
PORTACL_API std::vector<unsigned char> gatherOnRoot(const void* data, std::size_t count, std::size_t elementBytes,
                                                    const World& world = World::process());
// Rank 0's bytes on every rank.
PORTACL_API void broadcast(void* data, std::size_t bytes, const World& world = World::process());
// Exchanges blocks of `elementBytes`-sized elements: sendCounts[r] elements go to rank r from
// send + sendOffsets[r], recvCounts[r] come from rank r into recv + recvOffsets[r] (counts and offsets in
// elements). Raises portacl::Error naming `what` when a count exceeds MPI's int.
PORTACL_API void allToAll(const void* send, const std::vector<std::size_t>& sendCounts, const std::vector<std::size_t>& sendOffsets,
                          void* recv, const std::vector<std::size_t>& recvCounts, const std::vector<std::size_t>& recvOffsets,
                          std::size_t elementBytes, const std::string& what, const World& world = World::process());
// Ends every rank with `code` (after an error seen on some ranks only).
[[noreturn]] PORTACL_API void abortAll(int code, const World& world = World::process());

}  // namespace portacl::cluster
