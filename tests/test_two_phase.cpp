// The engine's stream compaction (the middle of the two-phase dispatch) against the serial
// compaction, at sizes around the tile boundaries and one large odd size.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

TEST(StreamCompaction, AnyWorkGroupSizeFromTheProfile) {
    // Work-group sizes that are not powers of two, through a profile that shadows the PoCL one.
    const std::string dir = ::testing::TempDir() + "portacl_two_phase_profiles";
    std::filesystem::create_directories(dir);
    const std::string previous = std::getenv("PORTACL_PLATFORMS_DIR") ? std::getenv("PORTACL_PLATFORMS_DIR") : "";
    for (int group : {1, 3, 100}) {
        {
            std::ofstream f(dir + "/zz_two_phase_test.profile");
            const DeviceInfo& d = test::context().device();  // more specific than any shipped profile
            f << "[match]\nplatform = " << d.platformName << "\ndevice = " << d.name << "\ntype = " << d.type
              << "\nvendor = " << d.vendor << "\npriority = 1000\n[two_phase]\ncompact_work_group = " << group << "\n";
        }
        setenv("PORTACL_PLATFORMS_DIR", dir.c_str(), 1);
        Context ctx(test::context().device());
        ASSERT_EQ(ctx.tuning().getInt("two_phase", "compact_work_group", 0), group);
        for (std::size_t n : {1u, 7u, 799u, 800u, 801u, 30011u}) {
            const auto flags = randomFlags(n, 0.3, static_cast<unsigned>(n + group));
            const auto expected = compactFlagsReference(flags);
            cl::Buffer flagsBuf = ctx.upload(flags, "flags");
            cl::Buffer indices = ctx.buffer(n * sizeof(cl_uint), "indices");
            const std::size_t count = compactFlags(ctx, flagsBuf, n, indices);
            ASSERT_EQ(count, expected.size()) << "group " << group << ", n " << n;
            EXPECT_EQ(ctx.download<std::uint32_t>(indices, count, "indices"), expected) << "group " << group;
        }
    }
    if (previous.empty()) unsetenv("PORTACL_PLATFORMS_DIR");
    else setenv("PORTACL_PLATFORMS_DIR", previous.c_str(), 1);
    std::filesystem::remove_all(dir);
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
