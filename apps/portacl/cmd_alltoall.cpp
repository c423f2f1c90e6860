// portacl alltoall: the all-to-all of the distributed solvers alone, between the ranks of mpirun
// (cluster::BlockExchange): MPI_Alltoallv, and the shared-memory window with each thread count asked
// for, on the blocks of a k-Wave transform's transpose (--grid) or blocks of a given size. Every
// method's first exchange is checked byte for byte; the next ones are timed.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "batch.hpp"
#include "command.hpp"
#include "text_table.hpp"
#include "portacl/cluster/block_exchange.hpp"
#include "portacl/cluster/collectives.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::cli {
namespace {

// Byte i of the block rank s sends rank r: every block differs from every other.
inline unsigned char pattern(std::size_t s, std::size_t r, std::size_t i) {
    return static_cast<unsigned char>((i * 2654435761u >> 7) ^ (i >> 9) ^ (s * 37 + r * 11 + 1));
}

struct Blocks {
    std::size_t elementBytes = 1;
    std::vector<std::size_t> sendCounts, sendOffsets, recvCounts, recvOffsets;  // in elements
    std::size_t sendBytes = 0, recvBytes = 0, totalBytes = 0;                   // totalBytes: every rank's to the others
    std::string what;
};

// The blocks of each rank, packed in rank order without its block to itself, as the k-Wave
// transposes pack theirs. count(s, r): elements rank s sends rank r.
template <typename Count>
Blocks layOut(int ranks, int me, std::size_t elementBytes, const Count& count) {
    Blocks b;
    b.elementBytes = elementBytes;
    const std::size_t R = static_cast<std::size_t>(ranks), m = static_cast<std::size_t>(me);
    b.sendCounts.assign(R, 0), b.sendOffsets.assign(R, 0), b.recvCounts.assign(R, 0), b.recvOffsets.assign(R, 0);
    std::size_t sent = 0, received = 0;
    for (std::size_t r = 0; r < R; ++r) {
        for (std::size_t s = 0; s < R; ++s)
            if (s != r) b.totalBytes += count(s, r) * elementBytes;
        if (r == m) continue;
        b.sendOffsets[r] = sent;
        b.sendCounts[r] = count(m, r);
        sent += b.sendCounts[r];
        b.recvOffsets[r] = received;
        b.recvCounts[r] = count(r, m);
        received += b.recvCounts[r];
    }
    b.sendBytes = sent * elementBytes;
    b.recvBytes = received * elementBytes;
    return b;
}

// Megabytes with three significant figures at least.
std::string mb(double bytes) {
    const double v = bytes / 1e6;
    std::ostringstream os;
    os << std::fixed << std::setprecision(v >= 100 ? 1 : v >= 1 ? 2 : 3) << v;
    return os.str();
}

std::string fixed(double v, int digits) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(digits) << v;
    return os.str();
}

struct Timing {
    std::string method;
    double medianSeconds = 0, bestSeconds = 0;
};

// One method: its first exchange checked, then `repeats` timed (each the slowest rank's time).
Timing timeMethod(const cluster::World& world, const Blocks& b, const cluster::BlockExchange::Request& request, int repeats,
                  const std::vector<unsigned char>& send, std::vector<unsigned char>& recv) {
    cluster::BlockExchange exchange(b.sendBytes, "the benchmark's exchange", request, world);
    std::fill(recv.begin(), recv.end(), 0);
    exchange.allToAll(send.data(), b.sendCounts, b.sendOffsets, recv.data(), b.recvCounts, b.recvOffsets, b.elementBytes);
    const std::size_t me = static_cast<std::size_t>(world.rank());
    std::string wrong;
    for (std::size_t q = 0; q < b.recvCounts.size() && wrong.empty(); ++q) {
        const unsigned char* block = recv.data() + b.recvOffsets[q] * b.elementBytes;
        for (std::size_t i = 0; i < b.recvCounts[q] * b.elementBytes; ++i)
            if (block[i] != pattern(q, me, i)) {
                wrong = "rank " + std::to_string(me) + " received a wrong byte " + std::to_string(i) + " from rank " + std::to_string(q) +
                        " through " + exchange.describe();
                break;
            }
    }
    if (const std::string verdict = world.agree(wrong); !verdict.empty()) throw Error(verdict);
    std::vector<double> seconds;
    for (int k = 0; k < repeats; ++k) {
        world.barrier();
        const auto t0 = std::chrono::steady_clock::now();
        exchange.allToAll(send.data(), b.sendCounts, b.sendOffsets, recv.data(), b.recvCounts, b.recvOffsets, b.elementBytes);
        seconds.push_back(cluster::maxOf(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), world));
    }
    std::sort(seconds.begin(), seconds.end());
    return {exchange.describe(), seconds[seconds.size() / 2], seconds.front()};
}

std::vector<unsigned> parseThreads(const std::string& text, unsigned byDefault) {
    std::vector<unsigned> out;
    if (text.empty()) {
        for (unsigned t = 1; t < byDefault; t *= 2) out.push_back(t);
        out.push_back(byDefault);
        return out;
    }
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        std::size_t used = 0;
        unsigned long t = 0;
        try {
            t = std::stoul(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != item.size() || t < 1 || t > 1024) throw Error("--threads takes thread counts from 1 to 1024 separated by commas, not '" + text + "'");
        out.push_back(static_cast<unsigned>(t));
    }
    return out;
}

