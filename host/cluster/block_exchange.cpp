#include "portacl/cluster/block_exchange.hpp"

#include <sys/statvfs.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>

#ifdef PORTACL_HAVE_MPI
#include <mpi.h>
#endif

#include "parallel_copy.hpp"
#include "portacl/cluster/collectives.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/host_cores.hpp"
#include "portacl/runtime/host_pool.hpp"

namespace portacl::cluster {
namespace {

// The request's method, else PORTACL_EXCHANGE's: "auto" (the window on one node), "mpi" or "window".
std::string requestedMethod(const std::string& asked) {
    const char* v = std::getenv("PORTACL_EXCHANGE");
    const std::string s = !asked.empty() ? asked : v ? v : "";
    if (s.empty() || s == "auto" || s == "mpi" || s == "window") return s.empty() ? "auto" : s;
    throw Error((asked.empty() ? "PORTACL_EXCHANGE is '" : "the exchange method '") + s + (asked.empty() ? "'" : "' is unknown") +
                "; it takes auto, mpi or window");
}

#ifdef PORTACL_HAVE_MPI
std::string megabytes(double bytes) { return std::to_string(static_cast<long long>(bytes / 1e6 + 0.5)) + " MB"; }

// Where Open MPI puts a shared window's backing file (its osc/sm component; /dev/shm by default), and
// whether it has room for `bytes`: a tmpfs that runs out while the window's pages are first touched
// kills the process (SIGBUS), so a window that does not fit is not made.
std::string windowRoomProblem(std::size_t bytes) {
    const char* dir = std::getenv("OMPI_MCA_osc_sm_backing_directory");
    const std::string where = dir && *dir ? dir : "/dev/shm";
    struct statvfs fs {};
    if (::statvfs(where.c_str(), &fs) != 0) return "";  // elsewhere (another MPI, another system): MPI decides
    const double room = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
    if (room >= static_cast<double>(bytes) * 1.05) return "";
    return where + " has " + megabytes(room) + " free and the window needs " + megabytes(static_cast<double>(bytes));
}
#endif

}  // namespace

struct BlockExchange::Impl {
    std::string what, description;
    Method method = Method::Mpi;
    int rank = 0, size = 1;
    std::unique_ptr<HostPool> threads;  // the copies' (they sleep between exchanges)
#ifdef PORTACL_HAVE_MPI
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Win win = MPI_WIN_NULL;
    std::size_t segmentBytes = 0;
    std::vector<const unsigned char*> segments;  // every rank's segment, in this process's addresses
    std::vector<unsigned long long> outgoing, incoming;  // per rank: {offset, bytes} told and heard

    // Makes the window; returns why it could not be made ("" when it was), the same on every rank.
    std::string makeWindow(std::size_t maxSendBytes, const World& world) {
        segmentBytes = std::max<std::size_t>(maxSendBytes, 64);
        unsigned long long total = 0, mine = segmentBytes;
        MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        std::string problem = rank == 0 ? windowRoomProblem(static_cast<std::size_t>(total)) : "";
        problem = world.broadcast(problem);
        if (!problem.empty()) return problem;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");  // each segment on its own pages, first touched by its rank
        void* base = nullptr;
        int status = MPI_Win_allocate_shared(static_cast<MPI_Aint>(segmentBytes), 1, info, comm, &base, &win);
        MPI_Info_free(&info);
        int made = status == MPI_SUCCESS ? 1 : 0, all = 0;
        MPI_Allreduce(&made, &all, 1, MPI_INT, MPI_LAND, comm);
        if (!all) {
            if (made) MPI_Win_free(&win);
            MPI_Comm_free(&comm);
            char text[MPI_MAX_ERROR_STRING] = {0};
            int length = 0;
            if (status != MPI_SUCCESS) MPI_Error_string(status, text, &length);
            return "MPI_Win_allocate_shared failed" + (length ? " (" + std::string(text, static_cast<std::size_t>(length)) + ")" : std::string());
        }
        segments.assign(static_cast<std::size_t>(size), nullptr);
        for (int r = 0; r < size; ++r) {
            MPI_Aint bytes = 0;
            int unit = 0;
            void* at = nullptr;
            MPI_Win_shared_query(win, r, &bytes, &unit, &at);
            segments[static_cast<std::size_t>(r)] = static_cast<const unsigned char*>(at);
        }
        // The pages now, on this rank's memory node; a passive epoch on every rank for MPI_Win_sync.
        std::memset(base, 0, segmentBytes);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
        outgoing.assign(2 * static_cast<std::size_t>(size), 0);
        incoming.assign(2 * static_cast<std::size_t>(size), 0);
        return "";
    }

