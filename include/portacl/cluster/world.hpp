// The processes of a job: the ranks of an MPI launch (mpirun -n R portacl ...), or this process
// alone. One World per process, made by main() before any other thread starts; everything that
// spreads work over ranks asks it (World::current()). A build without MPI (PORTACL_WITH_MPI=OFF), or
// a process not started by an MPI launcher, is a world of one rank and nothing changes.
// docs/multi_device.md says how batches use it; portacl/cluster/collectives.hpp gives the collectives
// of a computation spread over the ranks, and portacl/cluster/mpi_comm.hpp the communicator to code
// that talks MPI itself.
#pragma once

#include "portacl/export.hpp"

#include <string>
#include <vector>

#include "portacl/runtime/error.hpp"

namespace portacl::cluster {

class PORTACL_API World {
public:
    // Starts MPI (MPI_Init_thread, MPI_THREAD_FUNNELED: only the thread that made the World calls
    // MPI) when the build has MPI and an MPI launcher started this process; else a world of one.
    World(int* argc, char*** argv);
    // Finalizes MPI.
    ~World();
    World(const World&) = delete;
    World& operator=(const World&) = delete;

    // The World main() made, or nullptr (a library user who made none: one process).
    static World* current();
    // The World main() made, or else one made on first use for the rest of the process (a program
    // that made none, under an MPI launcher or not): what collectives.hpp runs over.
    static World& process();

    int rank() const { return rank_; }
    int size() const { return size_; }
    // This rank among the ranks of its node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED), and how many
    // ranks the node runs: the ranks of a node share its devices by this number.
    int localRank() const { return localRank_; }
    int localSize() const { return localSize_; }
    bool isRoot() const { return rank_ == 0; }
    bool distributed() const { return size_ > 1; }
    bool runsMpi() const { return mpi_; }  // MPI was started for this World
    const std::string& hostName() const { return host_; }
    // One sentence when the launcher bound the ranks to half their share of a node's cores or less
    // (Open MPI binds each rank of a job of two or fewer to one core), whose host threads then share
    // them: what it did and how to start the job instead; else empty. Rank 0's node decides.
    std::string bindingAdvice() const;

    // Collective: every rank passes its own failure sentence (empty when it is ready). Returns, on
    // every rank, "" when all are ready, else the first failing rank's sentence, prefixed with
    // "rank R on HOST: " when the ranks did not all fail alike.
    std::string agree(const std::string& failure) const;
    // Collective: rank 0's text on every rank.
    std::string broadcast(const std::string& fromRoot) const;
    void barrier() const;

private:
    int rank_ = 0, size_ = 1, localRank_ = 0, localSize_ = 1;
    unsigned fewestCores_ = 0;  // the fewest cores a rank may use (its CPU affinity), when MPI runs
    bool mpi_ = false;
    std::string host_;
    void* local_ = nullptr;  // the node's communicator (MPI_Comm), when MPI runs
};

// A failure that rank 0 reports for the whole job: the other ranks end with a non-zero status and
// say nothing, so that the job prints one sentence.
class PORTACL_API ReportedByRoot : public Error {
public:
    explicit ReportedByRoot(const std::string& what) : Error(what) {}
};

// Whether this build can run over MPI (PORTACL_WITH_MPI).
PORTACL_API bool builtWithMpi();

}  // namespace portacl::cluster
