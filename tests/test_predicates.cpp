// The two-phase predicates against the exact big-integer reference: a crafted near-degenerate batch
// where float alone gets signs wrong, where Mixed and Double get every sign exact, and where phase 2
// ran on the flagged items only (never on the clearly non-degenerate ones mixed into the batch).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <cstdint>
#include <random>
#include <vector>

#include "portacl/predicates.hpp"
#include "portacl/runtime/error.hpp"
#include "runtime/double_float.hpp"
#include "support/test_support.hpp"

namespace portacl::predicates {
namespace {

struct CraftedBatch {
    std::vector<float> points;
    std::vector<std::uint32_t> queries;
    std::vector<bool> wellConditioned;  // per query: far from degenerate, must never be flagged
    std::uint32_t add(float x, float y, float z) {
        points.insert(points.end(), {x, y, z});
        return static_cast<std::uint32_t>(points.size() / 3 - 1);
    }
};

float nudge(float x, int ulps) {
    for (; ulps > 0; --ulps) x = std::nextafter(x, INFINITY);
    for (; ulps < 0; ++ulps) x = std::nextafter(x, -INFINITY);
    return x;
}

// orient3d queries: d on (or a few ulps off) the plane through a, b, c, far from the origin;
// exactly coplanar integer points; points off a plane by 2^-30..2^-140; well-conditioned tetrahedra.
CraftedBatch orient3dBatch(unsigned seed) {
    CraftedBatch b;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    std::uniform_int_distribution<int> ulps(-1, 1), small(-20, 20), axis(0, 2);
    std::uniform_int_distribution<int> tinyExponent(30, 140);
    for (int q = 0; q < 2000; ++q) {
        const int kind = q % 4;
        if (kind == 0) {  // nearly coplanar: d is the rounded plane point, moved by up to 1 ulp;
            // coordinates of order 1 (full mantissas: float fails) or near 1000 (differences exact)
            const float scale = q % 2 ? 2.0f : 1000.0f;
            const float o[3] = {scale * unit(rng), scale * unit(rng), scale * unit(rng)};
            float u[3], v[3];
            for (int k = 0; k < 3; ++k) u[k] = unit(rng), v[k] = unit(rng);
            const float s = unit(rng), t = unit(rng);
            std::uint32_t ids[4];
            ids[0] = b.add(o[0], o[1], o[2]);
            ids[1] = b.add(o[0] + u[0], o[1] + u[1], o[2] + u[2]);
            ids[2] = b.add(o[0] + v[0], o[1] + v[1], o[2] + v[2]);
            float d[3] = {o[0] + s * u[0] + t * v[0], o[1] + s * u[1] + t * v[1], o[2] + s * u[2] + t * v[2]};
            const int k = axis(rng);
            d[k] = nudge(d[k], ulps(rng));
            ids[3] = b.add(d[0], d[1], d[2]);
            b.queries.insert(b.queries.end(), ids, ids + 4);
            b.wellConditioned.push_back(false);
        } else if (kind == 3) {  // a, b, c on the plane z = x; d off it by +-2^-k, k in [30, 140]: the
            // nonzero sign lies below double's error bound for most k, so the exact stage decides it
            std::uint32_t ids[4];
            for (int p = 0; p < 3; ++p) {
                const float x = unit(rng), y = unit(rng);
                ids[p] = b.add(x, y, x);
            }
            const float t = std::ldexp(unit(rng) < 0 ? -1.0f : 1.0f, -tinyExponent(rng));
            ids[3] = b.add(0.0f, unit(rng), t);
            b.queries.insert(b.queries.end(), ids, ids + 4);
            b.wellConditioned.push_back(false);
        } else if (kind == 1) {  // exactly coplanar: z = 3x - 2y + 7 on small integers
            std::uint32_t ids[4];
            for (auto& id : ids) {
                const float x = static_cast<float>(small(rng)), y = static_cast<float>(small(rng));
                id = b.add(x, y, 3 * x - 2 * y + 7);
            }
            b.queries.insert(b.queries.end(), ids, ids + 4);
            b.wellConditioned.push_back(false);
        } else {  // a fat tetrahedron somewhere in [-10, 10]^3, either orientation
            const float o[3] = {10 * unit(rng), 10 * unit(rng), 10 * unit(rng)};
            const float flip = unit(rng) < 0 ? -1.0f : 1.0f;
            const float corners[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.3f, 0.3f, flip}};
            for (const auto& c : corners)
                b.queries.push_back(b.add(o[0] + c[0] + 0.1f * unit(rng), o[1] + c[1] + 0.1f * unit(rng),
                                          o[2] + c[2] + 0.1f * unit(rng)));
            b.wellConditioned.push_back(true);
        }
    }
    return b;
}

// insphere queries: five points on (or a few ulps off) a sphere far from the origin; exactly
// cospherical integer points; e off a sphere by 2^-56..2^-280 in |e|^2; and a point clearly inside
// or outside a fat tetrahedron's sphere.
CraftedBatch insphereBatch(unsigned seed) {
    CraftedBatch b;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f), big(-1024.0f, 1024.0f);
    std::uniform_int_distribution<int> ulps(-1, 1), axis(0, 2), pick(0, 17);
    // Integer points on the sphere of radius 5 about the origin.
    const int onSphere[18][3] = {{5, 0, 0}, {-5, 0, 0}, {0, 5, 0}, {0, -5, 0}, {0, 0, 5},  {0, 0, -5},
                                 {3, 4, 0}, {-3, 4, 0}, {3, -4, 0}, {4, 0, 3}, {4, 0, -3}, {-4, 0, 3},
                                 {0, 3, 4}, {0, -3, 4}, {0, 3, -4}, {4, 3, 0}, {0, 4, -3}, {-3, 0, -4}};
    std::uniform_int_distribution<int> tinyExponent(28, 140);
    for (int q = 0; q < 1200; ++q) {
        const int kind = q % 4;
        if (kind == 0) {  // rounded points of a sphere of radius ~1 about a center near 1 or 1000
            const float scale = q % 2 ? 1.0f : 1000.0f;
            const float o[3] = {scale * unit(rng), scale * unit(rng), scale * unit(rng)};
            const float r = 0.5f + std::fabs(unit(rng));
            std::uint32_t ids[5];
            for (int p = 0; p < 5; ++p) {
                float dir[3] = {unit(rng), unit(rng), unit(rng)};
                const float len = std::sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
                float x[3];
                for (int k = 0; k < 3; ++k) x[k] = o[k] + r * dir[k] / len;
                if (p == 4) x[axis(rng)] = nudge(x[axis(rng)], ulps(rng));
                ids[p] = b.add(x[0], x[1], x[2]);
            }
            b.queries.insert(b.queries.end(), ids, ids + 5);
            b.wellConditioned.push_back(false);
        } else if (kind == 3) {  // four integer points of the radius-5 sphere about the origin and e
            // = an integer point of it with its zero coordinate replaced by +-2^-k: outside by 2^-2k
            std::uint32_t ids[5];
            for (int p = 0; p < 4; ++p) {
                const int* v = onSphere[pick(rng)];
                ids[p] = b.add(float(v[0]), float(v[1]), float(v[2]));
            }
            const int* v = onSphere[6 + pick(rng) % 12];  // these have exactly one zero coordinate
            float e[3] = {float(v[0]), float(v[1]), float(v[2])};
            for (auto& x : e)
                if (x == 0.0f) x = std::ldexp(unit(rng) < 0 ? -1.0f : 1.0f, -tinyExponent(rng));
            ids[4] = b.add(e[0], e[1], e[2]);
            b.queries.insert(b.queries.end(), ids, ids + 5);
            b.wellConditioned.push_back(false);
        } else if (kind == 1) {
            const float c[3] = {std::round(big(rng)), std::round(big(rng)), std::round(big(rng))};
            for (int p = 0; p < 5; ++p) {
                const int* s = onSphere[pick(rng)];
                b.queries.push_back(b.add(c[0] + s[0], c[1] + s[1], c[2] + s[2]));
            }
            b.wellConditioned.push_back(false);
        } else {  // sphere through a fat tetrahedron (center (0.5, 0.5, 0.5)); e at 0.3 or 3 radii
            const float o[3] = {10 * unit(rng), 10 * unit(rng), 10 * unit(rng)};
            const float corners[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
            for (const auto& c : corners) b.queries.push_back(b.add(o[0] + c[0], o[1] + c[1], o[2] + c[2]));
            const float f = unit(rng) < 0 ? 0.3f : 3.0f;
            b.queries.push_back(b.add(o[0] + 0.5f + f * 0.5f, o[1] + 0.5f + f * 0.5f, o[2] + 0.5f + f * 0.5f));
            b.wellConditioned.push_back(true);
        }
    }
    return b;
}

// Runs Mixed with phase 2 writing to a separate, sentinel-filled buffer, so that the items phase 2
// touched are visible one by one. Returns them (as a mask) together with the report.
std::vector<bool> phase2Items(Context& ctx, Predicate p, const CraftedBatch& b, TwoPhaseReport& report,
                              std::vector<std::int8_t>* phase2Signs = nullptr) {
    const std::size_t n = b.queries.size() / arity(p);
    const cl::Buffer points = ctx.upload(b.points, "points"), queries = ctx.upload(b.queries, "queries");
    const cl::Buffer signs1 = ctx.buffer(n, "phase-1 signs");
    const std::vector<std::int8_t> sentinel(n, 100);
    const cl::Buffer signs2 = ctx.upload(sentinel, "phase-2 signs");
    const std::string name = predicateName(p);
    TwoPhaseKernels kernels{"predicates.cl", name + "_phase1", name + "_phase2", "",
                            [&](cl::Kernel& k, cl_uint first) {
                                k.setArg(first, points);
                                k.setArg(first + 1, queries);
                                k.setArg(first + 2, first == kTwoPhase2FirstArg ? signs2 : signs1);
                            }};
    kernels.doubleFloat = true;
    report = runTwoPhase(ctx, Precision::Mixed, n, kernels);
    const auto touched = ctx.download<std::int8_t>(signs2, n, "phase-2 signs");
    if (phase2Signs) *phase2Signs = touched;
    std::vector<bool> mask(n);
    for (std::size_t i = 0; i < n; ++i) mask[i] = touched[i] != 100;
    return mask;
}

void checkBatch(Predicate p, const CraftedBatch& b) {
    Context& ctx = test::context();
    const auto exact = evaluateReference(p, b.points, b.queries);
    const std::size_t n = exact.size();

    const Result single = evaluate(ctx, p, b.points, b.queries, Precision::Float);
    ASSERT_EQ(single.signs.size(), n);
    EXPECT_EQ(single.report.phase2Items, 0u);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += single.signs[i] != exact[i];
    EXPECT_GT(wrong, 0u) << "the crafted batch should defeat float alone";
    std::size_t wellConditioned = 0;
    for (bool w : b.wellConditioned) wellConditioned += w;
    EXPECT_LE(single.report.undecided, n - wellConditioned);
    std::size_t nonzero = 0;
    for (auto e : exact) nonzero += e != 0;
    std::cout << predicateName(p) << ": " << n << " queries (" << nonzero << " exact signs nonzero), float wrong on "
              << wrong << ", flagged " << single.report.undecided << "\n";

    // Mixed runs everywhere (without fp64 in double-float).
    const Result mixed = evaluate(ctx, p, b.points, b.queries, Precision::Mixed);
    EXPECT_EQ(mixed.report.undecided, single.report.undecided);
    EXPECT_EQ(mixed.report.phase2Items, mixed.report.undecided);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(mixed.signs[i], exact[i]) << "mixed, query " << i;

    if (test::hasFp64()) {
        const Result full = evaluate(ctx, p, b.points, b.queries, Precision::Double);
        EXPECT_EQ(full.report.phase2Items, n);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(full.signs[i], exact[i]) << "double, query " << i;
    }

    // Phase 2 ran exactly on the flagged items: as many as were flagged, every item float got
    // wrong among them, none of the well-conditioned ones.
    TwoPhaseReport report;
    const auto touched = phase2Items(ctx, p, b, report);
    std::size_t touchedCount = 0;
    for (std::size_t i = 0; i < n; ++i) {
        touchedCount += touched[i];
        if (single.signs[i] != exact[i]) EXPECT_TRUE(touched[i]) << "float was wrong on unflagged query " << i;
        if (b.wellConditioned[i]) EXPECT_FALSE(touched[i]) << "well-conditioned query " << i << " was flagged";
    }
    EXPECT_EQ(touchedCount, report.undecided);
    EXPECT_EQ(touchedCount, single.report.undecided);
}

TEST(Predicates, Orient3dNearDegenerateBatch) { checkBatch(Predicate::Orient3d, orient3dBatch(7)); }

TEST(Predicates, InsphereNearDegenerateBatch) { checkBatch(Predicate::Insphere, insphereBatch(11)); }

TEST(Predicates, SignConventionsAreShewchuks) {
    // a, b, c counterclockwise seen from +z; d below the plane: orient3d > 0.
    const std::vector<float> pts = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, -1, 0.5f, 0.5f, -0.5f, 5, 5, 5, 0, 0, 1};
    EXPECT_EQ(orient3dExact(&pts[0], &pts[3], &pts[6], &pts[9]), 1);
    EXPECT_EQ(orient3dExact(&pts[0], &pts[3], &pts[6], &pts[18]), -1);
    // With orient3d(a,b,c,d) > 0: the sphere's center is inside (+1), a far point outside (-1).
    EXPECT_EQ(insphereExact(&pts[0], &pts[3], &pts[6], &pts[9], &pts[12]), 1);
    EXPECT_EQ(insphereExact(&pts[0], &pts[3], &pts[6], &pts[9], &pts[15]), -1);
    // The device agrees, in every mode the device supports.
    Context& ctx = test::context();
    const std::vector<std::uint32_t> o = {0, 1, 2, 3, 0, 1, 2, 6}, s = {0, 1, 2, 3, 4, 0, 1, 2, 3, 5};
    for (Precision mode : {Precision::Float, Precision::Mixed, Precision::Double}) {
        if (mode == Precision::Double && !test::hasFp64()) continue;
        EXPECT_EQ(evaluate(ctx, Predicate::Orient3d, pts, o, mode).signs, (std::vector<std::int8_t>{1, -1}));
        EXPECT_EQ(evaluate(ctx, Predicate::Insphere, pts, s, mode).signs, (std::vector<std::int8_t>{1, -1}));
    }
}

