#include "mpi_world.hpp"

#include <mpi.h>

#include <climits>
#include <cstdlib>

#include "portacl/runtime/error.hpp"

namespace portacl::kwave::distributed {
namespace {

struct World {
    int rank = 0, ranks = 1, localRank = 0;
    World() {
        int started = 0;
        MPI_Initialized(&started);
        if (!started) {
            int provided = 0;
            MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
            // Ended at exit, after main's objects (contexts, solvers) are gone.
            std::atexit([] {
                int ended = 0;
                MPI_Finalized(&ended);
                if (!ended) MPI_Finalize();
            });
        }
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &ranks);
        MPI_Comm host;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
        MPI_Comm_rank(host, &localRank);
        MPI_Comm_free(&host);
    }
};

World& world() {
    static World w;
    return w;
}

int asInt(std::size_t v, const std::string& what) {
    if (v > static_cast<std::size_t>(INT_MAX))
        throw Error(what + " exchanges " + std::to_string(v) + " elements between two ranks, more than MPI's limit of " +
                    std::to_string(INT_MAX) + " per message; run it on more ranks");
    return static_cast<int>(v);
}

}  // namespace

void initialize() { world(); }
bool launchedByMpi() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
        if (std::getenv(v)) return true;
    return false;
}
int rank() { return world().rank; }
int ranks() { return world().ranks; }
int localRank() { return world().localRank; }

double sum(double v) {
    initialize();
    double s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return s;
}

double maxOf(double v) {
    initialize();
    double m = 0;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

std::size_t maxOver(std::size_t v) {
    initialize();
    unsigned long long in = v, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    return static_cast<std::size_t>(out);
}

std::size_t minOver(std::size_t v) {
    initialize();
    unsigned long long in = v, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    return static_cast<std::size_t>(out);
}

bool all(bool v) {
    initialize();
    int in = v ? 1 : 0, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return out != 0;
}

std::vector<unsigned char> gatherOnRoot(const void* data, std::size_t count, std::size_t elementBytes) {
    initialize();
    const World& w = world();
    MPI_Datatype element;
    MPI_Type_contiguous(asInt(elementBytes, "a gather"), MPI_BYTE, &element);
    MPI_Type_commit(&element);
    const int mine = asInt(count, "a gather");
    std::vector<int> counts(w.ranks), offsets(w.ranks);
    MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<unsigned char> all;
    if (w.rank == 0) {
        std::size_t total = 0;
        for (int r = 0; r < w.ranks; ++r) {
            offsets[r] = asInt(total, "a gather");
            total += static_cast<std::size_t>(counts[r]);
        }
        all.resize(total * elementBytes);
    }
    MPI_Gatherv(data, mine, element, all.data(), counts.data(), offsets.data(), element, 0, MPI_COMM_WORLD);
    MPI_Type_free(&element);
    return all;
}

void broadcast(void* data, std::size_t bytes) {
    initialize();
    MPI_Bcast(data, asInt(bytes, "a broadcast"), MPI_BYTE, 0, MPI_COMM_WORLD);
}

void allToAll(const void* send, const std::vector<std::size_t>& sendCounts, const std::vector<std::size_t>& sendOffsets,
              void* recv, const std::vector<std::size_t>& recvCounts, const std::vector<std::size_t>& recvOffsets,
              std::size_t elementBytes, const std::string& what) {
    initialize();
    const std::size_t n = sendCounts.size();
    std::vector<int> sc(n), so(n), rc(n), ro(n);
    for (std::size_t r = 0; r < n; ++r) {
        sc[r] = asInt(sendCounts[r], what);
        so[r] = asInt(sendOffsets[r], what);
        rc[r] = asInt(recvCounts[r], what);
        ro[r] = asInt(recvOffsets[r], what);
    }
    MPI_Datatype element;
    MPI_Type_contiguous(static_cast<int>(elementBytes), MPI_BYTE, &element);
    MPI_Type_commit(&element);
    const int status = MPI_Alltoallv(send, sc.data(), so.data(), element, recv, rc.data(), ro.data(), element, MPI_COMM_WORLD);
    MPI_Type_free(&element);
    if (status != MPI_SUCCESS) throw Error(what + ": MPI_Alltoallv failed (error " + std::to_string(status) + ")");
}

void barrier() {
    initialize();
    MPI_Barrier(MPI_COMM_WORLD);
}

void abortAll(int code) {
    initialize();
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
}

}  // namespace portacl::kwave::distributed
