// The two-phase predicates against the exact big-integer reference: a crafted near-degenerate batch
// where float alone gets signs wrong, where Mixed and Double get every sign exact, and where phase 2
// ran on the flagged items only (never on the clearly non-degenerate ones mixed into the batch).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "portacl/predicates.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/kernel_args.hpp"
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

// Runs Mixed as evaluateOnDevice does (the float pass listing what it cannot decide, the exact pass
// on the list), with the exact pass writing to a separate, sentinel-filled buffer, so that the items
// phase 2 touched are visible one by one. Returns them (as a mask) together with the report. Work-
// groups of 64, so that the last one of an odd batch runs past the end.
std::vector<bool> phase2Items(Context& ctx, Predicate p, const CraftedBatch& b, TwoPhaseReport& report,
                              std::vector<std::int8_t>* phase2Signs = nullptr) {
    const std::size_t n = b.queries.size() / arity(p), group = 64;
    const TwoPhaseList plan = twoPhaseList(ctx, Precision::Mixed, /*hasDoubleFloatKernels=*/true);
    const cl::Buffer points = ctx.upload(b.points, "points"), queries = ctx.upload(b.queries, "queries");
    const cl::Buffer signs1 = ctx.buffer(n, "phase-1 signs");
    const std::vector<std::int8_t> sentinel(n, 100);
    const cl::Buffer signs2 = ctx.upload(sentinel, "phase-2 signs");
    const cl::Buffer count = ctx.upload(std::vector<cl_uint>{0}, "list count"), list = ctx.buffer(n * sizeof(cl_uint), "list");
    const std::string name = predicateName(p), options = "-D PRED_POINT_STRIDE=3";
    cl::Kernel& k1 = ctx.kernel("predicates.cl", name + "_float_pass", Precision::Float, options);
    setArgs(k1, 0, cl_uint(n), count, list, cl_uint(1), points, queries, signs1, cl::Local((group + 2) * sizeof(cl_uint)));
    ctx.launch(k1, cl::NDRange(roundUp(n, group)), cl::NDRange(group));
    const bool doubleFloat = plan.phase2 == Phase2Arithmetic::DoubleFloat;
    cl::Kernel& k2 = ctx.kernel("predicates.cl", name + "_exact_pass", doubleFloat ? Precision::Float : Precision::Double,
                                doubleFloat ? options + " -D PORTACL_DOUBLE_FLOAT=1" : options);
    setArgs(k2, 0, plan.direct(), cl_uint(n), count, list, points, queries, signs2);
    ctx.launch(k2, cl::NDRange(plan.phase2Groups((n + group - 1) / group) * group), cl::NDRange(group));
    report = plan.report(n, ctx.download<cl_uint>(count, 1, "list count")[0]);
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

// ---- The exact case of stage A (an exact zero by the coordinates' grain, cl/common/predicates.h) ----

// The value of the lowest set bit of a finite float (x is an integer multiple of it); infinity for 0.
double grain(float x) {
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    const std::uint32_t field = (bits >> 23) & 0xffu;
    const std::uint32_t significand = (bits & 0x7fffffu) | (field ? 0x800000u : 0u);
    if (significand == 0) return INFINITY;
    return std::ldexp(double(significand & (0u - significand)), int(field ? field : 1) - 150);
}

// Stage A in double as the device evaluates it (no contraction: this file is compiled in ISO C++):
// the determinant D, its error bound, and the smallest grain of the query's coordinates.
struct StageA {
    double det, bound, grain;
};

StageA orient3dStageA(const float* pa, const float* pb, const float* pc, const float* pd) {
    double a[3], b[3], c[3], g = INFINITY;
    for (int k = 0; k < 3; ++k) {
        a[k] = double(pa[k]) - pd[k], b[k] = double(pb[k]) - pd[k], c[k] = double(pc[k]) - pd[k];
        g = std::min({g, grain(pa[k]), grain(pb[k]), grain(pc[k]), grain(pd[k])});
    }
    const double bxcy = b[0] * c[1], cxby = c[0] * b[1], cxay = c[0] * a[1], axcy = a[0] * c[1];
    const double axby = a[0] * b[1], bxay = b[0] * a[1];
    const double det = a[2] * (bxcy - cxby) + b[2] * (cxay - axcy) + c[2] * (axby - bxay);
    const double permanent = (std::fabs(bxcy) + std::fabs(cxby)) * std::fabs(a[2]) +
                             (std::fabs(cxay) + std::fabs(axcy)) * std::fabs(b[2]) +
                             (std::fabs(axby) + std::fabs(bxay)) * std::fabs(c[2]);
    return {det, (8.0 * 0x1p-53 + 64.0 * 0x1p-106) * permanent, g};
}

StageA insphereStageA(const float* pa, const float* pb, const float* pc, const float* pd, const float* pe) {
    double a[3], b[3], c[3], d[3], g = INFINITY;
    for (int k = 0; k < 3; ++k) {
        a[k] = double(pa[k]) - pe[k], b[k] = double(pb[k]) - pe[k], c[k] = double(pc[k]) - pe[k], d[k] = double(pd[k]) - pe[k];
        g = std::min({g, grain(pa[k]), grain(pb[k]), grain(pc[k]), grain(pd[k]), grain(pe[k])});
    }
    const double axby = a[0] * b[1], bxay = b[0] * a[1], bxcy = b[0] * c[1], cxby = c[0] * b[1];
    const double cxdy = c[0] * d[1], dxcy = d[0] * c[1], dxay = d[0] * a[1], axdy = a[0] * d[1];
    const double axcy = a[0] * c[1], cxay = c[0] * a[1], bxdy = b[0] * d[1], dxby = d[0] * b[1];
    const double ab = axby - bxay, bc = bxcy - cxby, cd = cxdy - dxcy, da = dxay - axdy, ac = axcy - cxay, bd = bxdy - dxby;
    const double abc = a[2] * bc - b[2] * ac + c[2] * ab, bcd = b[2] * cd - c[2] * bd + d[2] * bc;
    const double cda = c[2] * da + d[2] * ac + a[2] * cd, dab = d[2] * ab + a[2] * bd + b[2] * da;
    const double alift = a[0] * a[0] + a[1] * a[1] + a[2] * a[2], blift = b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
    const double clift = c[0] * c[0] + c[1] * c[1] + c[2] * c[2], dlift = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    const double det = (dlift * abc - clift * dab) + (blift * cda - alift * bcd);
    const double pab = std::fabs(axby) + std::fabs(bxay), pbc = std::fabs(bxcy) + std::fabs(cxby);
    const double pcd = std::fabs(cxdy) + std::fabs(dxcy), pda = std::fabs(dxay) + std::fabs(axdy);
    const double pac = std::fabs(axcy) + std::fabs(cxay), pbd = std::fabs(bxdy) + std::fabs(dxby);
    const double permanent =
        (pcd * std::fabs(b[2]) + pbd * std::fabs(c[2]) + pbc * std::fabs(d[2])) * alift +
        (pda * std::fabs(c[2]) + pac * std::fabs(d[2]) + pcd * std::fabs(a[2])) * blift +
        (pab * std::fabs(d[2]) + pbd * std::fabs(a[2]) + pda * std::fabs(b[2])) * clift +
        (pbc * std::fabs(a[2]) + pac * std::fabs(b[2]) + pab * std::fabs(c[2])) * dlift;
    return {det, (17.0 * 0x1p-53 + 256.0 * 0x1p-106) * permanent, g};
}

TEST(Predicates, ExactZeroByTheGrainNeverHidesANonzeroSign) {
    // Two kinds of queries whose stage-A determinant in double is exactly 0: exactly degenerate integer
    // points (the synthetic batches'), where the bound is below the grain's power and the exact case
    // answers 0; and random points of mixed magnitudes (2^24 beside 1) whose nonzero determinant
    // rounds to 0, where the bound is not below it and the expansions answer. Found on the host with
    // stage A as the device computes it; every device sign equals the exact reference.
    Context& ctx = test::context();
    for (Predicate p : {Predicate::Orient3d, Predicate::Insphere}) {
        const std::size_t k = arity(p);
        Batch b = syntheticBatch(p, 400, 64, 1.0, 21);  // every query exactly degenerate
        std::mt19937 rng(22);
        std::uniform_int_distribution<int> factor(0, 2), wide(0, 1), offset(-1, 1);
        const float factors[3] = {1.0f, -1.0f, 3.0f};
        std::size_t grainZeros = 0, hiddenNonzero = 0;
        auto stageA = [&](const std::uint32_t* q) {
            const float* v = b.points.data();
            return p == Predicate::Orient3d ? orient3dStageA(v + 3 * q[0], v + 3 * q[1], v + 3 * q[2], v + 3 * q[3])
                                            : insphereStageA(v + 3 * q[0], v + 3 * q[1], v + 3 * q[2], v + 3 * q[3], v + 3 * q[4]);
        };
        for (std::size_t i = 0; i < 400; ++i) {
            const StageA a = stageA(&b.queries[k * i]);
            const double power = std::pow(a.grain, p == Predicate::Orient3d ? 3 : 5);
            grainZeros += a.det == 0.0 && a.bound < power;
        }
        // Candidates of mixed magnitudes until enough of them hide a nonzero sign behind D == 0.
        for (int tries = 0; tries < 2'000'000 && hiddenNonzero < 30; ++tries) {
            Batch c;
            for (std::size_t j = 0; j < 3 * k; ++j)
                c.points.push_back(factors[factor(rng)] * (wide(rng) ? 0x1p24f : 1.0f) + float(offset(rng)));
            for (std::size_t j = 0; j < k; ++j) c.queries.push_back(static_cast<std::uint32_t>(j));
            const float* v = c.points.data();
            const StageA a = p == Predicate::Orient3d ? orient3dStageA(v, v + 3, v + 6, v + 9)
                                                      : insphereStageA(v, v + 3, v + 6, v + 9, v + 12);
            if (a.det != 0.0 || evaluateReference(p, c.points, c.queries)[0] == 0) continue;
            EXPECT_GE(a.bound, std::pow(a.grain, p == Predicate::Orient3d ? 3 : 5)) << "the exact case would be wrong";
            const auto first = static_cast<std::uint32_t>(b.points.size() / 3);
            b.points.insert(b.points.end(), c.points.begin(), c.points.end());
            for (std::size_t j = 0; j < k; ++j) b.queries.push_back(first + static_cast<std::uint32_t>(j));
            ++hiddenNonzero;
        }
        const auto exact = evaluateReference(p, b.points, b.queries);
        std::cout << predicateName(p) << ": " << grainZeros << " exact zeros by the grain, " << hiddenNonzero
                  << " nonzero signs behind a zero stage-A determinant\n";
        EXPECT_GT(grainZeros, 300u);
        EXPECT_GE(hiddenNonzero, 10u);
        for (Precision mode : {Precision::Mixed, Precision::Double}) {
            if (mode == Precision::Double && !test::hasFp64()) continue;
            const Result r = evaluate(ctx, p, b.points, b.queries, mode);
            for (std::size_t i = 0; i < exact.size(); ++i)
                ASSERT_EQ(r.signs[i], exact[i]) << predicateName(p) << ", " << precisionName(mode) << ", query " << i;
        }
    }
}

// ---- Layouts and shapes of the one-pass kernels ----

// A profile for the test device above every shipped one, holding the shipped profile's build options
// (so that float's arithmetic, and its guesses, stay the same) and `body`, for the scope's lifetime.
struct ScopedProfile {
    std::string dir, previous;
    explicit ScopedProfile(const std::string& body) {
        dir = ::testing::TempDir() + "portacl_predicates_profile";
        std::filesystem::create_directories(dir);
        const DeviceInfo& d = test::context().device();
        const TuningProfile& shipped = test::context().tuning();
        std::ofstream(dir + "/zz_predicates_test.profile")
            << "[match]\nplatform = " << d.platformName << "\ndevice = " << d.name << "\ntype = " << d.type
            << "\nvendor = " << d.vendor << "\npriority = 1000\n[build]\noptions = " << shipped.get("build", "options", "")
            << "\ndefines = " << shipped.get("build", "defines", "") << "\n" << body;
        if (const char* v = std::getenv("PORTACL_PLATFORMS_DIR")) previous = v;
        setenv("PORTACL_PLATFORMS_DIR", dir.c_str(), 1);
    }
    ~ScopedProfile() {
        if (previous.empty()) unsetenv("PORTACL_PLATFORMS_DIR");
        else setenv("PORTACL_PLATFORMS_DIR", previous.c_str(), 1);
        std::filesystem::remove_all(dir);
    }
};

// evaluate's answers through a caller's buffer of points padded to 4 floats.
Result evaluatePadded(Context& ctx, Predicate p, const Batch& b, Precision mode) {
    std::vector<float> padded;
    for (std::size_t i = 0; i < b.points.size(); i += 3) padded.insert(padded.end(), {b.points[i], b.points[i + 1], b.points[i + 2], 0.0f});
    const std::size_t n = b.queries.size() / arity(p);
    const cl::Buffer points = ctx.upload(padded, "padded points"), queries = ctx.upload(b.queries, "queries");
    const cl::Buffer signs = ctx.buffer(n, "signs");
    Result r;
    std::vector<std::uint32_t> hostItems;
    r.report = evaluateOnDevice(ctx, p, points, PointLayout::Padded, queries, n, signs, mode, &hostItems);
    r.signs = ctx.download<std::int8_t>(signs, n, "signs");
    for (std::uint32_t i : hostItems) r.signs[i] = kDoubleFloatUndecided;
    if (r.report.phase2 != Phase2Arithmetic::None) finishOnHost(p, b.points, b.queries, r.signs, r.report);
    return r;
}

TEST(Predicates, EveryLayoutAndWorkGroupGivesTheSameSigns) {
    // Float's signs and flag count, and the exact signs of mixed and double, are the same whether
    // the points come packed, padded by the caller, or padded on the device ([predicates]
    // pad_points), and for work-groups of 1, 3 and 100 (the list's one atomic per group; a batch
    // that ends inside a group).
    for (Predicate p : {Predicate::Orient3d, Predicate::Insphere}) {
        const Batch b = syntheticBatch(p, 30011, 2000, 0.05, 4);
        const auto exact = evaluateReference(p, b.points, b.queries);
        const Result base = evaluate(test::context(), p, b.points, b.queries, Precision::Float);
        ASSERT_GT(base.report.undecided, 1000u);
        auto expectSame = [&](Context& ctx, const std::string& how) {
            for (Precision mode : {Precision::Float, Precision::Mixed, Precision::Double}) {
                if (mode == Precision::Double && !ctx.device().fp64) continue;
                for (bool padded : {false, true}) {
                    const Result r = padded ? evaluatePadded(ctx, p, b, mode) : evaluate(ctx, p, b.points, b.queries, mode);
                    const std::string what = std::string(predicateName(p)) + ", " + how + (padded ? ", padded" : "") + ", " +
                                             precisionName(mode);
                    if (mode == Precision::Float) {
                        EXPECT_EQ(r.signs, base.signs) << what;
                        EXPECT_EQ(r.report.undecided, base.report.undecided) << what;
                    } else {
                        EXPECT_EQ(r.signs, exact) << what;
                    }
                    if (mode == Precision::Mixed) EXPECT_EQ(r.report.phase2Items, base.report.undecided) << what;
                }
            }
        };
        expectSame(test::context(), "shipped profile");
        for (const std::string body : {"[predicates]\nwork_group = 1\n", "[predicates]\nwork_group = 3\npad_points = 1\n",
                                       "[predicates]\nwork_group = 100\npad_points = 1\n"}) {
            const ScopedProfile profile(body);
            Context ctx(test::context().device());
            ASSERT_EQ(ctx.tuning().getInt("predicates", "work_group", 0) > 0, true);
            expectSame(ctx, body);
        }
    }
}

TEST(Predicates, PadPointsCopiesTheCloud) {
    // The device's padded copy: each point's x, y, z, then w = 0; a buffer too short is one sentence.
    Context& ctx = test::context();
    const Batch b = syntheticBatch(Predicate::Orient3d, 10, 1001, 0.0, 3);
    const std::size_t count = b.points.size() / 3;
    const cl::Buffer packed = ctx.upload(b.points, "packed points");
    const auto got = ctx.download<float>(padPoints(ctx, packed, count), 4 * count, "padded points");
    std::vector<float> expected;
    for (std::size_t i = 0; i < count; ++i) expected.insert(expected.end(), {b.points[3 * i], b.points[3 * i + 1], b.points[3 * i + 2], 0.0f});
    EXPECT_EQ(got, expected);
    try {
        padPoints(ctx, packed, count + 1);
        FAIL() << "a short point buffer was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("the point buffer of padPoints"), std::string::npos) << e.what();
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

TEST(Predicates, CgalPeerGivesTheExactSigns) {
    // The bench's CPU peer, converted to the engine's sign convention: an independent exact answer
    // (CGAL's interval filter and exact fallback) on the crafted near-degenerate batches and on a
    // synthetic batch with exactly degenerate queries.
    for (Predicate p : {Predicate::Orient3d, Predicate::Insphere}) {
        const CraftedBatch crafted = p == Predicate::Orient3d ? orient3dBatch(8) : insphereBatch(9);
        EXPECT_EQ(evaluateCgal(p, crafted.points, crafted.queries), evaluateReference(p, crafted.points, crafted.queries));
        const auto synthetic = syntheticBatch(p, 3000, 500, 0.05, 4);
        const auto exact = evaluateReference(p, synthetic.points, synthetic.queries);
        EXPECT_GT(std::count(exact.begin(), exact.end(), 0), 50);
        EXPECT_EQ(evaluateCgal(p, synthetic.points, synthetic.queries), exact);
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