TEST(Predicates, ExactStageDecidesWhatDoubleCannot) {
    // Off the plane x + y + z = 1 by 2^-60, and off the sphere |p| = 5 by 2^-54 (or 2^-120) in |e|^2: nonzero
    // signs below double's error bound, so they come from the exact expansion stage (without fp64,
    // Mixed: from the exact host step).
    const float t = 0x1p-60f, s = 0x1p-27f;
    const std::vector<float> pts = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5f, 0.5f, t, 0.5f, 0.5f, -t,
                                    5, 0, 0, 0, 5, 0, 0, 0, 5, -5, 0, 0, 3, 4, s, 3, 4, 0, 3, 4, t};
    const std::vector<std::uint32_t> o = {0, 1, 2, 3, 0, 1, 2, 4, 1, 0, 2, 3};
    // The last query's differences (5 - 2^-60, ...) are not single doubles.
    const std::vector<std::uint32_t> sp = {5, 6, 7, 8, 9, 6, 5, 7, 8, 9, 5, 6, 7, 8, 10, 5, 6, 7, 8, 11};
    const auto o3 = evaluateReference(Predicate::Orient3d, pts, o);
    const auto is = evaluateReference(Predicate::Insphere, pts, sp);
    EXPECT_EQ(o3[0], -o3[1]);
    EXPECT_EQ(o3[0], -o3[2]);
    EXPECT_NE(o3[0], 0);
    EXPECT_EQ(is[0], -is[1]);
    EXPECT_NE(is[0], 0);
    EXPECT_EQ(is[2], 0);
    EXPECT_EQ(is[3], is[0]);
    Context& ctx = test::context();
    for (Precision mode : {Precision::Mixed, Precision::Double}) {
        if (mode == Precision::Double && !test::hasFp64()) continue;
        EXPECT_EQ(evaluate(ctx, Predicate::Orient3d, pts, o, mode).signs, o3);
        const Result r = evaluate(ctx, Predicate::Insphere, pts, sp, mode);
        EXPECT_EQ(r.signs, is);
    }
}

