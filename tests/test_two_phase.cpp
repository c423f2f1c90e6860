// The engine's stream compaction (the middle of the two-phase dispatch) against the serial
// compaction, at sizes around the tile boundaries and one large odd size; and the append-list variant
// on a synthetic kernel pair of its own (orient3d through the list) against the exact reference.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "portacl/predicates.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/two_phase.hpp"
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

TEST(TwoPhaseDispatch, ProfileChoosesDoubleFloatPhase2) {
    // [two_phase] phase2 = double-float: Mixed runs phase 2 in double-float (predicates: exact), or on
    // the host for a caller without double-float kernels; phase2 = host: on the host (predicates: big
    // integers on the flagged queries); Double stays double; a bad value is one sentence.
    const std::string dir = ::testing::TempDir() + "portacl_two_phase_phase2";
    std::filesystem::create_directories(dir);
    const std::string previous = std::getenv("PORTACL_PLATFORMS_DIR") ? std::getenv("PORTACL_PLATFORMS_DIR") : "";
    const DeviceInfo& d = test::context().device();
    const auto writeProfile = [&](const std::string& value) {
        std::ofstream f(dir + "/zz_two_phase_test.profile");
        f << "[match]\nplatform = " << d.platformName << "\ndevice = " << d.name << "\ntype = " << d.type
          << "\nvendor = " << d.vendor << "\npriority = 1000\n[two_phase]\nphase2 = " << value << "\n";
    };
    setenv("PORTACL_PLATFORMS_DIR", dir.c_str(), 1);
    writeProfile("double-float");
    {
        Context ctx(d);
        using predicates::Predicate;
        const predicates::Batch batch = predicates::syntheticBatch(Predicate::Insphere, 3000, 400, 0.1, 8);
        const predicates::Result r = predicates::evaluate(ctx, Predicate::Insphere, batch.points, batch.queries, Precision::Mixed);
        EXPECT_EQ(r.report.phase2, Phase2Arithmetic::DoubleFloat);
        EXPECT_GT(r.report.phase2Items, 0u);
        EXPECT_EQ(r.signs, predicates::evaluateReference(Predicate::Insphere, batch.points, batch.queries));
        EXPECT_EQ(twoPhaseList(ctx, Precision::Mixed).phase2, Phase2Arithmetic::Host);
        EXPECT_TRUE(twoPhaseList(ctx, Precision::Mixed).phase2OnHost());
        EXPECT_FALSE(twoPhaseList(ctx, Precision::Mixed).runsPhase2());
        EXPECT_EQ(twoPhaseList(ctx, Precision::Mixed, true).phase2, Phase2Arithmetic::DoubleFloat);
        if (d.fp64) EXPECT_EQ(twoPhaseList(ctx, Precision::Double).phase2, Phase2Arithmetic::Double);
        EXPECT_EQ(twoPhaseList(ctx, Precision::Float).phase2, Phase2Arithmetic::None);
    }
    writeProfile("host");
    {
        Context ctx(d);
        using predicates::Predicate;
        const predicates::Batch batch = predicates::syntheticBatch(Predicate::Orient3d, 3000, 400, 0.1, 8);
        const predicates::Result r = predicates::evaluate(ctx, Predicate::Orient3d, batch.points, batch.queries, Precision::Mixed);
        EXPECT_EQ(r.report.phase2, Phase2Arithmetic::Host);
        EXPECT_GT(r.report.undecided, 0u);
        EXPECT_EQ(r.report.phase2Items, r.report.undecided);
        EXPECT_EQ(r.report.hostItems, r.report.undecided);
        EXPECT_EQ(r.signs, predicates::evaluateReference(Predicate::Orient3d, batch.points, batch.queries));
        EXPECT_EQ(twoPhaseList(ctx, Precision::Mixed, true).phase2, Phase2Arithmetic::Host);
    }
    writeProfile("quad");
    {
        Context ctx(d);
        try {
            twoPhaseList(ctx, Precision::Mixed);
            FAIL() << "a bad [two_phase] phase2 was accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("is not one of double, double-float"), std::string::npos) << e.what();
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

// The append-list variant: orient3d in float appends the queries its filter cannot vouch for and
// marks their sign kUndecidedSign (so that a listed query phase 2 missed shows), the exact sign in
// double redoes the listed ones (Mixed) or every query (Double). The counter sits at
// the start of one buffer and the list after it (a caller's own layout, as Voronoi's wave buffer).
const char* const kListKernels = R"CL(
#include "common/real.h"
#include "common/two_phase.h"
#include "common/predicates.h"

#define LIST_AT 32  // the list's offset in the count-and-list buffer, in uints

inline float3 point_at(__global const float* points, const uint p) { return vload3(p, points); }

__kernel void orient3d_list_phase1(const uint n, __global uint* countAndList, __global const float* points,
                                   __global const uint* queries, __global char* signs) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    __global const uint* q = queries + 4 * (size_t)i;
    uchar flag;
    const char sign = orient3d_float(point_at(points, q[0]), point_at(points, q[1]), point_at(points, q[2]),
                                     point_at(points, q[3]), &flag);
    // A branch, not `flag ? 5 : sign`: Mesa 22.3 rusticl's JIT (LLVM 15) crashed compiling that select.
    if (flag) {
        signs[i] = 5;  // kUndecidedSign
        two_phase_append(countAndList, countAndList + LIST_AT, i);
    } else {
        signs[i] = sign;
    }
}

#if PORTACL_DOUBLE
__kernel void orient3d_list_phase2(const uint direct, const uint n, __global const uint* countAndList,
                                   __global const float* points, __global const uint* queries, __global char* signs) {
    const uint count = two_phase_list_count(direct, n, countAndList);
    for (uint k = get_global_id(0); k < count; k += get_global_size(0)) {
        const uint i = two_phase_list_item(direct, countAndList + LIST_AT, k);
        __global const uint* q = queries + 4 * (size_t)i;
        signs[i] = orient3d_exact(point_at(points, q[0]), point_at(points, q[1]), point_at(points, q[2]),
                                  point_at(points, q[3]));
    }
}
#endif
)CL";
constexpr std::size_t kListAt = 32;
constexpr std::int8_t kUndecidedSign = 5;

// A scratch kernel folder holding the list kernels (PORTACL_KERNEL_DIR; includes still come from the
// embedded cl/common). Restores the variable.
struct ListKernelDir {
    std::filesystem::path dir;
    std::string previous;
    ListKernelDir() {
        dir = std::filesystem::temp_directory_path() / ("portacl-two-phase-list-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        std::ofstream(dir / "two_phase_list_test.cl") << kListKernels;
        if (const char* p = std::getenv("PORTACL_KERNEL_DIR")) previous = p;
        setenv("PORTACL_KERNEL_DIR", dir.c_str(), 1);
    }
    ~ListKernelDir() {
        if (previous.empty()) unsetenv("PORTACL_KERNEL_DIR");
        else setenv("PORTACL_KERNEL_DIR", previous.c_str(), 1);
        std::filesystem::remove_all(dir);
    }
};

struct ListRun {
    std::vector<std::int8_t> signs;
    std::vector<std::uint32_t> list;  // the listed queries, sorted
    TwoPhaseReport report;
    std::size_t phase2WorkItems = 0;  // phase 2's grid
};

// Runs the pair as a caller of TwoPhaseList does: the caller's buffers, launches and count read.
ListRun orient3dThroughList(Context& ctx, Precision mode, const predicates::Batch& batch, std::size_t local) {
    const TwoPhaseList plan = twoPhaseList(ctx, mode);
    const std::size_t n = batch.queries.size() / 4;
    cl::Buffer points = ctx.upload(batch.points, "points");
    cl::Buffer queries = ctx.upload(batch.queries, "queries");
    cl::Buffer signs = ctx.upload(std::vector<std::int8_t>(n, 7), "signs");  // 7: never written
    cl::Buffer countAndList = ctx.upload(std::vector<std::uint32_t>(kListAt + n, 0), "count and list");
    ListRun run;
    if (plan.runsPhase1()) {
        cl::Kernel k1 = ctx.kernel("two_phase_list_test.cl", "orient3d_list_phase1", Precision::Float);
        k1.setArg(0, static_cast<cl_uint>(n)), k1.setArg(1, countAndList), k1.setArg(2, points);
        k1.setArg(3, queries), k1.setArg(4, signs);
        ctx.launch(k1, cl::NDRange(n), cl::NDRange(local));
    }
    if (plan.runsPhase2()) {
        cl::Kernel k2 = ctx.kernel("two_phase_list_test.cl", "orient3d_list_phase2", Precision::Double);
        k2.setArg(0, plan.direct()), k2.setArg(1, static_cast<cl_uint>(n)), k2.setArg(2, countAndList);
        k2.setArg(3, points), k2.setArg(4, queries), k2.setArg(5, signs);
        run.phase2WorkItems = plan.phase2Groups((n + local - 1) / local) * local;
        ctx.launch(k2, cl::NDRange(run.phase2WorkItems), cl::NDRange(local));
    }
    const auto counted = ctx.download<std::uint32_t>(countAndList, kListAt + n, "count and list");
    run.list.assign(counted.begin() + kListAt, counted.begin() + kListAt + counted[0]);
    std::sort(run.list.begin(), run.list.end());
    run.signs = ctx.download<std::int8_t>(signs, n, "signs");
    run.report = plan.report(n, counted[0]);
    return run;
}

// Float, Double and Mixed through the list against the exact reference and the compaction variant.
void expectListVariantCorrect(Context& ctx, std::size_t local) {
    using predicates::Predicate;
    const predicates::Batch batch = predicates::syntheticBatch(Predicate::Orient3d, 20000, 4000, 0.25, 5);
    const std::size_t n = batch.queries.size() / 4;
    const auto exact = predicates::evaluateReference(Predicate::Orient3d, batch.points, batch.queries);
    // The compaction variant's float run: its flag count and float signs.
    const predicates::Result compacted = predicates::evaluate(ctx, Predicate::Orient3d, batch.points, batch.queries,
                                                              Precision::Float);
    ASSERT_GT(compacted.report.undecided, 1000u);  // enough flagged queries for phase 2 to loop

    const ListRun f = orient3dThroughList(ctx, Precision::Float, batch, local);
    EXPECT_EQ(f.report.items, n);
    EXPECT_EQ(f.report.undecided, compacted.report.undecided);
    EXPECT_EQ(f.report.phase2Items, 0u);
    EXPECT_EQ(f.list.size(), f.report.undecided);
    EXPECT_TRUE(std::adjacent_find(f.list.begin(), f.list.end()) == f.list.end()) << "an item listed twice";
    // Listed: exactly the queries phase 1 marked; the others have float's sign, which is exact.
    std::vector<std::uint32_t> marked;
    for (std::size_t i = 0; i < n; ++i) {
        if (f.signs[i] == kUndecidedSign) {
            marked.push_back(static_cast<std::uint32_t>(i));
            continue;
        }
        EXPECT_EQ(f.signs[i], compacted.signs[i]) << "query " << i;
        EXPECT_EQ(f.signs[i], exact[i]) << "query " << i;
    }
    EXPECT_EQ(f.list, marked);

    if (!test::hasFp64()) {
        std::printf("[ skip ] no fp64 on the test device: Double and Mixed not run\n");
        return;
    }
    const ListRun d = orient3dThroughList(ctx, Precision::Double, batch, local);
    EXPECT_EQ(d.signs, exact);
    EXPECT_EQ(d.report.undecided, 0u);
    EXPECT_EQ(d.report.phase2Items, n);
    EXPECT_TRUE(d.list.empty());  // phase 1 did not run
    EXPECT_GE(d.phase2WorkItems, n);  // Double's grid covers every item

    const ListRun m = orient3dThroughList(ctx, Precision::Mixed, batch, local);
    EXPECT_EQ(m.signs, exact);
    EXPECT_EQ(m.list, f.list);  // the same queries flagged
    EXPECT_EQ(m.report.undecided, compacted.report.undecided);
    EXPECT_EQ(m.report.phase2Items, m.report.undecided);
    EXPECT_EQ(m.phase2WorkItems, std::min(listPhase2Groups(ctx), (n + local - 1) / local) * local);
}

TEST(TwoPhaseList, Orient3dThroughTheListEqualsTheExactReference) {
    ListKernelDir kernels;
    Context& ctx = test::context();
    EXPECT_EQ(listPhase2Groups(ctx), 32u * std::max(1u, ctx.device().computeUnits));
    expectListVariantCorrect(ctx, 8);
}

TEST(TwoPhaseList, BoundedGridFromTheProfileLoopsOverTheList) {
    // One work-group per compute unit of one work-item each: phase 2 takes many turns of its loop.
    ListKernelDir kernels;
    const std::string dir = ::testing::TempDir() + "portacl_two_phase_list_profiles";
    std::filesystem::create_directories(dir);
    const std::string previous = std::getenv("PORTACL_PLATFORMS_DIR") ? std::getenv("PORTACL_PLATFORMS_DIR") : "";
    {
        std::ofstream f(dir + "/zz_two_phase_list_test.profile");
        const DeviceInfo& d = test::context().device();
        f << "[match]\nplatform = " << d.platformName << "\ndevice = " << d.name << "\ntype = " << d.type
          << "\nvendor = " << d.vendor << "\npriority = 1000\n[two_phase]\nlist_phase2_groups_per_cu = 1\n";
    }
    setenv("PORTACL_PLATFORMS_DIR", dir.c_str(), 1);
    {
        Context ctx(test::context().device());
        EXPECT_EQ(listPhase2Groups(ctx), std::max(1u, ctx.device().computeUnits));
        if (test::hasFp64()) EXPECT_EQ(twoPhaseList(ctx, Precision::Mixed).boundedGroups, listPhase2Groups(ctx));
        EXPECT_EQ(twoPhaseList(ctx, Precision::Float).boundedGroups, 0u);
        expectListVariantCorrect(ctx, 1);
    }
    if (previous.empty()) unsetenv("PORTACL_PLATFORMS_DIR");
    else setenv("PORTACL_PLATFORMS_DIR", previous.c_str(), 1);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace portacl
