// cluster::BlockExchange under mpiexec (tests/CMakeLists.txt runs this program on 2 and 3 ranks of one
// host): the shared-memory window's exchange against MPI_Alltoallv's (cluster::allToAll) on the same
// blocks, byte for byte.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "portacl/cluster/block_exchange.hpp"
#include "portacl/cluster/collectives.hpp"
#include "portacl/runtime/error.hpp"

using namespace portacl;
using cluster::BlockExchange;

namespace {

const cluster::World& world() { return cluster::World::process(); }

// Blocks laid out as a caller may: rank order reversed, a gap of 5 elements before each block, the
// block to itself included.
struct Layout {
    std::vector<std::size_t> sendCounts, sendOffsets, recvCounts, recvOffsets;
    std::size_t sendElements = 0, recvElements = 0, sentToOthers = 0;  // buffer sizes; elements to the other ranks
};

template <typename Count>
Layout layOut(const Count& count) {
    const std::size_t R = static_cast<std::size_t>(world().size()), me = static_cast<std::size_t>(world().rank());
    Layout l;
    l.sendCounts.assign(R, 0), l.sendOffsets.assign(R, 0), l.recvCounts.assign(R, 0), l.recvOffsets.assign(R, 0);
    for (std::size_t k = R; k-- > 0;) {
        l.sendOffsets[k] = l.sendElements + 5;
        l.sendCounts[k] = count(me, k);
        l.sendElements = l.sendOffsets[k] + l.sendCounts[k];
        if (k != me) l.sentToOthers += l.sendCounts[k];
        l.recvOffsets[k] = l.recvElements + 5;
        l.recvCounts[k] = count(k, me);
        l.recvElements = l.recvOffsets[k] + l.recvCounts[k];
    }
    return l;
}

// Byte i of the block rank s sends rank r in `round`.
unsigned char pattern(std::size_t s, std::size_t r, std::size_t i, unsigned round) {
    return static_cast<unsigned char>((i * 2654435761u >> 5) ^ (s * 41 + r * 13 + round * 7 + 1));
}

std::vector<unsigned char> sendBuffer(const Layout& l, std::size_t elementBytes, unsigned round) {
    std::vector<unsigned char> send(l.sendElements * elementBytes + 1, 0xEE);
    const std::size_t me = static_cast<std::size_t>(world().rank());
    for (std::size_t r = 0; r < l.sendCounts.size(); ++r)
        for (std::size_t i = 0; i < l.sendCounts[r] * elementBytes; ++i) send[l.sendOffsets[r] * elementBytes + i] = pattern(me, r, i, round);
    return send;
}

// The window's exchange and MPI_Alltoallv's of the same blocks: equal, the gaps untouched, and each
// block the sender's.
void expectLikeMpi(BlockExchange& exchange, const Layout& l, std::size_t elementBytes, unsigned round) {
    const std::vector<unsigned char> send = sendBuffer(l, elementBytes, round);
    std::vector<unsigned char> byWindow(l.recvElements * elementBytes + 1, 0xAB), byMpi = byWindow;
    exchange.allToAll(send.data(), l.sendCounts, l.sendOffsets, byWindow.data(), l.recvCounts, l.recvOffsets, elementBytes);
    cluster::allToAll(send.data(), l.sendCounts, l.sendOffsets, byMpi.data(), l.recvCounts, l.recvOffsets, elementBytes, "the test's exchange");
    EXPECT_TRUE(byWindow == byMpi) << "rank " << world().rank() << ", round " << round << ", " << elementBytes << "-byte elements";
    const std::size_t me = static_cast<std::size_t>(world().rank());
    std::size_t wrong = 0;
    for (std::size_t q = 0; q < l.recvCounts.size(); ++q)
        for (std::size_t i = 0; i < l.recvCounts[q] * elementBytes; ++i)
            wrong += byWindow[l.recvOffsets[q] * elementBytes + i] != pattern(q, me, i, round);
    EXPECT_EQ(wrong, 0u) << "rank " << world().rank() << ", round " << round;
    EXPECT_EQ(byWindow.back(), 0xAB);
    EXPECT_EQ(byWindow[0], 0xAB);
}

BlockExchange::Request windowWith(unsigned threads) {
    BlockExchange::Request r;
    r.method = "window";
    r.threads = threads;
    return r;
}

}  // namespace