TEST(Predicates, WideExponentRangesStayExact) {
    // Coordinates whose differences are not one double (2^60 next to 2^-60): still exact on the device.
    const float big = 0x1p60f, tiny = 0x1p-60f;
    const std::vector<float> pts = {big, 0, 0, tiny, 0, 0, 0, tiny, 0, 0, 0, tiny, big, big, 0, -tiny, -tiny, -tiny};
    const std::vector<std::uint32_t> o = {0, 1, 2, 3, 1, 2, 3, 5, 0, 4, 1, 2};
    const std::vector<std::uint32_t> s = {0, 1, 2, 3, 5, 1, 2, 3, 5, 0};
    Context& ctx = test::context();
    for (Precision mode : {Precision::Mixed, Precision::Double}) {
        if (mode == Precision::Double && !test::hasFp64()) continue;
        const Result r1 = evaluate(ctx, Predicate::Orient3d, pts, o, mode);
        EXPECT_EQ(r1.signs, evaluateReference(Predicate::Orient3d, pts, o));
        const Result r2 = evaluate(ctx, Predicate::Insphere, pts, s, mode);
        EXPECT_EQ(r2.signs, evaluateReference(Predicate::Insphere, pts, s));
    }
}

TEST(Predicates, SerialMixedAlgorithmIsExact) {
    // The bench's CPU column: the float filter in C++ then big integers; exact on the crafted
    // batches and on a synthetic batch with degenerate queries.
    for (Predicate p : {Predicate::Orient3d, Predicate::Insphere}) {
        const CraftedBatch crafted = p == Predicate::Orient3d ? orient3dBatch(5) : insphereBatch(6);
        EXPECT_EQ(evaluateSerial(p, crafted.points, crafted.queries),
                  evaluateReference(p, crafted.points, crafted.queries));
        const auto synthetic = syntheticBatch(p, 3000, 500, 0.05, 3);
        const auto exact = evaluateReference(p, synthetic.points, synthetic.queries);
        EXPECT_EQ(evaluateSerial(p, synthetic.points, synthetic.queries), exact);
        EXPECT_GT(std::count(exact.begin(), exact.end(), 0), 50) << "the degenerate queries are exactly degenerate";
        EXPECT_EQ(evaluate(test::context(), p, synthetic.points, synthetic.queries, Precision::Mixed).signs, exact);
    }
}

