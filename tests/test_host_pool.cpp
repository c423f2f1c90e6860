// The host thread pool (portacl/runtime/host_pool.hpp) that the block exchange's copies, the Voronoi
// tracer and FFTW's parallel loops run on: every item runs exactly once, an item's exception reaches
// the caller, loops nest and run from several threads at once, in both waiting modes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "portacl/runtime/host_pool.hpp"

using portacl::HostPool;
using namespace std::chrono_literals;

namespace {

// Sleeping workers (0) and spinning ones (FFTW's 200 us).
class HostPoolTest : public ::testing::TestWithParam<int> {
protected:
    std::chrono::microseconds spin() const { return std::chrono::microseconds(GetParam()); }
};

TEST_P(HostPoolTest, RunsEveryItemOnce) {
    HostPool pool(4, spin());
    EXPECT_EQ(pool.threads(), 4u);
    for (std::size_t n : {0, 1, 2, 3, 7, 100, 10007}) {
        std::vector<std::atomic<int>> runs(n);
        pool.run(n, [&](std::size_t i) { runs[i].fetch_add(1); });
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(runs[i].load(), 1) << "item " << i << " of " << n;
    }
}

TEST_P(HostPoolTest, ForRangeCoversTheRangeInChunksOfAtLeastTheGrain) {
    HostPool pool(3, spin());
    for (std::size_t n : {1, 5, 16, 17, 1000, 4099}) {
        for (std::size_t grain : {1, 4, 64}) {
            std::vector<std::atomic<int>> runs(n);
            std::atomic<int> smallChunks{0}, chunks{0};
            pool.forRange(n, grain, [&](std::size_t b, std::size_t e) {
                ASSERT_LT(b, e);
                ASSERT_LE(e, n);
                chunks.fetch_add(1);
                if (e - b < grain && e != n) smallChunks.fetch_add(1);  // only the last may be short
                for (std::size_t i = b; i < e; ++i) runs[i].fetch_add(1);
            });
            for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(runs[i].load(), 1) << "n " << n << " grain " << grain;
            EXPECT_EQ(smallChunks.load(), 0);
            if (n <= grain) EXPECT_EQ(chunks.load(), 1);
        }
    }
}

TEST_P(HostPoolTest, AnItemsExceptionReachesTheCallerAndThePoolGoesOn) {
    HostPool pool(4, spin());
    std::atomic<int> ran{0};
    EXPECT_THROW(pool.run(1000,
                          [&](std::size_t i) {
                              ran.fetch_add(1);
                              if (i == 10) throw std::runtime_error("item 10");
                              std::this_thread::sleep_for(200us);  // the others take 50 ms in all
                          }),
                 std::runtime_error);
    EXPECT_LT(ran.load(), 500);  // the items nobody had started were skipped
    try {
        pool.forRange(100, 1, [](std::size_t b, std::size_t) {
            if (b > 0) throw std::invalid_argument("chunk");
        });
        ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "chunk");
    }
    std::atomic<int> after{0};
    pool.run(500, [&](std::size_t) { after.fetch_add(1); });
    EXPECT_EQ(after.load(), 500);
}

TEST_P(HostPoolTest, NestedLoopsAndLoopsOfSeveralThreadsAtOnceComplete) {
    HostPool pool(3, spin());
    std::atomic<long> total{0};
    const auto outer = [&] {
        for (int round = 0; round < 50; ++round)
            pool.run(6, [&](std::size_t) { pool.run(5, [&](std::size_t) { total.fetch_add(1); }); });
    };
    std::thread other(outer);
    outer();
    other.join();
    EXPECT_EQ(total.load(), 2L * 50 * 6 * 5);
}

TEST_P(HostPoolTest, ReserveGrowsAndNeverShrinks) {
    HostPool pool(1, spin());
    EXPECT_EQ(pool.threads(), 1u);
    pool.reserve(3);
    EXPECT_EQ(pool.threads(), 3u);
    pool.reserve(2);
    EXPECT_EQ(pool.threads(), 3u);
    std::atomic<int> runs{0};
    pool.run(64, [&](std::size_t) { runs.fetch_add(1); });
    EXPECT_EQ(runs.load(), 64);
}

TEST_P(HostPoolTest, DestroysWithWorkersSpinningOrAsleep) {
    for (int k = 0; k < 20; ++k) {
        HostPool pool(4, spin());
        std::atomic<int> runs{0};
        pool.run(8, [&](std::size_t) { runs.fetch_add(1); });
        if (k % 2) pool.park();
        if (k % 4 == 3) std::this_thread::sleep_for(1ms);  // past the spin: asleep
        EXPECT_EQ(runs.load(), 8);
    }
}

INSTANTIATE_TEST_SUITE_P(Waiting, HostPoolTest, ::testing::Values(0, 200),
                         [](const ::testing::TestParamInfo<int>& p) { return p.param ? std::string("Spin") : std::string("Block"); });

// A pool of one thread: the caller runs everything, forRange in one call.
TEST(HostPool, OneThreadRunsEverythingOnTheCaller) {
    HostPool pool(1);
    const auto me = std::this_thread::get_id();
    std::atomic<int> elsewhere{0};
    pool.run(100, [&](std::size_t) { elsewhere.fetch_add(std::this_thread::get_id() != me); });
    pool.forRange(100, 1, [&](std::size_t b, std::size_t e) {
        EXPECT_EQ(b, 0u);
        EXPECT_EQ(e, 100u);
        elsewhere.fetch_add(std::this_thread::get_id() != me);
    });
    EXPECT_EQ(elsewhere.load(), 0);
}

}  // namespace