// Odd element counts, zero-sized blocks (some pairs, and a block to itself), 1-, 3-, 8- and 16-byte
// elements, and blocks that change from round to round in one exchange; 1 and 3 copy threads.
TEST(BlockExchange, WindowEqualsMpiAlltoallv) {
    ASSERT_GE(world().size(), 2) << "run under mpiexec -n 2 or more";
    for (unsigned threads : {1u, 3u}) {
        // At most 40 007 16-byte elements to each of the 2 other ranks of 3.
        BlockExchange exchange(2 * 40007 * 16, "the test's exchange", windowWith(threads));
        ASSERT_EQ(exchange.method(), BlockExchange::Method::SharedWindow) << exchange.describe();
        EXPECT_EQ(exchange.threads(), threads);
        EXPECT_NE(exchange.describe().find("shared-memory window"), std::string::npos) << exchange.describe();
        unsigned round = 0;
        for (std::size_t elementBytes : {1u, 3u, 8u, 16u}) {
            for (unsigned shape = 0; shape < 3; ++shape, ++round) {
                const Layout l = layOut([&](std::size_t s, std::size_t r) -> std::size_t {
                    if ((s + 2 * r + shape) % 4 == 0) return 0;  // zero-sized blocks, the one to itself among them
                    return 1 + (s * 7919 + r * 104729 + shape * 31 + elementBytes) % 40006;
                });
                ASSERT_LE(l.sentToOthers * elementBytes, std::size_t(2 * 40007 * 16));
                expectLikeMpi(exchange, l, elementBytes, round);
            }
        }
    }
}

// Blocks of a few MB, which the copy threads cut into pieces, with a rank that sends nothing at all.
TEST(BlockExchange, LargeBlocksInPieces) {
    const std::size_t big = 3 * (std::size_t(1) << 20) + 7;
    BlockExchange exchange(2 * big, "the test's exchange", windowWith(4));
    ASSERT_EQ(exchange.method(), BlockExchange::Method::SharedWindow) << exchange.describe();
    const Layout l = layOut([&](std::size_t s, std::size_t r) -> std::size_t { return s == 1 ? 0 : big - r; });
    expectLikeMpi(exchange, l, 1, 0);
    expectLikeMpi(exchange, l, 1, 1);
}

// Exchanges one after the other with nothing between them: no rank writes its segment again while
// another still reads it (the barrier that ends each exchange).
TEST(BlockExchange, BackToBackRoundsKeepTheirBytes) {
    const std::size_t big = 2 * (std::size_t(1) << 20) + 5;
    BlockExchange exchange(2 * big, "the test's exchange", windowWith(2));
    ASSERT_EQ(exchange.method(), BlockExchange::Method::SharedWindow) << exchange.describe();
    const Layout l = layOut([&](std::size_t s, std::size_t r) -> std::size_t { return big - 3 * s - r; });
    const std::size_t me = static_cast<std::size_t>(world().rank());
    constexpr unsigned kRounds = 8;
    std::vector<std::vector<unsigned char>> send, recv(kRounds, std::vector<unsigned char>(l.recvElements));
    for (unsigned round = 0; round < kRounds; ++round) send.push_back(sendBuffer(l, 1, round));
    for (unsigned round = 0; round < kRounds; ++round)
        exchange.allToAll(send[round].data(), l.sendCounts, l.sendOffsets, recv[round].data(), l.recvCounts, l.recvOffsets, 1);
    for (unsigned round = 0; round < kRounds; ++round) {
        std::size_t wrong = 0;
        for (std::size_t q = 0; q < l.recvCounts.size(); ++q)
            for (std::size_t i = 0; i < l.recvCounts[q]; ++i) wrong += recv[round][l.recvOffsets[q] + i] != pattern(q, me, i, round);
        EXPECT_EQ(wrong, 0u) << "rank " << me << ", round " << round;
    }
}

