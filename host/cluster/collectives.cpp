#include "portacl/cluster/collectives.hpp"

#include <climits>
#include <cstdlib>
#include <cstring>

#ifdef PORTACL_HAVE_MPI
#include <mpi.h>
#endif

#include "portacl/runtime/error.hpp"

namespace portacl::cluster {
namespace {

#ifdef PORTACL_HAVE_MPI
int asInt(std::size_t v, const std::string& what) {
    if (v > static_cast<std::size_t>(INT_MAX))
        throw Error(what + " exchanges " + std::to_string(v) + " elements between two ranks, more than MPI's limit of " +
                    std::to_string(INT_MAX) + " per message; run it on more ranks");
    return static_cast<int>(v);
}

// A datatype of `bytes` bytes, freed at the end of the scope.
struct Element {
    MPI_Datatype type;
    Element(std::size_t bytes, const std::string& what) {
        MPI_Type_contiguous(asInt(bytes, what), MPI_BYTE, &type);
        MPI_Type_commit(&type);
    }
    ~Element() { MPI_Type_free(&type); }
};

template <typename T>
T reduce(T v, MPI_Datatype type, MPI_Op op) {
    T out{};
    MPI_Allreduce(&v, &out, 1, type, op, MPI_COMM_WORLD);
    return out;
}
#endif

}  // namespace

double sum(double v, const World& world) {
#ifdef PORTACL_HAVE_MPI
    if (world.runsMpi()) return reduce(v, MPI_DOUBLE, MPI_SUM);
#endif
    (void)world;
    return v;
}

double maxOf(double v, const World& world) {
#ifdef PORTACL_HAVE_MPI
    if (world.runsMpi()) return reduce(v, MPI_DOUBLE, MPI_MAX);
#endif
    (void)world;
    return v;
}

std::size_t maxOver(std::size_t v, const World& world) {
#ifdef PORTACL_HAVE_MPI
    if (world.runsMpi()) return static_cast<std::size_t>(reduce<unsigned long long>(v, MPI_UNSIGNED_LONG_LONG, MPI_MAX));
#endif
    (void)world;
    return v;
}

std::size_t minOver(std::size_t v, const World& world) {
#ifdef PORTACL_HAVE_MPI
    if (world.runsMpi()) return static_cast<std::size_t>(reduce<unsigned long long>(v, MPI_UNSIGNED_LONG_LONG, MPI_MIN));
#endif
    (void)world;
    return v;
}

bool all(bool v, const World& world) {
#ifdef PORTACL_HAVE_MPI
    if (world.runsMpi()) return reduce<int>(v ? 1 : 0, MPI_INT, MPI_LAND) != 0;
#endif
    (void)world;
    return v;
}

std::vector<unsigned char> gatherOnRoot(const void* data, std::size_t count, std::size_t elementBytes, const World& world) {
#ifdef PORTACL_HAVE_MPI
    if (world.runsMpi()) {
        const Element element(elementBytes, "a gather");
        const int mine = asInt(count, "a gather");
        std::vector<int> counts(static_cast<std::size_t>(world.size())), offsets(counts.size());
        MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
        std::vector<unsigned char> all;
        if (world.isRoot()) {
            std::size_t total = 0;
            for (std::size_t r = 0; r < counts.size(); ++r) {
                offsets[r] = asInt(total, "a gather");
                total += static_cast<std::size_t>(counts[r]);
            }
            all.resize(total * elementBytes);
        }
        MPI_Gatherv(data, mine, element.type, all.data(), counts.data(), offsets.data(), element.type, 0, MPI_COMM_WORLD);
        return all;
    }
#endif
    (void)world;
    const auto* bytes = static_cast<const unsigned char*>(data);
    return std::vector<unsigned char>(bytes, bytes + count * elementBytes);
}

void broadcast(void* data, std::size_t bytes, const World& world) {
#ifdef PORTACL_HAVE_MPI
    if (world.runsMpi()) {
        MPI_Bcast(data, asInt(bytes, "a broadcast"), MPI_BYTE, 0, MPI_COMM_WORLD);
        return;
    }
#endif
    (void)data, (void)bytes, (void)world;
}

void allToAll(const void* send, const std::vector<std::size_t>& sendCounts, const std::vector<std::size_t>& sendOffsets, void* recv,
              const std::vector<std::size_t>& recvCounts, const std::vector<std::size_t>& recvOffsets, std::size_t elementBytes,
              const std::string& what, const World& world) {
#ifdef PORTACL_HAVE_MPI
    if (world.runsMpi()) {
        const std::size_t n = sendCounts.size();
        std::vector<int> sc(n), so(n), rc(n), ro(n);
        for (std::size_t r = 0; r < n; ++r) {
            sc[r] = asInt(sendCounts[r], what);
            so[r] = asInt(sendOffsets[r], what);
            rc[r] = asInt(recvCounts[r], what);
            ro[r] = asInt(recvOffsets[r], what);
        }
        const Element element(elementBytes, what);
        const int status = MPI_Alltoallv(send, sc.data(), so.data(), element.type, recv, rc.data(), ro.data(), element.type, MPI_COMM_WORLD);
        if (status != MPI_SUCCESS) throw Error(what + ": MPI_Alltoallv failed (error " + std::to_string(status) + ")");
        return;
    }
#endif
    (void)world;
    // One rank: its block to itself.
    if (!sendCounts.empty() && sendCounts[0])
        std::memcpy(static_cast<unsigned char*>(recv) + recvOffsets[0] * elementBytes,
                    static_cast<const unsigned char*>(send) + sendOffsets[0] * elementBytes, sendCounts[0] * elementBytes);
    (void)recvCounts;
}

void abortAll(int code, const World& world) {
#ifdef PORTACL_HAVE_MPI
    if (world.runsMpi()) MPI_Abort(MPI_COMM_WORLD, code);
#endif
    (void)world;
    std::exit(code);
}

}  // namespace portacl::cluster
