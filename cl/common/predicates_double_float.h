// Phase 2 of the robust predicates (predicates.h) on a device without fp64: a certified double-float
// evaluation (double_float.h) that returns the exact sign, or PRED_DF_HOST when it cannot vouch for
// one (the engine then takes the query to its exact host step). Also plain C++ (the host reference).
//
// Why the sign is exact (docs/two_phase.md, "Devices without fp64"):
// 1. Grain. Every float is an integer multiple of 2^g, g its lowest set bit (df_grain); let g be the
//    smallest over the query's coordinates. Require g >= -126 (no subnormal coordinate): then each
//    difference a - d is computed exactly by TwoSum as a normalized pair, on any device, flush-to-zero
//    or not. The differences are scaled by 2^s (exactly: a power of two), s chosen so that
//    L = deg * (g + s) >= -126, deg the degree of the determinant (orient3d 3, insphere 5). Every
//    value of degree j the evaluation forms (products, sums, their error terms, split halves) is a
//    multiple of 2^(j (g + s)), so each nonzero value is at least 2^-126: nothing underflows, and the
//    arithmetic behaves as with an unbounded exponent range. Overflow is ruled out by requiring
//    deg * E' <= 107, E' the exponent bound of the scaled differences (the largest intermediate,
//    split constants included, stays below 2^127). A query outside these ranges goes to the host.
// 2. Error bound. Each double-float operation has relative error at most 8u^2 (u = 2^-24; the
//    bounds of double_float.h are 5u^2, 7u^2 and 3u^2 + 13u^3). Along any path from the exact
//    differences to the determinant there are at most k = 5 (orient3d) or 11 (insphere) operations,
//    so |D - det| <= ((1 + 8u^2)^k - 1) P, P the permanent (the sum of the monomials' absolute
//    values). The permanent is computed in float from the high parts (each |difference| <= (1 + u)
//    |hi|, each rounding at most a factor 1 / (1 - u) low), so P <= (1 + 20u) P~ and the bound
//    B = 2^-42 P~ (orient3d: 64u^2 >= 40u^2 (1 + 20u)) or 2^-41 P~ (insphere: 128u^2 >= 88u^2 (1 + 20u))
//    covers the error. |D| > B decides the sign.
// 3. Exact case. D and det are both multiples of 2^L. When B < 2^L, |D - det| < 2^L forces D == det:
//    the sign is exact, zero included (integer points on one plane: P~ is far below 2^42 times the
//    grain's cube). B = 2^-k P~ is exact unless it falls below 2^-126, which only makes B < 2^L hold.
// P~ == 0 means every monomial has a zero factor: det == 0 exactly.
#ifndef PORTACL_PREDICATES_DOUBLE_FLOAT_H
#define PORTACL_PREDICATES_DOUBLE_FLOAT_H

#ifdef __OPENCL_C_VERSION__
#include "common/double_float.h"  // (the host's reference includes it first)
#endif

#define PRED_DF_HOST 2  // the sign this stage cannot vouch for: the exact host step decides

// The smallest grain of n coordinates (zeros ignored).
static inline int pred_df_min_grain(const float* v, const int n) {
    int g = 1000;
    for (int i = 0; i < n; ++i) {
        const int gi = df_grain(v[i]);
        g = gi < g ? gi : g;
    }
    return g;
}

// The scale s (differences times 2^s) for degree deg, or 1000 when the query is out of range: a
// subnormal coordinate, or differences spread over too many binades for float's exponent range.
static inline int pred_df_scale(const int grain, const float largest, const int deg) {
    if (grain < -126) return 1000;
    const int low = -(126 / deg);  // g + s: deg * (g + s) >= -126
    const int s = low - grain;
    const int e = ilogb(largest) + 2 + s;  // every |scaled difference| < 2^e
    return deg * e <= 107 ? s : 1000;
}

static inline char pred_df_decide(const df_t det, const float permanent, const float bound, const int grainTimesDeg) {
    if (permanent == 0.0f) return 0;
    if (fabs(det.hi) > bound) return (char)df_sign(det);
    // The computation was exact (both sides multiples of 2^grainTimesDeg, the error below it).
    if (bound < ldexp(1.0f, grainTimesDeg)) return (char)df_sign(det);
    return PRED_DF_HOST;
}

static inline char orient3d_double_float(const float3 a, const float3 b, const float3 c, const float3 d) {
    const float coords[12] = {a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z, d.x, d.y, d.z};
    const int grain = pred_df_min_grain(coords, 12);
    df_t ad[3], bd[3], cd[3];
    float largest = 0.0f;
    for (int k = 0; k < 3; ++k) {
        ad[k] = df_two_diff(coords[k], coords[9 + k]);
        bd[k] = df_two_diff(coords[3 + k], coords[9 + k]);
        cd[k] = df_two_diff(coords[6 + k], coords[9 + k]);
        largest = fmax(largest, fmax(fabs(ad[k].hi), fmax(fabs(bd[k].hi), fabs(cd[k].hi))));
    }
    if (largest == 0.0f) return 0;  // four equal points
    const int s = pred_df_scale(grain, largest, 3);
    if (s == 1000) return PRED_DF_HOST;
    for (int k = 0; k < 3; ++k) ad[k] = df_ldexp(ad[k], s), bd[k] = df_ldexp(bd[k], s), cd[k] = df_ldexp(cd[k], s);

    const df_t bxcy = df_mul(bd[0], cd[1]), cxby = df_mul(cd[0], bd[1]);
    const df_t cxay = df_mul(cd[0], ad[1]), axcy = df_mul(ad[0], cd[1]);
    const df_t axby = df_mul(ad[0], bd[1]), bxay = df_mul(bd[0], ad[1]);
    const df_t det = df_add(df_add(df_mul(ad[2], df_sub(bxcy, cxby)), df_mul(bd[2], df_sub(cxay, axcy))),
                            df_mul(cd[2], df_sub(axby, bxay)));
    const float permanent = (fabs(bxcy.hi) + fabs(cxby.hi)) * fabs(ad[2].hi) +
                            (fabs(cxay.hi) + fabs(axcy.hi)) * fabs(bd[2].hi) +
                            (fabs(axby.hi) + fabs(bxay.hi)) * fabs(cd[2].hi);
    return pred_df_decide(det, permanent, 0x1p-42f * permanent, 3 * (-(126 / 3)));
}