TEST(Predicates, EmptyBatch) {
    const Result r = evaluate(test::context(), Predicate::Orient3d, {}, {}, Precision::Float);
    EXPECT_TRUE(r.signs.empty());
    EXPECT_EQ(r.report.items, 0u);
}

TEST(Predicates, MalformedBatchesAreRefusedWithOneSentence) {
    Context& ctx = test::context();
    const std::vector<float> pts = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    EXPECT_THROW(evaluate(ctx, Predicate::Orient3d, pts, {0, 1, 2}, Precision::Float), Error);
    EXPECT_THROW(evaluate(ctx, Predicate::Orient3d, pts, {0, 1, 2, 4}, Precision::Float), Error);
    EXPECT_THROW(evaluate(ctx, Predicate::Orient3d, {0, 0}, {}, Precision::Float), Error);
    std::vector<float> bad = pts;
    bad[4] = NAN;
    try {
        evaluate(ctx, Predicate::Insphere, bad, {0, 1, 2, 3, 0}, Precision::Float);
        FAIL() << "a NaN coordinate was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("point 1 has a non-finite coordinate"), std::string::npos) << e.what();
    }
}

// ---- Mixed without fp64: phase 2 in double-float (cl/common/predicates_double_float.h) ----

// Rusticl shows its llvmpipe device (no fp64) only when asked before the first OpenCL call.
const int kRusticl = (setenv("RUSTICL_ENABLE", "llvmpipe", 0), 0);