int runAlltoall(const std::vector<std::string>& args) {
    po::options_description desc("portacl alltoall options (under mpirun)");
    std::size_t grid = 256;
    double blockMb = 0;
    int repeats = 10;
    std::string threadList;
    bool help = false;
    desc.add_options()("help,h", po::bool_switch(&help), "show this help")(
        "grid", po::value(&grid)->default_value(grid),
        "the blocks of a GRID^3 single-precision k-Wave transform's transpose over these ranks (the distributed solver's slabs)")(
        "block-mb", po::value(&blockMb), "instead: this many MB (10^6 bytes, whole bytes, odd sizes allowed) from each rank to each other")(
        "threads", po::value(&threadList),
        "the window's copy threads a rank, comma-separated (default: 1, 2, 4, ... up to the exchange's own count)")(
        "repeats", po::value(&repeats)->default_value(repeats), "timed exchanges per method, after one checked");
    po::variables_map vm;
    if (!parseArgs(args, desc, {}, vm, "usage: mpirun -n R portacl alltoall [--grid N | --block-mb X] [--threads 1,4,16] [--repeats K]", help))
        return 0;
    cluster::World* world = ranks();
    if (!world) throw Error("portacl alltoall times the exchange between the ranks of an MPI job; start it with mpirun -n 2 or more");
    if (repeats < 1) throw Error("--repeats takes 1 or more");
    const int R = world->size(), me = world->rank();
    Blocks b;
    if (vm.count("block-mb")) {
        if (!(blockMb > 0) || blockMb > 1e5) throw Error("--block-mb takes a size above 0 and at most 100000 MB");
        const auto bytes = static_cast<std::size_t>(blockMb * 1e6 + 0.5);
        b = layOut(R, me, 1, [&](std::size_t, std::size_t) { return bytes; });
        b.what = "blocks of " + std::to_string(bytes) + " bytes from each rank to each other";
    } else {
        if (grid < 2 * static_cast<std::size_t>(R) || grid > 8192)
            throw Error("--grid takes a size from 2 planes a rank (" + std::to_string(2 * R) + ") to 8192");
        // Rank s holds count(s) z planes and, after the transpose, count(r) y rows: it sends rank r
        // count(s) x count(r) x (N/2+1) complex floats.
        auto share = [&](std::size_t r) { return grid / static_cast<std::size_t>(R) + (r < grid % static_cast<std::size_t>(R) ? 1 : 0); };
        b = layOut(R, me, 8, [&](std::size_t s, std::size_t r) { return share(s) * share(r) * (grid / 2 + 1); });
        b.what = "the blocks of a " + std::to_string(grid) + "^3 single-precision transform's transpose";
    }
    const unsigned byDefault = cluster::BlockExchange::defaultThreads(*world);
    const std::vector<unsigned> threads = parseThreads(threadList, byDefault);
    passRankGate();

    std::vector<unsigned char> send(std::max<std::size_t>(b.sendBytes, 1)), recv(std::max<std::size_t>(b.recvBytes, 1));
    for (std::size_t r = 0; r < b.sendCounts.size(); ++r) {
        unsigned char* block = send.data() + b.sendOffsets[r] * b.elementBytes;
        for (std::size_t i = 0; i < b.sendCounts[r] * b.elementBytes; ++i) block[i] = pattern(static_cast<std::size_t>(me), r, i);
    }
    if (world->isRoot())
        std::cout << "portacl alltoall: " << R << " ranks on " << (world->localSize() == R ? "one node" : "several nodes") << ", " << b.what
                  << ": rank 0 sends " << mb(b.sendBytes) << " MB to the others, " << mb(b.totalBytes)
                  << " MB cross between the ranks per exchange; the median and best of " << repeats
                  << " timed exchanges (the slowest rank's) after one checked" << std::endl;
    std::vector<Timing> rows{timeMethod(*world, b, {"mpi", 0}, repeats, send, recv)};
    for (unsigned t : threads) rows.push_back(timeMethod(*world, b, {"window", t}, repeats, send, recv));
    if (world->isRoot()) {
        TextTable table({"method", "median ms", "best ms", "GB/s (median)", "vs MPI_Alltoallv"}, {false, true, true, true, true});
        for (const auto& r : rows)
            table.add({r.method, fixed(r.medianSeconds * 1e3, 3), fixed(r.bestSeconds * 1e3, 3), fixed(b.totalBytes / r.medianSeconds / 1e9, 2),
                       fixed(rows.front().medianSeconds / r.medianSeconds, 2) + "x"});
        table.print(std::cout);
        std::cout << "GB/s: the bytes every rank sends to the others, summed over the ranks, over the median exchange's time\n";
    }
    return 0;
}

}  // namespace

PORTACL_COMMAND("alltoall", "the distributed solvers' all-to-all alone under mpirun: MPI_Alltoallv against the shared-memory window", runAlltoall);
PORTACL_OVER_RANKS("alltoall", alltoall);

}  // namespace portacl::cli
