// Double-float arithmetic: a value is the unevaluated sum hi + lo of two floats, normalized so that
// hi = fl(hi + lo) (|lo| <= ulp(hi) / 2), giving about 48 significant bits out of float operations.
// Phase 2 of the two-phase dispatch runs in it on devices without fp64 (docs/two_phase.md, "Devices
// without fp64"). The building blocks and their bounds, with u = 2^-24 (float's unit roundoff):
//   df_two_sum          a + b exactly as (s, e) (Knuth's TwoSum, TAOCP vol. 2, 4.2.2; 6 operations)
//   df_fast_two_sum     the same when |a| >= |b| (Dekker 1971; 3 operations)
//   df_two_prod         a * b exactly: fma(a, b, -p) where the device has a fast fma (FP_FAST_FMAF),
//                       else Dekker's product on Veltkamp's split halves (Dekker 1971)
//   df_add              AccurateDWPlusDW (Joldes, Muller and Popescu 2017, Algorithm 6): relative
//                       error at most 3u^2 + 13u^3
//   df_mul              with fma: DWTimesDW3 (their Algorithm 12), at most 5u^2; without: Dekker's
//                       DWTimesDW1 (their Algorithm 10), at most 7u^2
// The exact transformations and the bounds hold for IEEE round-to-nearest float arithmetic in which
// no operation overflows or underflows; a caller that cannot rule out underflow keeps every value a
// multiple of 2^-126 (then no result is subnormal, with or without flush-to-zero: see
// predicates_double_float.h). Every operation must round once: the pragma below, and the engine builds
// double-float programs without -cl-mad-enable (Context::program), so that no a * b + c is fused.
//
// The header is also plain C++ (the host's serial reference, include/portacl/double_float.hpp includes
// it in a namespace of its own): df_t is a struct, and the few OpenCL built-ins it needs are wrapped.
#ifndef PORTACL_DOUBLE_FLOAT_H
#define PORTACL_DOUBLE_FLOAT_H

#ifdef __OPENCL_C_VERSION__
#pragma OPENCL FP_CONTRACT OFF
static inline uint df_float_bits(const float x) { return as_uint(x); }
static inline int df_clz(const uint x) { return (int)clz(x); }
#define DF_UINT uint
#else
static inline std::uint32_t df_float_bits(const float x) {
    std::uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}
static inline int df_clz(const std::uint32_t x) { return x ? __builtin_clz(x) : 32; }
#define DF_UINT std::uint32_t
#endif

// fma where the device says it is fast (FP_FAST_FMAF); PORTACL_DF_NO_FMA forces the split (tests).
#if defined(FP_FAST_FMAF) && !defined(PORTACL_DF_NO_FMA)
#define DF_USE_FMA 1
#else
#define DF_USE_FMA 0
#endif

typedef struct {
    float hi, lo;
} df_t;

static inline df_t df_make(const float hi, const float lo) {
    df_t r;
    r.hi = hi;
    r.lo = lo;
    return r;
}

static inline df_t df_two_sum(const float a, const float b) {
    const float s = a + b;
    const float bv = s - a;
    const float av = s - bv;
    return df_make(s, (a - av) + (b - bv));
}

static inline df_t df_fast_two_sum(const float a, const float b) {
    const float s = a + b;
    return df_make(s, b - (s - a));
}

// Veltkamp's split: a = h + l exactly, h and l of at most 12 significant bits each (C = 2^12 + 1).
static inline void df_split(const float a, float* h, float* l) {
    const float g = 4097.0f * a;
    const float d = a - g;
    *h = g + d;
    *l = a - *h;
}

static inline df_t df_two_prod_dekker(const float a, const float b) {
    float ah, al, bh, bl;
    df_split(a, &ah, &al);
    df_split(b, &bh, &bl);
    const float p = a * b;
    return df_make(p, ((ah * bh - p) + ah * bl + al * bh) + al * bl);
}

static inline df_t df_two_prod_fma(const float a, const float b) {
    const float p = a * b;
    return df_make(p, fma(a, b, -p));
}

static inline df_t df_two_prod(const float a, const float b) {
#if DF_USE_FMA
    return df_two_prod_fma(a, b);
#else
    return df_two_prod_dekker(a, b);
#endif
}

static inline df_t df_neg(const df_t x) { return df_make(-x.hi, -x.lo); }

// a - b of two floats, exactly.
static inline df_t df_two_diff(const float a, const float b) { return df_two_sum(a, -b); }

static inline df_t df_add(const df_t x, const df_t y) {
    const df_t s = df_two_sum(x.hi, y.hi);
    const df_t t = df_two_sum(x.lo, y.lo);
    const df_t v = df_fast_two_sum(s.hi, s.lo + t.hi);
    return df_fast_two_sum(v.hi, t.lo + v.lo);
}

static inline df_t df_sub(const df_t x, const df_t y) { return df_add(x, df_neg(y)); }

static inline df_t df_mul_fma(const df_t x, const df_t y) {
    const df_t c = df_two_prod_fma(x.hi, y.hi);
    const float tl0 = x.lo * y.lo;
    const float tl1 = fma(x.hi, y.lo, tl0);
    const float cl2 = fma(x.lo, y.hi, tl1);
    return df_fast_two_sum(c.hi, c.lo + cl2);
}

static inline df_t df_mul_dekker(const df_t x, const df_t y) {
    const df_t c = df_two_prod_dekker(x.hi, y.hi);
    const float cl2 = x.hi * y.lo + x.lo * y.hi;
    return df_fast_two_sum(c.hi, c.lo + cl2);
}

static inline df_t df_mul(const df_t x, const df_t y) {
#if DF_USE_FMA
    return df_mul_fma(x, y);
#else
    return df_mul_dekker(x, y);
#endif
}

// x * 2^e, exact while the result neither overflows nor becomes subnormal.
static inline df_t df_ldexp(const df_t x, const int e) { return df_make(ldexp(x.hi, e), ldexp(x.lo, e)); }

// -1, 0 or +1 (the sign of hi is the sign of a normalized value).
static inline int df_sign(const df_t x) { return x.hi > 0.0f ? 1 : (x.hi < 0.0f ? -1 : 0); }

// The exponent of x's lowest set bit: x is an odd multiple of 2^g (a float's "grain"); 1000 for 0.
static inline int df_grain(const float x) {
    const DF_UINT b = df_float_bits(x) & 0x7fffffffu;
    if (b == 0) return 1000;
    const DF_UINT e = b >> 23;
    const DF_UINT m = (b & 0x7fffffu) | (e ? 0x800000u : 0u);
    const int lowest = 31 - df_clz(m & (0u - m));
    return (int)(e ? e : 1u) - 150 + lowest;
}

#endif