// PORTACL_FORCE_DOUBLE_FLOAT=1 for one scope: the double-float phase 2 on a device with fp64.
struct ForceDoubleFloat {
    ForceDoubleFloat() { setenv("PORTACL_FORCE_DOUBLE_FLOAT", "1", 1); }
    ~ForceDoubleFloat() { unsetenv("PORTACL_FORCE_DOUBLE_FLOAT"); }
};

// The double-float stage on the host (the serial reference) for query i.
int hostDoubleFloat(Predicate p, const CraftedBatch& b, std::size_t i) {
    const std::size_t k = arity(p);
    df::float3 v[5];
    for (std::size_t j = 0; j < k; ++j) {
        const float* c = &b.points[3 * b.queries[k * i + j]];
        v[j] = df::float3{c[0], c[1], c[2]};
    }
    return p == Predicate::Orient3d ? df::orient3d_double_float(v[0], v[1], v[2], v[3])
                                    : df::insphere_double_float(v[0], v[1], v[2], v[3], v[4]);
}

// Mixed in double-float on ctx: every sign exact; the device's phase-2 answers equal the host
// reference's query by query (a sign, or "to the host" where it cannot vouch); the report says
// double-float and counts the host's queries.
void checkDoubleFloat(Context& ctx, Predicate p, const CraftedBatch& b, const char* what) {
    const auto exact = evaluateReference(p, b.points, b.queries);
    const std::size_t n = exact.size();
    const Result mixed = evaluate(ctx, p, b.points, b.queries, Precision::Mixed);
    EXPECT_EQ(mixed.report.phase2, Phase2Arithmetic::DoubleFloat);
    EXPECT_EQ(mixed.report.phase2Items, mixed.report.undecided);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(mixed.signs[i], exact[i]) << what << ", query " << i;

    TwoPhaseReport report;
    std::vector<std::int8_t> phase2;
    const auto touched = phase2Items(ctx, p, b, report, &phase2);
    EXPECT_EQ(report.phase2, Phase2Arithmetic::DoubleFloat);
    std::size_t toHost = 0, touchedCount = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!touched[i]) continue;
        ++touchedCount;
        ASSERT_EQ(phase2[i], hostDoubleFloat(p, b, i)) << what << ": device and host double-float differ, query " << i;
        if (phase2[i] == kDoubleFloatUndecided) ++toHost;
        else ASSERT_EQ(phase2[i], exact[i]) << what << ": a double-float sign is wrong, query " << i;
    }
    EXPECT_EQ(touchedCount, report.undecided);
    EXPECT_EQ(mixed.report.hostItems, toHost);
    std::cout << what << ", " << predicateName(p) << " on " << ctx.device().label() << ": " << n << " queries, "
              << report.undecided << " to phase 2 (double-float), " << toHost << " of them to the exact host step\n";
}