// Asked for MPI, or across nodes, it is MPI_Alltoallv, with the same bytes.
TEST(BlockExchange, MpiWhenAskedFor) {
    BlockExchange::Request mpi;
    mpi.method = "mpi";
    BlockExchange exchange(1000, "the test's exchange", mpi);
    EXPECT_EQ(exchange.method(), BlockExchange::Method::Mpi);
    EXPECT_EQ(exchange.threads(), 1u);
    EXPECT_NE(exchange.describe().find("MPI_Alltoallv"), std::string::npos) << exchange.describe();
    expectLikeMpi(exchange, layOut([](std::size_t s, std::size_t r) -> std::size_t { return 17 * s + 3 * r + 1; }), 4, 0);
}

// Every rank on one node (as under CTest): the window is what an unset PORTACL_EXCHANGE gives.
TEST(BlockExchange, WindowByDefaultOnOneNode) {
    if (const char* v = std::getenv("PORTACL_EXCHANGE"); v && *v) GTEST_SKIP() << "PORTACL_EXCHANGE is set";
    ASSERT_EQ(world().localSize(), world().size());
    BlockExchange exchange(1000, "the test's exchange");
    EXPECT_EQ(exchange.method(), BlockExchange::Method::SharedWindow) << exchange.describe();
    EXPECT_EQ(exchange.threads(), BlockExchange::defaultThreads());
}

// A window larger than its backing directory holds (Open MPI's /dev/shm) is not made: the exchange
// says why and is MPI_Alltoallv, with the same bytes.
TEST(BlockExchange, FallsBackToMpiWhenTheWindowDoesNotFit) {
    BlockExchange exchange(std::size_t(1) << 50, "the test's exchange", windowWith(2));
    EXPECT_EQ(exchange.method(), BlockExchange::Method::Mpi);
    EXPECT_NE(exchange.describe().find("no shared-memory window"), std::string::npos) << exchange.describe();
    EXPECT_NE(exchange.describe().find("free and the window needs"), std::string::npos) << exchange.describe();
    expectLikeMpi(exchange, layOut([](std::size_t s, std::size_t r) -> std::size_t { return 5 * s + r + 2; }), 8, 0);
}

// More than the exchange was made for is refused on every rank, in one sentence, before any rank
// waits for another; the exchange still works afterwards.
TEST(BlockExchange, RefusesMoreThanItWasMadeFor) {
    BlockExchange exchange(100, "the test's exchange", windowWith(2));
    const Layout tooMuch = layOut([](std::size_t, std::size_t) -> std::size_t { return 101; });
    const std::vector<unsigned char> send = sendBuffer(tooMuch, 1, 0);
    std::vector<unsigned char> recv(tooMuch.recvElements);
    try {
        exchange.allToAll(send.data(), tooMuch.sendCounts, tooMuch.sendOffsets, recv.data(), tooMuch.recvCounts, tooMuch.recvOffsets, 1);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("more than the"), std::string::npos) << e.what();
    }
    expectLikeMpi(exchange, layOut([](std::size_t s, std::size_t r) -> std::size_t { return s == r ? 9 : 50 - s; }), 1, 1);
    EXPECT_THROW(BlockExchange(10, "x", [] {
                     BlockExchange::Request r;
                     r.method = "sideways";
                     return r;
                 }()),
                 Error);
}

int main(int argc, char** argv) {
    cluster::World::process();  // MPI before any thread
    if (cluster::World::process().rank() != 0) GTEST_FLAG_SET(brief, true);  // the other ranks print their failures only
    ::testing::InitGoogleTest(&argc, argv);
    const int failed = RUN_ALL_TESTS();
    return cluster::all(failed == 0) ? 0 : 1;
}
