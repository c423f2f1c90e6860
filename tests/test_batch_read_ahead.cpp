// The batch's read-ahead (apps/portacl/read_ahead.hpp): every item taken is the one read for it, each
// read once; one process expects the whole batch, an MPI rank each chunk it is handed, and a chunk
// forgotten before all of it was taken frees what was read and leaves the readers free for the next.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../apps/portacl/read_ahead.hpp"

using portacl::cli::ReadAhead;

namespace {

struct Counted {
    std::vector<std::atomic<int>> reads;
    std::atomic<int> onReaders{0};
    std::thread::id caller = std::this_thread::get_id();
    explicit Counted(std::size_t n) : reads(n) {}
    std::string read(std::size_t i) {
        ++reads[i];
        if (std::this_thread::get_id() != caller) ++onReaders;
        if (i == 13) throw std::runtime_error("item 13 is unreadable");
        return "item " + std::to_string(i);
    }
};

// Waits until `pred` holds, at most two seconds.
template <typename Pred>
bool eventually(Pred pred) {
    for (int t = 0; t < 2000 && !pred(); ++t) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return pred();
}

}  // namespace

TEST(BatchReadAhead, TheWholeBatchInOrderEachItemReadOnce) {
    Counted c(40);
    ReadAhead<std::string> ahead(40, [&](std::size_t i) { return c.read(i); }, 3, 4);
    ahead.expect(0, 40);
    for (std::size_t i = 0; i < 40; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the member's device work
        if (i == 13) {
            EXPECT_THROW(ahead.take(i), std::runtime_error);
            continue;
        }
        EXPECT_EQ(ahead.take(i), "item " + std::to_string(i));
    }
    for (std::size_t i = 0; i < 40; ++i) EXPECT_EQ(c.reads[i].load(), 1) << "item " << i;
    EXPECT_GE(c.onReaders.load(), 30) << "the readers, not the caller, read most items";
}

TEST(BatchReadAhead, ChunksOfARankAndAForgottenChunkStopsNoReader) {
    Counted c(60);
    ReadAhead<std::string> ahead(60, [&](std::size_t i) { return c.read(i); }, 2, 3);
    EXPECT_FALSE(eventually([&] { return c.onReaders.load() > 0; })) << "nothing is read before it is expected";
    ahead.expect(20, 40);  // a rank's first chunk
    EXPECT_EQ(ahead.take(20), "item 20");
    EXPECT_EQ(ahead.take(21), "item 21");
    // The chunk stopped early (another rank finished it): the window of 3 is full of its items.
    ASSERT_TRUE(eventually([&] { return c.reads[22] + c.reads[23] + c.reads[24] == 3; }));
    ahead.forget(20, 40);
    ahead.expect(50, 60);
    ASSERT_TRUE(eventually([&] { return c.reads[50] + c.reads[51] + c.reads[52] == 3; })) << "the forgotten items still hold the window";
    for (std::size_t i = 50; i < 60; ++i) EXPECT_EQ(ahead.take(i), "item " + std::to_string(i));
    for (std::size_t i = 25; i < 40; ++i) EXPECT_EQ(c.reads[i].load(), 0) << "item " << i << " of the forgotten chunk was read";
    for (std::size_t i = 50; i < 60; ++i) EXPECT_EQ(c.reads[i].load(), 1) << "item " << i;
    EXPECT_EQ(ahead.take(5), "item 5") << "an item never expected is read by the one who takes it";
}