    void exchangeThroughWindow(const unsigned char* send, const std::vector<std::size_t>& sendCounts,
                               const std::vector<std::size_t>& sendOffsets, unsigned char* recv,
                               const std::vector<std::size_t>& recvCounts, const std::vector<std::size_t>& recvOffsets,
                               std::size_t elementBytes) {
        const std::size_t R = static_cast<std::size_t>(size), me = static_cast<std::size_t>(rank);
        auto* mine = const_cast<unsigned char*>(segments[me]);
        // 1. What goes to the other ranks, packed in rank order into this rank's segment.
        std::vector<detail::CopyRange> copies;
        std::size_t at = 0;
        for (std::size_t r = 0; r < R; ++r) {
            const std::size_t bytes = r == me ? 0 : sendCounts[r] * elementBytes;
            outgoing[2 * r] = at;
            outgoing[2 * r + 1] = bytes;
            if (!bytes) continue;
            if (at + bytes > segmentBytes)
                throw Error(what + " sends " + megabytes(static_cast<double>(at + bytes)) + " from rank " + std::to_string(rank) +
                            ", more than the " + megabytes(static_cast<double>(segmentBytes)) + " its exchange was made for");
            copies.push_back({mine + at, send + sendOffsets[r] * elementBytes, bytes});
            at += bytes;
        }
        detail::copyInParallel(*threads, copies);
        // 2. Where each block lies; it also says every rank's segment is written.
        MPI_Win_sync(win);
        MPI_Alltoall(outgoing.data(), 2, MPI_UNSIGNED_LONG_LONG, incoming.data(), 2, MPI_UNSIGNED_LONG_LONG, comm);
        MPI_Win_sync(win);
        // 3. This rank's blocks out of the other ranks' segments, and its own block.
        copies.clear();
        for (std::size_t q = 0; q < R; ++q) {
            const std::size_t expected = recvCounts[q] * elementBytes;
            if (q == me) {
                if (expected != sendCounts[me] * elementBytes)
                    throw Error(what + ": rank " + std::to_string(rank) + " sends itself " + std::to_string(sendCounts[me]) +
                                " elements but expects " + std::to_string(recvCounts[me]));
                if (expected) copies.push_back({recv + recvOffsets[me] * elementBytes, send + sendOffsets[me] * elementBytes, expected});
                continue;
            }
            const std::size_t offset = static_cast<std::size_t>(incoming[2 * q]), bytes = static_cast<std::size_t>(incoming[2 * q + 1]);
            if (bytes != expected)
                throw Error(what + ": rank " + std::to_string(q) + " sends " + std::to_string(bytes) + " bytes to rank " +
                            std::to_string(rank) + ", which expects " + std::to_string(expected));
            if (bytes) copies.push_back({recv + recvOffsets[q] * elementBytes, segments[q] + offset, bytes});
        }
        detail::copyInParallel(*threads, copies);
        // 4. No segment is written again (the next exchange) before every rank has read its blocks.
        MPI_Barrier(comm);
    }

    ~Impl() {
        // Freeing the window is collective. Unwinding after an error some ranks may never have met, it
        // would wait for them for ever instead of letting this rank report and end the job: the window
        // is left to the end of the process then.
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (finalized || std::uncaught_exceptions() > 0) return;
        if (win != MPI_WIN_NULL) {
            MPI_Win_unlock_all(win);
            MPI_Win_free(&win);
        }
        if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    }
#endif
};

unsigned BlockExchange::defaultThreads(const World& world) {
    if (const char* v = std::getenv("PORTACL_EXCHANGE_THREADS"); v && *v) {
        char* end = nullptr;
        const long n = std::strtol(v, &end, 10);
        if (*end || n < 1 || n > 1024) throw Error("PORTACL_EXCHANGE_THREADS is '" + std::string(v) + "'; it takes a thread count from 1 to 1024");
        return static_cast<unsigned>(n);
    }
    const unsigned share = machineCores() / static_cast<unsigned>(std::max(world.localSize(), 1));
    return std::max(1u, std::min(usableCores(), share));
}

BlockExchange::BlockExchange(std::size_t maxSendBytes, const std::string& what, const Request& request, const World& world)
    : impl_(std::make_unique<Impl>()) {
    Impl& m = *impl_;
    m.what = what;
    m.rank = world.rank();
    m.size = world.size();
    m.description = "a copy (one rank)";
    const std::string requested = requestedMethod(request.method);
#ifdef PORTACL_HAVE_MPI
    if (!world.runsMpi() || world.size() < 2) return;
    // Every rank chooses alike, since the window is made by all: the node (the same answer on every
    // rank), then what each was asked.
    if (world.localSize() != world.size()) {
        m.description = "MPI_Alltoallv (the ranks span several nodes)";
        return;
    }
    if (!all(requested != "mpi", world)) {
        m.description = "MPI_Alltoallv (asked for)";
        return;
    }
    const unsigned threads = request.threads ? request.threads : defaultThreads(world);
    const std::string problem = m.makeWindow(maxSendBytes, world);
    if (!problem.empty()) {
        m.description = "MPI_Alltoallv (no shared-memory window: " + problem + ")";
        return;
    }
    m.method = Method::SharedWindow;
    m.threads = std::make_unique<HostPool>(threads);
    m.description = "a shared-memory window, " + std::to_string(threads) + (threads == 1 ? " copy thread" : " copy threads") + " a rank";
#else
    (void)maxSendBytes, (void)requested, (void)request;
#endif
}

BlockExchange::~BlockExchange() = default;

BlockExchange::Method BlockExchange::method() const { return impl_->method; }
unsigned BlockExchange::threads() const { return impl_->threads ? impl_->threads->threads() : 1; }
const std::string& BlockExchange::describe() const { return impl_->description; }

void BlockExchange::allToAll(const void* send, const std::vector<std::size_t>& sendCounts, const std::vector<std::size_t>& sendOffsets,
                             void* recv, const std::vector<std::size_t>& recvCounts, const std::vector<std::size_t>& recvOffsets,
                             std::size_t elementBytes) {
    Impl& m = *impl_;
    const std::size_t R = static_cast<std::size_t>(m.size);
    if (sendCounts.size() != R || sendOffsets.size() != R || recvCounts.size() != R || recvOffsets.size() != R)
        throw Error(m.what + ": the exchange takes a count and an offset per rank (" + std::to_string(R) + ")");
#ifdef PORTACL_HAVE_MPI
    if (m.method == Method::SharedWindow) {
        m.exchangeThroughWindow(static_cast<const unsigned char*>(send), sendCounts, sendOffsets, static_cast<unsigned char*>(recv), recvCounts,
                                recvOffsets, elementBytes);
        return;
    }
#endif
    cluster::allToAll(send, sendCounts, sendOffsets, recv, recvCounts, recvOffsets, elementBytes, m.what);
}

}  // namespace portacl::cluster
