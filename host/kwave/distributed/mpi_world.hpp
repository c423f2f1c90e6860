// The MPI world the distributed k-Wave solver runs in: started on first use (MPI_Init_thread, ended
// at exit), the ranks of MPI_COMM_WORLD, and the few collectives the solver and its transforms use.
// Only this part of the library includes mpi.h. Exported (PORTACL_API) for the distributed tests.
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <string>
#include <vector>

#include "portacl/kwave/distributed.hpp"

namespace portacl::kwave::distributed {

// Starts MPI once (idempotent); every other call here (and rank(), ranks(), localRank() of the
// public header) starts it too.
PORTACL_API void initialize();

// The sum, maximum and minimum over every rank.
PORTACL_API double sum(double v);
PORTACL_API double maxOf(double v);
PORTACL_API std::size_t maxOver(std::size_t v);
PORTACL_API std::size_t minOver(std::size_t v);
PORTACL_API bool all(bool v);
// Every rank's `count` elements of `elementBytes` gathered on rank 0 in rank order (empty elsewhere).
PORTACL_API std::vector<unsigned char> gatherOnRoot(const void* data, std::size_t count, std::size_t elementBytes);
// Rank 0's bytes on every rank.
PORTACL_API void broadcast(void* data, std::size_t bytes);
// Exchanges blocks of `elementBytes`-sized elements: sendCounts[r] elements go to rank r from
// send + sendOffsets[r], recvCounts[r] come from rank r into recv + recvOffsets[r] (counts and offsets in
// elements). Raises portacl::Error naming `what` when a count exceeds MPI's int.
PORTACL_API void allToAll(const void* send, const std::vector<std::size_t>& sendCounts, const std::vector<std::size_t>& sendOffsets,
              void* recv, const std::vector<std::size_t>& recvCounts, const std::vector<std::size_t>& recvOffsets,
              std::size_t elementBytes, const std::string& what);
PORTACL_API void barrier();

}  // namespace portacl::kwave::distributed