// Every crafted and special batch of this file.
std::vector<std::pair<Predicate, CraftedBatch>> doubleFloatBatches() {
    std::vector<std::pair<Predicate, CraftedBatch>> out;
    out.push_back({Predicate::Orient3d, orient3dBatch(7)});
    out.push_back({Predicate::Insphere, insphereBatch(11)});
    for (Predicate p : {Predicate::Orient3d, Predicate::Insphere}) {
        const auto synthetic = syntheticBatch(p, 4000, 500, 0.05, 9);
        CraftedBatch b;
        b.points = synthetic.points, b.queries = synthetic.queries;
        out.push_back({p, b});
    }
    // Below double's error bound, and wide exponent ranges (the tests above): to the host or exact.
    const float t = 0x1p-60f, s = 0x1p-27f, big = 0x1p60f, tiny = 0x1p-60f;
    CraftedBatch o, i;
    o.points = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5f, 0.5f, t, 0.5f, 0.5f, -t, big, 0, 0, tiny, 0, 0, 0, tiny, 0, 0, 0, tiny,
                -tiny, -tiny, -tiny, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, -1};
    o.queries = {0, 1, 2, 3, 0, 1, 2, 4, 1, 0, 2, 3, 5, 6, 7, 8, 6, 7, 8, 9, 10, 11, 12, 13};
    out.push_back({Predicate::Orient3d, o});
    i.points = {5, 0, 0, 0, 5, 0, 0, 0, 5, -5, 0, 0, 3, 4, s, 3, 4, 0, 3, 4, t, 0x1p-130f, 0, 0};
    i.queries = {0, 1, 2, 3, 4, 1, 0, 2, 3, 4, 0, 1, 2, 3, 5, 0, 1, 2, 3, 6, 0, 1, 2, 3, 7};
    out.push_back({Predicate::Insphere, i});
    return out;
}

