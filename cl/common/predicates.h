#ifndef PORTACL_PREDICATES_H
#define PORTACL_PREDICATES_H

// Robust geometric predicates on float points, as device functions (any kernel may include this
// header) and as the two-phase workload of cl/predicates.cl (include/portacl/predicates.hpp):
//   orient3d(a,b,c,d)  = sign det [a-d; b-d; c-d]
//       > 0 when d lies below the plane through a, b, c ("below": a, b, c appear counterclockwise
//       seen from above), < 0 above, 0 coplanar (Shewchuk's convention).
//   insphere(a,b,c,d,e) = sign det [a-e, |a-e|^2; b-e, |b-e|^2; c-e, |c-e|^2; d-e, |d-e|^2]
//       > 0 when e lies inside the sphere through a, b, c, d, provided orient3d(a,b,c,d) > 0
//       (reversed otherwise), 0 cospherical (Shewchuk's convention).
// Functions (float3 points, signs as char -1, 0, +1):
//   orient3d_float(a,b,c,d, &undecided), insphere_float(a,b,c,d,e, &undecided): the float sign and
//       whether the float filter could not decide it (then the sign is only a guess).
//   orient3d_exact(a,b,c,d), insphere_exact(a,b,c,d,e): the exact sign, in double builds only
//       (#if PORTACL_DOUBLE): a double filter first, exact expansion arithmetic where it cannot decide.
//
// Phase 1 (float): Shewchuk's stage-A filter. With u = 2^-24 the computed determinant (from rounded
// differences) differs from the exact one by at most (7 + 56u) u * permanent for orient3d and
// (16 + 224u) u * permanent for insphere (Shewchuk 1997, section 4.3; the derivation holds for any
// binary format with round-to-nearest, absent underflow). We use 8u + 64u^2 and 17u + 256u^2: the
// slack absorbs the roundings of evaluating the bound itself. Underflow (gradual or flushed to zero,
// each at most 2^-126 absolute per product or input) is covered by an absolute term 2^-100 (1+M)^3
// for orient3d and 2^-100 (1+M)^4 for insphere, M the largest |difference|: the worst propagation is
// below 2^-113 (1+M)^deg (counting monomials times perturbation times cofactor bounds). Overflow
// turns the determinant into inf or NaN, which fails the test. An item passing |det| > bound gets
// the float sign; every other item is flagged undecided (and keeps the float sign as its guess).
//
// Phase 2 (double): exact. Inputs are floats, so differences a-b are computed exactly as two-term
// expansions (two_diff in double, no over/underflow in double's range). Stage A again in double
// (u = 2^-53; no underflow: every nonzero intermediate stays above 2^-910 for float inputs); where
// it computes an exact zero it can vouch for (the exact case, at pred_grain below), the sign is 0. If
// that cannot decide, the determinant is evaluated exactly with Shewchuk's expansion arithmetic
// (two-sum, two-product through fma, scale-expansion and fast-expansion-sum with zero elimination;
// exact for round-to-nearest-even IEEE double). orient3d works on the exact differences (at most 192
// components); insphere on the raw coordinates, whose pairwise products are exact doubles (at most
// 1440 components; differences as two-term expansions would need ~37k). Both are exact for every
// finite float input.
//
// Helpers carry the prefix pred_ (they are visible to every kernel that includes this header).
// Products that feed an exact sum come from pred_mul, not a*b, so that a compiler allowed to
// contract (-cl-mad-enable) cannot fuse them into the following addition and break two-sum. The
// portable pred_mul is fma(a, b, 0.0), which a compiler may fold back into a*b and then contract;
// on NVIDIA it is PTX mul.rn.f64, which is never fused by construction. (The wrong exact signs first
// seen on an H200 came from the private-array miscompilation described at pred_orient3d_expansion;
// with that avoided, fma(a, b, 0.0) passed there too, but mul.rn does not depend on the compiler.)
#pragma OPENCL FP_CONTRACT OFF