static inline char insphere_double_float(const float3 pa, const float3 pb, const float3 pc, const float3 pd,
                                         const float3 pe) {
    const float coords[15] = {pa.x, pa.y, pa.z, pb.x, pb.y, pb.z, pc.x, pc.y, pc.z, pd.x, pd.y, pd.z, pe.x, pe.y, pe.z};
    const int grain = pred_df_min_grain(coords, 15);
    df_t a[3], b[3], c[3], d[3];
    float largest = 0.0f;
    for (int k = 0; k < 3; ++k) {
        a[k] = df_two_diff(coords[k], coords[12 + k]);
        b[k] = df_two_diff(coords[3 + k], coords[12 + k]);
        c[k] = df_two_diff(coords[6 + k], coords[12 + k]);
        d[k] = df_two_diff(coords[9 + k], coords[12 + k]);
        largest = fmax(fmax(largest, fabs(a[k].hi)), fmax(fabs(b[k].hi), fmax(fabs(c[k].hi), fabs(d[k].hi))));
    }
    if (largest == 0.0f) return 0;
    const int s = pred_df_scale(grain, largest, 5);
    if (s == 1000) return PRED_DF_HOST;
    for (int k = 0; k < 3; ++k)
        a[k] = df_ldexp(a[k], s), b[k] = df_ldexp(b[k], s), c[k] = df_ldexp(c[k], s), d[k] = df_ldexp(d[k], s);

    const df_t axby = df_mul(a[0], b[1]), bxay = df_mul(b[0], a[1]), bxcy = df_mul(b[0], c[1]);
    const df_t cxby = df_mul(c[0], b[1]), cxdy = df_mul(c[0], d[1]), dxcy = df_mul(d[0], c[1]);
    const df_t dxay = df_mul(d[0], a[1]), axdy = df_mul(a[0], d[1]), axcy = df_mul(a[0], c[1]);
    const df_t cxay = df_mul(c[0], a[1]), bxdy = df_mul(b[0], d[1]), dxby = df_mul(d[0], b[1]);
    const df_t ab = df_sub(axby, bxay), bc = df_sub(bxcy, cxby), cd = df_sub(cxdy, dxcy);
    const df_t da = df_sub(dxay, axdy), ac = df_sub(axcy, cxay), bd = df_sub(bxdy, dxby);
    const df_t abc = df_add(df_sub(df_mul(a[2], bc), df_mul(b[2], ac)), df_mul(c[2], ab));
    const df_t bcd = df_add(df_sub(df_mul(b[2], cd), df_mul(c[2], bd)), df_mul(d[2], bc));
    const df_t cda = df_add(df_add(df_mul(c[2], da), df_mul(d[2], ac)), df_mul(a[2], cd));
    const df_t dab = df_add(df_add(df_mul(d[2], ab), df_mul(a[2], bd)), df_mul(b[2], da));
    const df_t alift = df_add(df_add(df_mul(a[0], a[0]), df_mul(a[1], a[1])), df_mul(a[2], a[2]));
    const df_t blift = df_add(df_add(df_mul(b[0], b[0]), df_mul(b[1], b[1])), df_mul(b[2], b[2]));
    const df_t clift = df_add(df_add(df_mul(c[0], c[0]), df_mul(c[1], c[1])), df_mul(c[2], c[2]));
    const df_t dlift = df_add(df_add(df_mul(d[0], d[0]), df_mul(d[1], d[1])), df_mul(d[2], d[2]));
    const df_t det = df_add(df_sub(df_mul(dlift, abc), df_mul(clift, dab)), df_sub(df_mul(blift, cda), df_mul(alift, bcd)));

    const float pab = fabs(axby.hi) + fabs(bxay.hi), pbc = fabs(bxcy.hi) + fabs(cxby.hi);
    const float pcd = fabs(cxdy.hi) + fabs(dxcy.hi), pda = fabs(dxay.hi) + fabs(axdy.hi);
    const float pac = fabs(axcy.hi) + fabs(cxay.hi), pbd = fabs(bxdy.hi) + fabs(dxby.hi);
    const float az = fabs(a[2].hi), bz = fabs(b[2].hi), cz = fabs(c[2].hi), dz = fabs(d[2].hi);
    const float al = a[0].hi * a[0].hi + a[1].hi * a[1].hi + a[2].hi * a[2].hi;
    const float bl = b[0].hi * b[0].hi + b[1].hi * b[1].hi + b[2].hi * b[2].hi;
    const float cl = c[0].hi * c[0].hi + c[1].hi * c[1].hi + c[2].hi * c[2].hi;
    const float dl = d[0].hi * d[0].hi + d[1].hi * d[1].hi + d[2].hi * d[2].hi;
    const float permanent = (pcd * bz + pbd * cz + pbc * dz) * al + (pda * cz + pac * dz + pcd * az) * bl +
                            (pab * dz + pbd * az + pda * bz) * cl + (pbc * az + pac * bz + pab * cz) * dl;
    return pred_df_decide(det, permanent, 0x1p-41f * permanent, 5 * (-(126 / 5)));
}

#endif