TEST(PredicatesDoubleFloat, HostReferenceDecidesOnlyExactSigns) {
    // The serial double-float stage alone: each sign it gives is exact; the exactly coplanar integer
    // points of the orient3d batch are decided (the exact case of the bound), and a subnormal
    // coordinate goes to the host.
    const auto batches = doubleFloatBatches();
    for (std::size_t batch = 0; batch < batches.size(); ++batch) {
        const auto& [p, b] = batches[batch];
        const auto exact = evaluateReference(p, b.points, b.queries);
        std::size_t decided = 0;
        for (std::size_t i = 0; i < exact.size(); ++i) {
            const int s = hostDoubleFloat(p, b, i);
            if (s == kDoubleFloatUndecided) continue;
            ++decided;
            ASSERT_EQ(s, exact[i]) << predicateName(p) << " query " << i;
        }
        // The crafted and synthetic batches: most queries decided on the device.
        if (batch < 4) EXPECT_GT(decided, exact.size() / 2) << predicateName(p) << ", batch " << batch;
    }
    const CraftedBatch plane = orient3dBatch(7);
    std::size_t zerosDecided = 0;
    const auto exact = evaluateReference(Predicate::Orient3d, plane.points, plane.queries);
    for (std::size_t i = 0; i < exact.size(); ++i) zerosDecided += exact[i] == 0 && hostDoubleFloat(Predicate::Orient3d, plane, i) == 0;
    EXPECT_GT(zerosDecided, 0u);
    const auto special = doubleFloatBatches().back();
    EXPECT_EQ(hostDoubleFloat(special.first, special.second, 4), kDoubleFloatUndecided);  // 2^-130
}

TEST(PredicatesDoubleFloat, ForcedOnTheTestDeviceEveryBatchExact) {
    const ForceDoubleFloat force;
    for (const auto& [p, b] : doubleFloatBatches()) checkDoubleFloat(test::context(), p, b, "forced");
}

TEST(PredicatesDoubleFloat, OnRusticlWithoutFp64) {
    (void)kRusticl;
    Context* ctx = test::rusticlContext();
    if (!ctx) GTEST_SKIP() << "Mesa's rusticl (llvmpipe) is not installed";
    ASSERT_FALSE(ctx->device().fp64);
    for (const auto& [p, b] : doubleFloatBatches()) checkDoubleFloat(*ctx, p, b, "rusticl");
    // Double stays refused, in one sentence that names mixed.
    try {
        evaluate(*ctx, Predicate::Orient3d, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 1, 2, 3}, Precision::Double);
        FAIL() << "double ran without fp64";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("use mixed precision"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace portacl::predicates