#if PORTACL_DOUBLE
#if defined(PORTACL_DEVICE_NVIDIA)
inline double pred_mul(const double a, const double b) {
    double r;
    asm("mul.rn.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
    return r;
}
#else
inline double pred_mul(const double a, const double b) { return fma(a, b, 0.0); }
#endif
#endif

inline char pred_sign_of_float(const float x) { return x > 0.0f ? (char)1 : (x < 0.0f ? (char)-1 : (char)0); }

// ---- float with a static error bound ----

inline char orient3d_float(const float3 a, const float3 b, const float3 c, const float3 d, uchar* undecided) {
    const float3 ad = a - d, bd = b - d, cd = c - d;
    const float bxcy = bd.x * cd.y, cxby = cd.x * bd.y;
    const float cxay = cd.x * ad.y, axcy = ad.x * cd.y;
    const float axby = ad.x * bd.y, bxay = bd.x * ad.y;
    const float det = ad.z * (bxcy - cxby) + bd.z * (cxay - axcy) + cd.z * (axby - bxay);
    const float permanent = (fabs(bxcy) + fabs(cxby)) * fabs(ad.z) + (fabs(cxay) + fabs(axcy)) * fabs(bd.z) +
                            (fabs(axby) + fabs(bxay)) * fabs(cd.z);
    const float3 m3 = fmax(fmax(fabs(ad), fabs(bd)), fabs(cd));
    const float m = 1.0f + fmax(fmax(m3.x, m3.y), m3.z);
    const float bound = (8.0f * 0x1p-24f + 64.0f * 0x1p-48f) * permanent + 0x1p-100f * (m * m * m);

    *undecided = fabs(det) > bound ? 0 : 1;  // NaN and inf fail the comparison: undecided
    return pred_sign_of_float(det);
}

inline char insphere_float(const float3 pa, const float3 pb, const float3 pc, const float3 pd, const float3 e,
                           uchar* undecided) {
    const float3 a = pa - e, b = pb - e, c = pc - e, d = pd - e;
    const float axby = a.x * b.y, bxay = b.x * a.y, bxcy = b.x * c.y, cxby = c.x * b.y;
    const float cxdy = c.x * d.y, dxcy = d.x * c.y, dxay = d.x * a.y, axdy = a.x * d.y;
    const float axcy = a.x * c.y, cxay = c.x * a.y, bxdy = b.x * d.y, dxby = d.x * b.y;
    const float ab = axby - bxay, bc = bxcy - cxby, cd = cxdy - dxcy;
    const float da = dxay - axdy, ac = axcy - cxay, bd = bxdy - dxby;
    const float abc = a.z * bc - b.z * ac + c.z * ab;
    const float bcd = b.z * cd - c.z * bd + d.z * bc;
    const float cda = c.z * da + d.z * ac + a.z * cd;
    const float dab = d.z * ab + a.z * bd + b.z * da;
    const float alift = a.x * a.x + a.y * a.y + a.z * a.z;
    const float blift = b.x * b.x + b.y * b.y + b.z * b.z;
    const float clift = c.x * c.x + c.y * c.y + c.z * c.z;
    const float dlift = d.x * d.x + d.y * d.y + d.z * d.z;
    const float det = (dlift * abc - clift * dab) + (blift * cda - alift * bcd);

    const float pab = fabs(axby) + fabs(bxay), pbc = fabs(bxcy) + fabs(cxby), pcd = fabs(cxdy) + fabs(dxcy);
    const float pda = fabs(dxay) + fabs(axdy), pac = fabs(axcy) + fabs(cxay), pbd = fabs(bxdy) + fabs(dxby);
    const float permanent = (pcd * fabs(b.z) + pbd * fabs(c.z) + pbc * fabs(d.z)) * alift +
                            (pda * fabs(c.z) + pac * fabs(d.z) + pcd * fabs(a.z)) * blift +
                            (pab * fabs(d.z) + pbd * fabs(a.z) + pda * fabs(b.z)) * clift +
                            (pbc * fabs(a.z) + pac * fabs(b.z) + pab * fabs(c.z)) * dlift;
    const float3 m4 = fmax(fmax(fabs(a), fabs(b)), fmax(fabs(c), fabs(d)));
    const float m = 1.0f + fmax(fmax(m4.x, m4.y), m4.z);
    const float bound = (17.0f * 0x1p-24f + 256.0f * 0x1p-48f) * permanent + 0x1p-100f * (m * m * m * m);

    *undecided = fabs(det) > bound ? 0 : 1;
    return pred_sign_of_float(det);
}

#if PORTACL_DOUBLE

// ---- double stage A, then exact expansion arithmetic ----

// The exact stages (pred_orient3d_expansion, pred_insphere_expansion) run only for a sign the double
// filter cannot vouch for. A compiler that inlines every call puts a copy of the orient3d expansion
// at each orient3d call of a kernel (the mesh pair test has about 100): forced to do so, clang makes
// the double mesh kernels some 35 times the size of the float ones (docs/mesh.md). A profile's
// [build] defines may set PRED_EXACT_OUT_OF_LINE=1 to keep them out of line, one copy per kernel
// (PoCL passes the double conformance cases either way, in about the same build time).
#ifndef PRED_EXACT_OUT_OF_LINE
#define PRED_EXACT_OUT_OF_LINE 0
#endif
#if PRED_EXACT_OUT_OF_LINE
#define PRED_EXACT_FN __attribute__((noinline))
#else
#define PRED_EXACT_FN inline
#endif

// x + y == a + b exactly, x = fl(a + b) (Knuth's two-sum; any a, b).
inline void pred_two_sum(const double a, const double b, double* x, double* y) {
    const double s = a + b;
    const double bv = s - a;
    const double av = s - bv;
    *x = s;
    *y = (a - av) + (b - bv);
}

// x + y == a * b exactly, x = fl(a * b). pred_mul rather than a * b: see the header.
inline void pred_two_product(const double a, const double b, double* x, double* y) {
    const double p = pred_mul(a, b);
    *x = p;
    *y = fma(a, b, -p);
}

// h = e * b; e nonoverlapping with increasing magnitudes; zero components dropped. |h| <= 2 elen.
inline int pred_scale_expansion(const int elen, const double* e, const double b, double* h) {
    double q, hh;
    int hn = 0;
    pred_two_product(e[0], b, &q, &hh);
    if (hh != 0.0) h[hn++] = hh;
    for (int i = 1; i < elen; ++i) {
        double p1, p0, sum;
        pred_two_product(e[i], b, &p1, &p0);
        pred_two_sum(q, p0, &sum, &hh);
        if (hh != 0.0) h[hn++] = hh;
        pred_two_sum(p1, sum, &q, &hh);
        if (hh != 0.0) h[hn++] = hh;
    }
    if (q != 0.0 || hn == 0) h[hn++] = q;
    return hn;
}

// h = e + f by merging the components in order of magnitude and summing with pred_two_sum (Shewchuk's
// fast expansion sum; h may not alias e or f). |h| <= elen + flen.
inline int pred_expansion_sum(const int elen, const double* e, const int flen, const double* f, double* h) {
    int ei = 0, fi = 0, hn = 0;
    double q;
    if (fabs(e[0]) < fabs(f[0])) q = e[ei++];
    else q = f[fi++];
    while (ei < elen || fi < flen) {
        double g;
        if (fi >= flen || (ei < elen && fabs(e[ei]) < fabs(f[fi]))) g = e[ei++];
        else g = f[fi++];
        double s, hh;
        pred_two_sum(q, g, &s, &hh);
        q = s;
        if (hh != 0.0) h[hn++] = hh;
    }
    if (q != 0.0 || hn == 0) h[hn++] = q;
    return hn;
}

inline void pred_negate_expansion(const int n, double* e) {
    for (int i = 0; i < n; ++i) e[i] = -e[i];
}

// h = e * f, summing e scaled by each component of f. scaled holds 2 elen, tmp and h 2 elen flen.
inline int pred_expansion_product(const int elen, const double* e, const int flen, const double* f, double* h,
                             double* scaled, double* tmp) {
    int hn = pred_scale_expansion(elen, e, f[0], h);
    for (int j = 1; j < flen; ++j) {
        const int sn = pred_scale_expansion(elen, e, f[j], scaled);
        const int tn = pred_expansion_sum(hn, h, sn, scaled, tmp);
        for (int k = 0; k < tn; ++k) h[k] = tmp[k];
        hn = tn;
    }
    return hn;
}

inline char pred_expansion_sign(const int n, const double* e) {
    const double top = e[n - 1];  // largest magnitude; zero only when the expansion is zero
    return top > 0.0 ? (char)1 : (top < 0.0 ? (char)-1 : (char)0);
}

inline char pred_sign_of_double(const double x) { return x > 0.0 ? (char)1 : (x < 0.0 ? (char)-1 : (char)0); }

// An exact difference a - b of floats as an expansion of 1 or 2 doubles (increasing magnitude).
inline int pred_exact_difference(const float a, const float b, double* e) {
    const double x = (double)a - (double)b;
    const double bv = (double)a - x;
    const double av = x + bv;
    const double y = ((double)a - av) + (bv - (double)b);
    if (y == 0.0) {
        e[0] = x;
        return 1;
    }
    e[0] = y;
    e[1] = x;
    return 2;
}

// m = p*q - r*s for 2-term expansions: at most 16 components. scratch holds 28 doubles.
inline int pred_minor2(const int pn, const double* p, const int qn, const double* q, const int rn, const double* r,
                       const int sn, const double* s, double* m, double* scratch) {
    double *pq = scratch, *rs = scratch + 8, *scaled = scratch + 16, *tmp = scratch + 20;  // 8, 8, 4, 8
    const int n1 = pred_expansion_product(pn, p, qn, q, pq, scaled, tmp);
    const int n2 = pred_expansion_product(rn, r, sn, s, rs, scaled, tmp);
    pred_negate_expansion(n2, rs);
    return pred_expansion_sum(n1, pq, n2, rs, m);
}

// The exact case of stage A (an exact zero decided without expansions): all coordinates are integer
// multiples of G, the smallest of their grains (a float's grain is the value of its lowest set bit, a
// power of two). Every value stage A computes
// from them with +, - and x (fused or not, in any order) is a multiple of G^deg for its degree: an
// exact result is, and a rounded one is a multiple of its rounding step, which exceeds G^deg (else the
// result would have been representable). No value underflows (a nonzero one is at least 2^-745). So
// the computed determinant D and the exact one are both multiples of G^deg (deg 3 for orient3d, 5 for
// insphere); when D == 0 and stage A's error bound is below G^deg, |det| < G^deg forces det == 0.
// This decides exactly degenerate queries of coarse coordinates (integer grids, as most meshes' and
// the synthetic batches' are) without the expansion stage; a nonzero sign it cannot give stage A
// already gave (|D| >= G^deg > bound). It is the first step of the expansion functions, so that the
// code where stage A decides stays as it was (with the rule inlined beside stage A's test, PoCL's
// orient3d in double took 25 % longer on the queries stage A decides).

// The grain of a finite float: the value of its lowest set bit (x is an integer multiple of it);
// +infinity for zero, a multiple of every grain.
inline double pred_grain(const float x) {
    const uint bits = as_uint(x);
    const uint field = (bits >> 23) & 0xffu;
    const uint significand = (bits & 0x7fffffu) | (field != 0u ? 0x800000u : 0u);
    if (significand == 0u) return INFINITY;
    const uint lowest = significand & (0u - significand);
    // times 2^(field - 150) (2^-149 for subnormals): a normal double built from its exponent field.
    return (double)lowest * as_double((ulong)((field != 0u ? field : 1u) + 873u) << 52);
}

inline double pred_grain3(const float3 p) { return fmin(fmin(pred_grain(p.x), pred_grain(p.y)), pred_grain(p.z)); }

// True when stage A's D == 0 is exact for orient3d (see above).
inline bool pred_orient3d_exact_zero(const float3 a, const float3 b, const float3 c, const float3 d,
                                     const double det, const double bound) {
    if (det != 0.0) return false;
    const double g = fmin(fmin(pred_grain3(a), pred_grain3(b)), fmin(pred_grain3(c), pred_grain3(d)));
    return bound < g * g * g;
}

// The same for insphere (degree 5).
inline bool pred_insphere_exact_zero(const float3 a, const float3 b, const float3 c, const float3 d,
                                     const float3 e, const double det, const double bound) {
    if (det != 0.0) return false;
    const double g = fmin(fmin(fmin(pred_grain3(a), pred_grain3(b)), fmin(pred_grain3(c), pred_grain3(d))),
                          pred_grain3(e));
    return bound < g * g * g * g * g;
}

// Every expansion of the exact orient3d lives in one private array, carved by hand. With one private
// array per expansion, NVIDIA's compiler (driver 580, NVVM 7.0.1, H200) miscompiled this function:
// the same code gave the right sign in one kernel and 0 or the opposite sign in orient3d_phase2 (a
// debug kernel saw an expansion product read another array's data), with PTX arithmetic that looked
// right, so most likely its private-memory slot sharing. With one array it is exact on the H200.
#define PRED_O3_WORK (18 + 48 + 28 + 192 + 32 + 64 + 128 + 192)
// stageDet and stageBound: stage A's determinant and error bound, for the exact case first.
PRED_EXACT_FN char pred_orient3d_expansion(const float3 a, const float3 b, const float3 c, const float3 d,
                                           const double stageDet, const double stageBound) {
    if (pred_orient3d_exact_zero(a, b, c, d, stageDet, stageBound)) return 0;
    double w[PRED_O3_WORK];
    double *adx = w, *ady = w + 2, *adz = w + 4, *bdx = w + 6, *bdy = w + 8, *bdz = w + 10;
    double *cdx = w + 12, *cdy = w + 14, *cdz = w + 16;
    double *bc = w + 18, *ca = w + 34, *ab = w + 50, *minor = w + 66;
    double *t1 = w + 94, *t2 = w + 158, *t3 = w + 222, *scaled = w + 286, *tmp = w + 318;
    double *s12 = w + 382, *det = w + 510;
    const int nadx = pred_exact_difference(a.x, d.x, adx), nady = pred_exact_difference(a.y, d.y, ady);
    const int nadz = pred_exact_difference(a.z, d.z, adz), nbdx = pred_exact_difference(b.x, d.x, bdx);
    const int nbdy = pred_exact_difference(b.y, d.y, bdy), nbdz = pred_exact_difference(b.z, d.z, bdz);
    const int ncdx = pred_exact_difference(c.x, d.x, cdx), ncdy = pred_exact_difference(c.y, d.y, cdy);
    const int ncdz = pred_exact_difference(c.z, d.z, cdz);

    const int nbc = pred_minor2(nbdx, bdx, ncdy, cdy, ncdx, cdx, nbdy, bdy, bc, minor);
    const int nca = pred_minor2(ncdx, cdx, nady, ady, nadx, adx, ncdy, cdy, ca, minor);
    const int nab = pred_minor2(nadx, adx, nbdy, bdy, nbdx, bdx, nady, ady, ab, minor);

    const int n1 = pred_expansion_product(nbc, bc, nadz, adz, t1, scaled, tmp);
    const int n2 = pred_expansion_product(nca, ca, nbdz, bdz, t2, scaled, tmp);
    const int n3 = pred_expansion_product(nab, ab, ncdz, cdz, t3, scaled, tmp);
    const int n12 = pred_expansion_sum(n1, t1, n2, t2, s12);
    const int n = pred_expansion_sum(n12, s12, n3, t3, det);
    return pred_expansion_sign(n, det);
}

// The exact insphere stage works on the raw coordinates, where every product of two floats is exact
// in one double (48 significant bits, exponents far inside double's range), so no difference has to
// be exact: insphere = sign det [p, |p|^2, 1] over the rows a, b, c, d, e (subtracting row e and then
// 2 e_x, 2 e_y, 2 e_z times the coordinate columns from the lift column turns it into Shewchuk's
// 4 x 4 determinant above). Expanded along the lift column: det = sum_m (-1)^(m+1) |p_m|^2 D4(rows
// other than m), with D4(p,q,r,s) = det [p, 1; q, 1; r, 1; s, 1] = -D3(q,r,s) + D3(p,r,s) - D3(p,q,s)
// + D3(p,q,r) and D3 the 3 x 3 determinant of the coordinates.

// D3(p, q, r) = pz (qx ry - rx qy) - qz (px ry - rx py) + rz (px qy - qx py): at most 12 components.
inline int pred_det3_raw(const float3 p, const float3 q, const float3 r, double* out) {
    double mqr[2], mpr[2], mpq[2];
    pred_two_sum(pred_mul((double)q.x, (double)r.y), -pred_mul((double)r.x, (double)q.y), &mqr[1], &mqr[0]);
    pred_two_sum(pred_mul((double)p.x, (double)r.y), -pred_mul((double)r.x, (double)p.y), &mpr[1], &mpr[0]);
    pred_two_sum(pred_mul((double)p.x, (double)q.y), -pred_mul((double)q.x, (double)p.y), &mpq[1], &mpq[0]);
    double s1[4], s2[4], s3[4], s12[8];
    const int k1 = pred_scale_expansion(2, mqr, (double)p.z, s1);
    const int k2 = pred_scale_expansion(2, mpr, -(double)q.z, s2);
    const int k3 = pred_scale_expansion(2, mpq, (double)r.z, s3);
    const int k12 = pred_expansion_sum(k1, s1, k2, s2, s12);
    return pred_expansion_sum(k12, s12, k3, s3, out);
}

// D4(p, q, r, s): at most 48 components.
inline int pred_det4_raw(const float3 p, const float3 q, const float3 r, const float3 s, double* out) {
    double t1[12], t2[12], t3[12], t4[12], s12[24], s34[24];
    const int n1 = pred_det3_raw(q, r, s, t1), n2 = pred_det3_raw(p, r, s, t2);
    const int n3 = pred_det3_raw(p, q, s, t3), n4 = pred_det3_raw(p, q, r, t4);
    pred_negate_expansion(n1, t1);
    pred_negate_expansion(n3, t3);
    const int n12 = pred_expansion_sum(n1, t1, n2, t2, s12);
    const int n34 = pred_expansion_sum(n3, t3, n4, t4, s34);
    return pred_expansion_sum(n12, s12, n34, s34, out);
}

// sign * |p|^2 exactly: at most 3 components.
inline int pred_lift_raw(const float3 p, const double sign, double* out) {
    double x[1] = {sign * (double)p.x * (double)p.x}, y[1] = {sign * (double)p.y * (double)p.y};
    double z[1] = {sign * (double)p.z * (double)p.z}, xy[2];
    const int n = pred_expansion_sum(1, x, 1, y, xy);
    return pred_expansion_sum(n, xy, 1, z, out);
}

// The exact insphere sign for any finite float input (after the exact case of stage A, whose
// determinant and bound are stageDet and stageBound).
PRED_EXACT_FN char pred_insphere_expansion(const float3 pa, const float3 pb, const float3 pc, const float3 pd,
                                           const float3 pe, const double stageDet, const double stageBound) {
    if (pred_insphere_exact_zero(pa, pb, pc, pd, pe, stageDet, stageBound)) return 0;
    const float3 rows[5] = {pa, pb, pc, pd, pe};
    double o[48], l[3], term[288], scaled[96], tmp[288], acc[1440], next[1440];
    int n = 0;
    for (int m = 0; m < 5; ++m) {
        float3 rest[4];
        for (int j = 0, r = 0; j < 5; ++j)
            if (j != m) rest[r++] = rows[j];
        const int on = pred_det4_raw(rest[0], rest[1], rest[2], rest[3], o);
        const int ln = pred_lift_raw(rows[m], (m % 2) ? 1.0 : -1.0, l);  // (-1)^(m+1)
        const int tn = pred_expansion_product(on, o, ln, l, term, scaled, tmp);
        if (n == 0) {
            for (int k = 0; k < tn; ++k) acc[k] = term[k];
            n = tn;
        } else {
            n = pred_expansion_sum(n, acc, tn, term, next);
            for (int k = 0; k < n; ++k) acc[k] = next[k];
        }
    }
    return pred_expansion_sign(n, acc);
}

// The exact orient3d sign: stage A in double on rounded differences (u = 2^-53), else exact.
inline char orient3d_exact(const float3 a, const float3 b, const float3 c, const float3 d) {
    const double3 ad = convert_double3(a) - convert_double3(d);
    const double3 bd = convert_double3(b) - convert_double3(d);
    const double3 cd = convert_double3(c) - convert_double3(d);
    const double bxcy = bd.x * cd.y, cxby = cd.x * bd.y;
    const double cxay = cd.x * ad.y, axcy = ad.x * cd.y;
    const double axby = ad.x * bd.y, bxay = bd.x * ad.y;
    const double det = ad.z * (bxcy - cxby) + bd.z * (cxay - axcy) + cd.z * (axby - bxay);
    const double permanent = (fabs(bxcy) + fabs(cxby)) * fabs(ad.z) + (fabs(cxay) + fabs(axcy)) * fabs(bd.z) +
                             (fabs(axby) + fabs(bxay)) * fabs(cd.z);
    const double bound = (8.0 * 0x1p-53 + 64.0 * 0x1p-106) * permanent;
    return fabs(det) > bound ? pred_sign_of_double(det) : pred_orient3d_expansion(a, b, c, d, det, bound);
}

// The exact insphere sign: stage A in double on rounded differences (u = 2^-53), else exact.
inline char insphere_exact(const float3 fa, const float3 fb, const float3 fc, const float3 fd, const float3 fe) {
    const double3 e = convert_double3(fe);
    const double3 a = convert_double3(fa) - e, b = convert_double3(fb) - e;
    const double3 c = convert_double3(fc) - e, d = convert_double3(fd) - e;
    const double axby = a.x * b.y, bxay = b.x * a.y, bxcy = b.x * c.y, cxby = c.x * b.y;
    const double cxdy = c.x * d.y, dxcy = d.x * c.y, dxay = d.x * a.y, axdy = a.x * d.y;
    const double axcy = a.x * c.y, cxay = c.x * a.y, bxdy = b.x * d.y, dxby = d.x * b.y;
    const double ab = axby - bxay, bc = bxcy - cxby, cd = cxdy - dxcy;
    const double da = dxay - axdy, ac = axcy - cxay, bd = bxdy - dxby;
    const double abc = a.z * bc - b.z * ac + c.z * ab;
    const double bcd = b.z * cd - c.z * bd + d.z * bc;
    const double cda = c.z * da + d.z * ac + a.z * cd;
    const double dab = d.z * ab + a.z * bd + b.z * da;
    const double alift = a.x * a.x + a.y * a.y + a.z * a.z;
    const double blift = b.x * b.x + b.y * b.y + b.z * b.z;
    const double clift = c.x * c.x + c.y * c.y + c.z * c.z;
    const double dlift = d.x * d.x + d.y * d.y + d.z * d.z;
    const double det = (dlift * abc - clift * dab) + (blift * cda - alift * bcd);
    const double pab = fabs(axby) + fabs(bxay), pbc = fabs(bxcy) + fabs(cxby), pcd = fabs(cxdy) + fabs(dxcy);
    const double pda = fabs(dxay) + fabs(axdy), pac = fabs(axcy) + fabs(cxay), pbd = fabs(bxdy) + fabs(dxby);
    const double permanent = (pcd * fabs(b.z) + pbd * fabs(c.z) + pbc * fabs(d.z)) * alift +
                             (pda * fabs(c.z) + pac * fabs(d.z) + pcd * fabs(a.z)) * blift +
                             (pab * fabs(d.z) + pbd * fabs(a.z) + pda * fabs(b.z)) * clift +
                             (pbc * fabs(a.z) + pac * fabs(b.z) + pab * fabs(c.z)) * dlift;
    const double bound = (17.0 * 0x1p-53 + 256.0 * 0x1p-106) * permanent;
    return fabs(det) > bound ? pred_sign_of_double(det) : pred_insphere_expansion(fa, fb, fc, fd, fe, det, bound);
}

#endif  // PORTACL_DOUBLE
#endif  // PORTACL_PREDICATES_H
