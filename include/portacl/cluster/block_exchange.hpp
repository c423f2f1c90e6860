// The all-to-all of a computation that exchanges blocks again and again (the distributed k-Wave
// solver's transposes, one per component of every 3-D transform). Between ranks of one host
// MPI_Alltoallv copies each pair's blocks on one core (Open MPI's shared-memory transport), a few
// GB/s, far below what the host's memory moves; so when every rank runs on one node the blocks go
// through an MPI-3 shared-memory window instead, several host threads a rank copying:
//   1. each rank copies what it sends into its own segment of the window (its send buffer stays
//      where the caller put it: pinned memory the device writes by DMA);
//   2. the ranks tell each other where their blocks lie (MPI_Alltoall), which also says they are
//      written (MPI_Win_sync on both sides orders the copies);
//   3. each rank copies its blocks out of the other ranks' segments into its receive buffer;
//   4. a barrier, so that no segment is written again before every rank has read it.
// Across nodes, and where the window cannot be made, it is MPI_Alltoallv (allToAll in
// collectives.hpp), the same bytes. PORTACL_EXCHANGE=mpi or =window chooses one of the two (the
// window only on one node), PORTACL_EXCHANGE_THREADS the threads a rank copies with; `portacl
// alltoall` under mpirun times both (docs/kwave.md).
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "portacl/cluster/world.hpp"

namespace portacl::cluster {

// What a BlockExchange's caller asks for; the defaults are the environment's (see above).
struct ExchangeRequest {
    std::string method;    // "auto" (the window on one node), "mpi" or "window"; "": PORTACL_EXCHANGE's
    unsigned threads = 0;  // the window's copy threads a rank; 0: BlockExchange::defaultThreads()
};

class PORTACL_API BlockExchange {
public:
    enum class Method { Mpi, SharedWindow };
    using Request = ExchangeRequest;

    // Collective over every rank of `world` (each passing the same request): an exchange in which no
    // rank sends more than `maxSendBytes` bytes at once to the other ranks (its block to itself
    // excluded). `what` names the exchange in errors ("the 64x64x64 transform's transpose").
    BlockExchange(std::size_t maxSendBytes, const std::string& what, const Request& request = {},
                  const World& world = World::process());
    ~BlockExchange();  // collective: frees the window on every rank
    BlockExchange(const BlockExchange&) = delete;
    BlockExchange& operator=(const BlockExchange&) = delete;

    // Collective: the arguments of allToAll in collectives.hpp (counts and offsets in elements of
    // `elementBytes`): sendCounts[r] elements go to rank r from send + sendOffsets[r], recvCounts[r]
    // come from rank r into recv + recvOffsets[r]. Throws portacl::Error when the blocks sent reach
    // beyond maxSendBytes, or a rank expects other counts than its peers send.
    void allToAll(const void* send, const std::vector<std::size_t>& sendCounts, const std::vector<std::size_t>& sendOffsets,
                  void* recv, const std::vector<std::size_t>& recvCounts, const std::vector<std::size_t>& recvOffsets,
                  std::size_t elementBytes);

    Method method() const;
    unsigned threads() const;  // the host threads a rank copies with (1 for MPI_Alltoallv)
    // How the blocks move, for a run's summary: "a shared-memory window, 16 copy threads a rank" or
    // "MPI_Alltoallv (the ranks span 2 nodes)".
    const std::string& describe() const;

    // The threads a rank copies with on its node: PORTACL_EXCHANGE_THREADS if set, else the cores it
    // may use, at most its share of the node's cores (at least 1).
    static unsigned defaultThreads(const World& world = World::process());

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace portacl::cluster
