// The engine's stream compaction (the middle of the two-phase dispatch) against the serial
// compaction, at sizes around the tile boundaries and one large odd size.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "portacl/two_phase.hpp"
#include "support/test_support.hpp"

namespace portacl {
namespace {

std::vector<std::uint8_t> randomFlags(std::size_t n, double probability, unsigned seed) {
    std::mt19937 rng(seed);
    std::bernoulli_distribution flag(probability);
    std::vector<std::uint8_t> flags(n);
    for (auto& f : flags) f = flag(rng) ? static_cast<std::uint8_t>(1 + rng() % 255) : 0;  // any nonzero byte
    return flags;
}

void expectCompactionMatchesSerial(std::size_t n, double probability, unsigned seed) {
    Context& ctx = test::context();
    const auto flags = randomFlags(n, probability, seed);
    const auto expected = compactFlagsReference(flags);
    cl::Buffer flagsBuf = ctx.upload(flags, "flags");
    cl::Buffer indices = ctx.buffer(std::max<std::size_t>(n, 1) * sizeof(cl_uint), "indices");
    const std::size_t count = compactFlags(ctx, flagsBuf, n, indices);
    ASSERT_EQ(count, expected.size()) << "n = " << n;
    const auto got = ctx.download<std::uint32_t>(indices, count, "indices");
    EXPECT_EQ(got, expected) << "n = " << n;
    EXPECT_EQ(countFlags(ctx, flagsBuf, n), expected.size()) << "n = " << n;
}

TEST(StreamCompaction, MatchesSerialAtTileBoundariesAndOddSizes) {
    const std::size_t sizes[] = {0, 1, 255, 256, 257, 2047, 2048, 2049, 100003};
    unsigned seed = 1;
    for (std::size_t n : sizes)
        for (double p : {0.0, 0.03, 0.5, 1.0}) expectCompactionMatchesSerial(n, p, seed++);
}

TEST(StreamCompaction, ManyTilesExerciseTheChunkedTileScan) {
    // More tiles than one chunk of the single-work-group scan (256 * 8 tiles at the default sizes).
    expectCompactionMatchesSerial(5'000'000, 0.01, 99);
}

TEST(TwoPhaseDispatch, EmptyBatchRunsNothing) {
    // No kernel is built or launched for zero items (the names below do not exist).
    TwoPhaseKernels kernels{"predicates.cl", "no_such_phase1", "no_such_phase2", "", nullptr};
    const TwoPhaseReport r = runTwoPhase(test::context(), Precision::Float, 0, kernels);
    EXPECT_EQ(r.items, 0u);
    EXPECT_EQ(r.undecided, 0u);
    EXPECT_EQ(r.phase2Items, 0u);
}

}  // namespace
}  // namespace portacl
