// The register path of 8-bit planes (host/filter/strip.cpp says which operations it takes): each
// work-item computes a strip of SW outputs side by side on each of RPI rows. It reads the
// RPI + 2 RY input rows its windows need once, as SW-byte vectors (plus RX bytes on either side),
// and keeps them in registers; nothing goes through local memory. Every work-item loads alike: the
// rows and side columns it reads come through the border rule (BORDER, compiled in), which inside
// the image gives the plain indices. Only the last strip of a row that is not whole gathers its
// bytes one by one. (A separate path for the edge work-items made every warp holding one run
// both paths.)
//   OP 1  linear, masks of KW x KH (1 or 3 each; rank 1: up to 9), NMASK of them (1 or 2), combined by COMBINE
//         (0 single, 1 L1, 2 L2, 4 x, 5 y, 6 max). Each mask row is a multiple of one of NBASE
//         base rows (BASES); every input row's base sums are taken once and shared by the masks and
//         by the KH outputs whose windows hold the row. Exact 32-bit integers (the host proves the
//         bounds), the same values as the serial reference's sums in any order.
//   OP 2  median of 3x3 or 5x5. Each column of the window is sorted once and shared by the KW
//         outputs beside each other that hold it; two outputs one below the other share the sort
//         of their KH - 1 common rows. 3x3: the median of (largest column minimum, median of the
//         column medians, smallest column maximum). 5x5: columns merged in pairs (each pair shared
//         by two outputs), two pairs merged into the ranks 7..12 of twenty, and rank 12 of those
//         with the fifth column: about 90 min/max per output instead of about 210.
// Rank-1 integer masks up to 9x9 are OP 1 with one base row (the row factor) whose multiples are
// the column factor. When the row factor is all ones (HSLIDE) its sums slide along the row (one
// add and one subtract per output); when the column factor is one constant (VSLIDE) the vertical
// sums slide down the strip: O(1) per output instead of O(K) in each direction (box masks).
// Other rank-1 masks taller than 3 (COLUMN_SUMS) keep every input row's base sums and take each
// output row's column sum at once, the two rows of a symmetric pair of column weights added before
// their one multiplication (and likewise along a row, in every mask: the terms of a base row's
// symmetric pair of weights). WIDE_SUMS: those column sums in 64 bits (fixed-point Gaussians: the
// row sums stay below 2^31, their weighted column sums do not); the divisor is then a power of two.
// COLUMN_LANES: a rank-1 or 1-D column mask whose column factor has non-negative weights with a sum
// of bytes that fits 16 bits (binomials, OpenCV's 8-bit Gaussians) takes its column sums first, two
// to a register in 16-bit lanes, and then the row factor along them. LANE_DOTS: a row factor of
// weights 0 to 255 runs on the lanes as they are, two taps two columns apart in one dot product of
// the two lanes with two byte weights (NVIDIA's dp2a where DP2A, else spelt out): 5 instructions
// for 9 taps where unpacking the lanes and the pairs' adds and multiplications took about 11.
// BYTE_DOTS: integer masks whose weights fit a signed byte (those up to 3x3, the compass operators'
// eight, masks up to 9x9 that are not rank 1, and 1-D rows) take each output's sum of a mask row as
// dot products of four bytes (words of the input row that hold the window's KW bytes) with the
// row's weights: on NVIDIA GPUs one dp4a instruction each (DP4A), where the bytes' unpacking and
// the adds they replace took several.
// GRADIENT_LANES: 3x3 gradient pairs combined as |Gx| + |Gy| (Sobel, Scharr, Prewitt) take two
// columns to a register in 16-bit lanes, fp16 numbers on NVIDIA GPUs (HALF_LANES; see lanes_* below).
// FLOAT_SUMS: the sums in float instead of int. Every value is an integer below 2^21 (the host
// proves it), so float holds it exactly in any order: the same results, but the adds run on the
// float units (twice the integer rate on recent NVIDIA GPUs), bytes become floats through their bit
// pattern (no conversion instruction), and the rounding division is one fma (see strip_combine).
// Defines: SW (4, 8 or 16), RPI, GX, GY (work-group), KW, KH, RX = KW/2, RY = KH/2, OP, BORDER (as
// in common/filter_common.h), ALIGNED (the width is a multiple of SW: whole-vector loads and
// stores), ROW_STRIDE, SAT_PACK and CVT_PACK (below). The host sends only images at least SW wide, wider than
// RX and taller than RY.
// OP 1: FLOAT_SUMS, HSLIDE, VSLIDE (then VSCALE, the column factor's constant), DIV_INV (float
// 1/d), BYTE_DOTS, DP4A, MANY_MASKS (more than two masks, their largest sum) and PAIRED_MASKS (the
// second half of the masks is minus the first: Sobel's compass), GRADIENT_LANES, HALF_LANES,
// GRAD_C0, GRAD_C1 (the column weights) and GRAD_C0_H2, GRAD_C1_H2 (the same as fp16 pairs), NMASK,
// COMBINE, NBASE, BASES (NBASE x KW), ROW_BASE and ROW_SCALE (NMASK x KH: base of each
// mask row, -1 for a zero row, and its multiple), DIV_MODE (0 none, 1 shift by DIV_SHIFT, 2 unsigned
// division: (2 v + DIV_BIAS) / DIV_2D - DIV_K, 3 multiply-shift: (v DIV_MUL + DIV_BIAS) >> DIV_SHIFT
// - DIV_K), CLAMP_LO, CLAMP_HI (the result can leave [0, 255]).
#include "common/real.h"
#include "common/filter_networks.h"
// (Included once, unconditionally: the engine inlines each header at its first #include, so a
// header behind an #if that is false there would be missing at a later #include.)
#include "common/byte_dot.h"

// Defaults: the host always sets every define (host/filter/strip.cpp); these make the file compile
// on its own, as StripLayout's default strip computing a 3x3 box mean (rounded, halves up) under
// reflect101.
#ifndef SW
#define SW 16
#endif
#ifndef RPI
#define RPI 4
#endif
#ifndef GX
#define GX 32
#endif
#ifndef GY
#define GY 2
#endif
#include "common/filter_mask_shape.h"
#ifndef OP
#define OP 1
#endif
#ifndef BORDER
#define BORDER 3
#endif
#ifndef ALIGNED
#define ALIGNED 0
#endif
#ifndef ROW_STRIDE
#define ROW_STRIDE 0
#endif
#ifndef SAT_PACK
#define SAT_PACK 0
#endif
#ifndef CVT_PACK
#define CVT_PACK 0
#endif
#ifndef FLOAT_SUMS
#define FLOAT_SUMS 0
#endif
#ifndef HSLIDE
#define HSLIDE 0
#endif
#ifndef VSLIDE
#define VSLIDE 0
#endif
#ifndef VSCALE
#define VSCALE 0
#endif
#ifndef DIV_INV
#define DIV_INV 0x1.c71c72p-4f
#endif
#ifndef BYTE_DOTS
#define BYTE_DOTS 0
#endif
#ifndef DP4A
#define DP4A 0
#endif
#ifndef MANY_MASKS
#define MANY_MASKS 0
#endif
#ifndef PAIRED_MASKS
#define PAIRED_MASKS 0
#endif
#ifndef GRADIENT_LANES
#define GRADIENT_LANES 0
#endif
#ifndef HALF_LANES
#define HALF_LANES 0
#endif
#ifndef GRAD_C0
#define GRAD_C0 0
#endif
#ifndef GRAD_C1
#define GRAD_C1 0
#endif
#ifndef GRAD_C0_H2
#define GRAD_C0_H2 0u
#endif
#ifndef GRAD_C1_H2
#define GRAD_C1_H2 0u
#endif
#ifndef COLUMN_LANES
#define COLUMN_LANES 0
#endif
#ifndef LANE_DOTS
#define LANE_DOTS 0
#endif
#ifndef WIDE_SUMS
#define WIDE_SUMS 0
#endif
#ifndef NMASK
#define NMASK 1
#endif
#ifndef COMBINE
#define COMBINE 0
#endif
#ifndef NBASE
#define NBASE 1
#endif
#ifndef BASES
#define BASES 1, 1, 1
#endif
#ifndef ROW_BASE
#define ROW_BASE 0, 0, 0
#endif
#ifndef ROW_SCALE
#define ROW_SCALE 1, 1, 1
#endif
#ifndef DIV_MODE
#define DIV_MODE 2
#endif
#ifndef DIV_SHIFT
#define DIV_SHIFT 0
#endif
#ifndef DIV_MUL
#define DIV_MUL 0u
#endif
#ifndef DIV_2D
#define DIV_2D 18u
#endif
#ifndef DIV_BIAS
#define DIV_BIAS 9u
#endif
#ifndef DIV_K
#define DIV_K 0
#endif
#ifndef CLAMP_LO
#define CLAMP_LO 0
#endif
#ifndef CLAMP_HI
#define CLAMP_HI 0
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
typedef CAT(uchar, SW) pix_t;

#define NC (SW + 2 * RX)   // input columns of a strip
#define NR (RPI + 2 * RY)  // input rows of a strip

#if SW == 16
#define PACK(a, o)                                                                                            \
    ((uchar16)(a[(o) + 0], a[(o) + 1], a[(o) + 2], a[(o) + 3], a[(o) + 4], a[(o) + 5], a[(o) + 6], a[(o) + 7], \
               a[(o) + 8], a[(o) + 9], a[(o) + 10], a[(o) + 11], a[(o) + 12], a[(o) + 13], a[(o) + 14], a[(o) + 15]))
#define UNPACK(p, a, o)                                                                                            \
    {                                                                                                              \
        a[(o) + 0] = (p).s0; a[(o) + 1] = (p).s1; a[(o) + 2] = (p).s2; a[(o) + 3] = (p).s3;                         \
        a[(o) + 4] = (p).s4; a[(o) + 5] = (p).s5; a[(o) + 6] = (p).s6; a[(o) + 7] = (p).s7;                         \
        a[(o) + 8] = (p).s8; a[(o) + 9] = (p).s9; a[(o) + 10] = (p).sa; a[(o) + 11] = (p).sb;                       \
        a[(o) + 12] = (p).sc; a[(o) + 13] = (p).sd; a[(o) + 14] = (p).se; a[(o) + 15] = (p).sf;                     \
    }
#elif SW == 8
#define PACK(a, o) ((uchar8)(a[(o) + 0], a[(o) + 1], a[(o) + 2], a[(o) + 3], a[(o) + 4], a[(o) + 5], a[(o) + 6], a[(o) + 7]))
#define UNPACK(p, a, o)                                                                                            \
    {                                                                                                              \
        a[(o) + 0] = (p).s0; a[(o) + 1] = (p).s1; a[(o) + 2] = (p).s2; a[(o) + 3] = (p).s3;                         \
        a[(o) + 4] = (p).s4; a[(o) + 5] = (p).s5; a[(o) + 6] = (p).s6; a[(o) + 7] = (p).s7;                         \
    }
#elif SW == 4
#define PACK(a, o) ((uchar4)(a[(o) + 0], a[(o) + 1], a[(o) + 2], a[(o) + 3]))
#define UNPACK(p, a, o) { a[(o) + 0] = (p).s0; a[(o) + 1] = (p).s1; a[(o) + 2] = (p).s2; a[(o) + 3] = (p).s3; }
#else
#error "SW must be 4, 8 or 16"
#endif

#if ALIGNED
#define LOAD_ROW(p) (*(__global const pix_t*)(p))
#define STORE_ROW(v, p) (*(__global pix_t*)(p) = (v))
#else
#define LOAD_ROW(p) CAT(vload, SW)(0, (p))
#define STORE_ROW(v, p) CAT(vstore, SW)((v), 0, (p))
#endif

// Byte i (a constant) of a strip row, from its 32-bit words (little-endian devices, as OpenCL GPUs
// and CPUs are): one shift and mask, taken where it is used (the medians go column by column, so
// few unpacked values are alive at a time).
// WORD(p, q): 32-bit word q (a constant) of strip row p.
#if SW == 16
#define WORD_(u, q) ((q) == 0 ? (u).s0 : (q) == 1 ? (u).s1 : (q) == 2 ? (u).s2 : (u).s3)
#define WORD(p, q) WORD_(as_uint4(p), (q))
#elif SW == 8
#define WORD(p, q) ((q) == 0 ? as_uint2(p).s0 : as_uint2(p).s1)
#else
#define WORD(p, q) as_uint(p)
#endif
#define LANE(p, i) ((int)((WORD(p, (i) >> 2) >> (8 * ((i) & 3))) & 0xffu))
// Input column c (0 .. NC-1, from x0 - RX) of strip row j, as int.
// Side byte k (0 .. RX-1) of strip row j, left of x0 or right of the strip: the sides are packed
// four bytes to a word (RX <= 4), so that a 9-wide window's eight side bytes of each row take two
// registers, not eight.
#define SIDE_L(j, k) ((int)((sideL[j] >> (8 * (4 - RX + (k)))) & 0xffu))
#define SIDE_R(j, k) ((int)((sideR[j] >> (8 * (k))) & 0xffu))
#define PIX(j, c) ((c) < RX ? SIDE_L(j, (c)) : (c) < RX + SW ? LANE(rows[j], (c) - RX) : SIDE_R(j, (c) - RX - SW))

// v[0 .. NC-1] = input row j of the strip as int, from column x0 - RX: side bytes and vector lanes.
#define ROW(j, v)                                                          \
    {                                                                      \
        UNPACK(rows[j], v, RX);                                            \
        for (int k_ = 0; k_ < RX; ++k_) {                                  \
            v[k_] = SIDE_L(j, k_);                                         \
            v[RX + SW + k_] = SIDE_R(j, k_);                               \
        }                                                                  \
    }

// SAT_PACK: outputs stay int until they are stored, and the store saturates them to [0, 255] as
// it packs them four to a word: on NVIDIA GPUs (CVT_PACK) two cvt.pack instructions per four
// bytes, where each byte's clamp and its insertion into the word took one or two each. Every
// output that needs no clamp is in [0, 255] already (the host proves it), so the bytes are the same.
#if SAT_PACK
typedef int out_t;
inline uint strip_pack4(const int b0, const int b1, const int b2, const int b3) {
#if CVT_PACK
    // cvt.pack.sat.u8.s32.b32 d, a, b, c: d = c << 16 | sat(a) << 8 | sat(b).
    uint high, word;
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, 0;" : "=r"(high) : "r"(b3), "r"(b2));
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(word) : "r"(b1), "r"(b0), "r"(high));
    return word;
#else
    return (uint)clamp(b0, 0, 255) | (uint)clamp(b1, 0, 255) << 8 | (uint)clamp(b2, 0, 255) << 16 | (uint)clamp(b3, 0, 255) << 24;
#endif
}
#define PACK4(o, q) strip_pack4(o[4 * (q)], o[4 * (q) + 1], o[4 * (q) + 2], o[4 * (q) + 3])
#if SW == 16
#define PACK_OUT(o) as_uchar16((uint4)(PACK4(o, 0), PACK4(o, 1), PACK4(o, 2), PACK4(o, 3)))
#elif SW == 8
#define PACK_OUT(o) as_uchar8((uint2)(PACK4(o, 0), PACK4(o, 1)))
#else
#define PACK_OUT(o) as_uchar4(PACK4(o, 0))
#endif
#define OUT_BYTE(v) ((uchar)clamp((v), 0, 255))
#else
typedef uchar out_t;
#define PACK_OUT(o) PACK(o, 0)
#define OUT_BYTE(v) (v)
#endif

// Stores the SW outputs o of output row r: one vector, or byte by byte in the last strip of a row
// that is not whole (uses OUT_ROW, w, x0 and wholeStrip).
#define STORE_OUT(o, r)                                                    \
    {                                                                      \
        __global uchar* d_ = OUT_ROW(r);                                   \
        if (wholeStrip) {                                                  \
            STORE_ROW(PACK_OUT(o), d_);                                    \
        } else {                                                           \
            for (int i_ = 0; i_ < SW; ++i_)                                \
                if (x0 + i_ < w) d_[i_] = OUT_BYTE(o[i_]);                 \
        }                                                                  \
    }

#if OP == 1 && FLOAT_SUMS
typedef float acc_t;
// A byte (0..255) as a float, exactly, without a conversion instruction: 2^23 + b has b in its low
// mantissa bits.
#define ACC(b) (as_float(0x4B000000u | (uint)(b)) - 8388608.0f)
// Adding it to a float integer r, |r| < 2^22, puts r into the low bits of the sum's pattern.
#define MAGIC 12582912.0f
#define ROW_ACC(j, v)                                                      \
    {                                                                      \
        for (int c_ = 0; c_ < NC; ++c_) v[c_] = ACC(PIX(j, c_));           \
    }
#else
typedef int acc_t;
#define ROW_ACC(j, v) ROW(j, v)
#endif
// The type of a mask's whole sum.
#if OP == 1 && WIDE_SUMS
typedef long sum_t;
#else
typedef acc_t sum_t;
#endif
#define COLUMN_SUMS (OP == 1 && NMASK == 1 && NBASE == 1 && KH >= 5 && !VSLIDE)

// OpenCV's border rules (common/filter_common.h) without a loop: strip_low for a position p at most
// max(RX, RY) before 0, strip_high for any p >= 0 (positions further than that past n - 1 are read
// by no output, in the last strips, and land anywhere inside). The image is wider and taller than
// the radius, so one reflection or wrap suffices. -1: outside under BORDER_CONSTANT.
inline int strip_low(const int p, const int n) {
#if BORDER == 0
    return p < 0 ? -1 : p;
#elif BORDER == 1
    return max(p, 0);
#elif BORDER == 2
    return p < 0 ? -p - 1 : p;
#elif BORDER == 3
    return abs(p);
#else
    return p < 0 ? p + n : p;
#endif
}
inline int strip_high(const int p, const int n) {
#if BORDER == 0
    return p >= n ? -1 : p;
#elif BORDER == 1
    return min(p, n - 1);
#elif BORDER == 2
    return p >= n ? max(2 * n - 1 - p, 0) : p;
#elif BORDER == 3
    return p >= n ? max(2 * n - 2 - p, 0) : p;
#else
    return p >= n ? min(p - n, n - 1) : p;
#endif
}
inline int strip_index(const int p, const int n) { return p < 0 ? strip_low(p, n) : strip_high(p, n); }

#if OP == 1
#if !FLOAT_SUMS
// The divisor's rounding (halves up) of a Single mask's sum.
inline int strip_divide(const sum_t v) {
#if DIV_MODE == 0
    return (int)v;
#elif DIV_MODE == 1
    return (int)((v + ((sum_t)1 << (DIV_SHIFT - 1))) >> DIV_SHIFT);  // arithmetic shift: floor, also below zero
#elif DIV_MODE == 2
    // floor((2v + d) / 2d) with 2dK added to make the dividend non-negative: an unsigned division
    // by a constant (a multiplication); the host proved 0 <= 2v + DIV_BIAS < 2^32.
    return (int)(((uint)v * 2u + (uint)DIV_BIAS) / (uint)DIV_2D) - DIV_K;
#else
    // The same quotient as one multiply-add and a shift (multiplyShift in host/filter/strip.cpp
    // proves it for every sum the mask can give).
    return (int)(((uint)v * DIV_MUL + (uint)DIV_BIAS) >> DIV_SHIFT) - DIV_K;
#endif
}
#endif

// round(sqrt(n)) for 0 <= n up to 255.5^2, and 256 above, for an output saturated to 255 (the
// strip path's outputs are bytes). Exact with any float sqrt within OpenCL's 3 ulp: for an integer
// n below 65282, sqrt(n) lies at least 0.25 / 512 from a half ((k + 1/2)^2 is no integer), where 3
// ulp of a root below 256 are 3 * 2^-16. No conversion instruction (a quarter-rate unit on NVIDIA
// GPUs): the integer becomes a float through the bit pattern of 2^23 + n, and the root an integer
// by adding 2^23, which rounds it to the nearest.
inline int strip_round_sqrt(const int n) {
    const float f = as_float(0x4B000000u | (uint)min(n, 65281)) - 8388608.0f;
    return as_int(sqrt(f) + 8388608.0f) - 0x4B000000;
}

#if FLOAT_SUMS
// The output byte of integer-valued float sums. round(v / d), halves up, is rint((v + 1/4) / d):
// (v + 1/4) / d lies at least 1/(4d) from a half, and fma(v + 1/4, fl(1/d), MAGIC) errs by less
// than 2^21 / d * 2^-24 = 1/(8d) before its one rounding (to an integer: MAGIC's ulp is 1).
inline uchar strip_combine(const float g0, const float g1) {
#if COMBINE == 0
#if DIV_MODE == 0
    float y = g0 + MAGIC;
#else
    float y = fma(g0 + 0.25f, DIV_INV, MAGIC);
#endif
#elif COMBINE == 1
    float y = (fabs(g0) + fabs(g1)) + MAGIC;
#elif COMBINE == 4
    float y = g0 + MAGIC;
#elif COMBINE == 5
    float y = g1 + MAGIC;
#elif COMBINE == 6
    float y = fmax(g0, g1) + MAGIC;
#else
#error "FLOAT_SUMS: this combine rule stays in int"
#endif
#if CLAMP_LO
    y = fmax(y, MAGIC);
#endif
#if CLAMP_HI
    y = fmin(y, MAGIC + 255.0f);
#endif
    return (uchar)as_uint(y);
}
#else
inline out_t strip_combine(const sum_t g0, const int g1) {
#if COMBINE == 0
    int v = strip_divide(g0);
#elif COMBINE == 1
    int v = (int)abs((int)g0) + (int)abs(g1);
#elif COMBINE == 2
    int v = strip_round_sqrt((int)g0 * (int)g0 + g1 * g1);
#elif COMBINE == 4
    int v = (int)g0;
#elif COMBINE == 5
    int v = g1;
#elif COMBINE == 6
    int v = max((int)g0, g1);
#endif
#if SAT_PACK
    return v;  // saturated by the store
#else
#if CLAMP_LO
    v = max(v, 0);
#endif
#if CLAMP_HI
    v = min(v, 255);
#endif
    return (uchar)v;
#endif
}
#endif
#endif

#if BYTE_DOTS
#if OP != 1 || KW < 3 || FLOAT_SUMS || HSLIDE || VSLIDE || COLUMN_LANES || WIDE_SUMS || COLUMN_SUMS
#error "BYTE_DOTS: integer masks at least 3 wide, summed row by row"
#endif
// Output i's window, strip bytes i - RX .. i + RX, starts at byte DOT_OFF(i) of word DOT_Q(i) (word
// -1 is the left side word). Where the window fits NCH words from there (DOT_OFF(i) <= 4 NCH - KW)
// those words are its chunks as they are, the weights placed from byte DOT_AT(i) = DOT_OFF(i);
// else each chunk is a funnel shift of two words, from the window's first byte (DOT_AT(i) = 0).
// 3 wide: half the outputs take a word as it is; 5 and 9 wide: all of them.
#define NCH ((KW + 3) / 4)
#define DOT_Q(i) ((((i) - RX + 4) >> 2) - 1)
#define DOT_OFF(i) (((i) - RX + 4) & 3)
#define DOT_AT(i) (DOT_OFF(i) <= 4 * NCH - KW ? DOT_OFF(i) : 0)
// s += mask row bi times sc against the window's chunks w[0 .. NCH-1] (from byte `at`): byte k of the
// row's weights at byte at + k of the chunks, one dot product per chunk with a weight. The middle
// chunk first: where its weights are the same for the four outputs of a word (a box row), their
// first product is one and the same.
#define ROW_DOTS(s, bi, sc, w, at)                                                                   \
    {                                                                                                \
        _Pragma("unroll") for (int cc_ = 0; cc_ < NCH; ++cc_) {                                      \
            const int c_ = (cc_ + NCH / 2) % NCH;                                                    \
            uint wt_ = 0;                                                                            \
            _Pragma("unroll") for (int b_ = 0; b_ < 4; ++b_) {                                       \
                const int k_ = 4 * c_ + b_ - (at);                                                   \
                if (k_ >= 0 && k_ < KW) wt_ |= ((uint)((sc) * bases[(bi) * KW + k_]) & 0xffu) << (8 * b_); \
            }                                                                                        \
            if (wt_ != 0) s = byte_dot_signed((w)[c_], wt_, s);                                            \
        }                                                                                            \
    }
#endif
#if MANY_MASKS && !(BYTE_DOTS && COMBINE == 6)
#error "MANY_MASKS: the largest of more than two masks' sums, by byte dot products"
#endif

#if GRADIENT_LANES
#if OP != 1 || NMASK != 2 || COMBINE != 1 || KW != 3 || KH != 3 || FLOAT_SUMS || BYTE_DOTS
#error "GRADIENT_LANES: a 3x3 gradient pair combined as |Gx| + |Gy|"
#endif
// A gradient pair c (x) [-1 0 1] and its transpose, c = (GRAD_C0, GRAD_C1, GRAD_C0) (Sobel,
// Scharr, Prewitt), two columns to a 32-bit register in 16-bit lanes. The bytes of even columns
// go to one register's lanes, those of odd columns to another's, and every difference and weighted
// sum serves two outputs. HALF_LANES (NVIDIA): the lanes are fp16
// numbers, a byte b the subnormal b 2^-24, whose bit pattern is b itself; below 2^-13 (2048 2^-24)
// the fp16 spacing is 2^-24, so every integer of magnitude up to 2048 is exact and its pattern is
// its sign and magnitude. The arithmetic runs on the fp16x2 units, which add, multiply and take
// absolute values of two lanes per instruction with no carry between them (integer lanes would
// need biases and have no absolute value). Exact: a difference of bytes, a sum of two, and c0 times
// that sum stay within 2040 (the host takes c0 <= 4); the weighted sum c0 t + c1 d is one fma, one
// rounding, so it is exact when its magnitude is up to 2048 and stays at 2048 or more (an output of
// 255 either way) when not; |Gx| + |Gy| likewise. Elsewhere the lanes are 16-bit two's complement
// integers, the same arithmetic spelt out lane by lane (how the tests run it on PoCL); a lane of
// 0 .. 255 has the same pattern in both, so the bytes in and out are the same.
// lanes_shift(a, b): the high lane of a and the low lane of b, the columns between two registers.
// lanes_even(u), lanes_odd(u): bytes 0 and 2, or 1 and 3, of a word, in the low bytes of the lanes.
// lanes_interleave(a, b): the output word of columns 4q .. 4q + 3 from the lanes of columns
// (4q, 4q + 2) and (4q + 1, 4q + 3). On NVIDIA one byte permute (prmt) each (the compiler made
// the shift of two lane registers three instructions).
inline uint lanes_even(const uint u) { return u & 0x00ff00ffu; }
#if HALF_LANES
inline uint lanes_shift(const uint a, const uint b) {
    uint r;
    asm("prmt.b32 %0, %1, %2, 0x5432;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
inline uint lanes_odd(const uint u) {
    uint r;
    asm("prmt.b32 %0, %1, %2, 0x4341;" : "=r"(r) : "r"(u), "r"(0u));
    return r;
}
inline uint lanes_interleave(const uint a, const uint b) {
    uint r;
    asm("prmt.b32 %0, %1, %2, 0x6240;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
inline uint lanes_sub(const uint a, const uint b) {
    uint r;
    asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
inline uint lanes_add(const uint a, const uint b) {
    uint r;
    asm("add.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
// c0 t + c1 d: one multiply (none when c0 is 1) and one fma.
inline uint lanes_weigh(const uint t, const uint d) {
    uint u = t, r;
#if GRAD_C0 != 1
    asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(u) : "r"(t), "r"(GRAD_C0_H2));
#endif
    asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(d), "r"(GRAD_C1_H2), "r"(u));
    return r;
}
// min(|gx| + |gy|, 255), two lanes (255 2^-24 has the pattern 255).
inline uint lanes_l1_byte(const uint gx, const uint gy) {
    uint ax, ay, s, r;
    asm("abs.f16x2 %0, %1;" : "=r"(ax) : "r"(gx));
    asm("abs.f16x2 %0, %1;" : "=r"(ay) : "r"(gy));
    asm("add.rn.f16x2 %0, %1, %2;" : "=r"(s) : "r"(ax), "r"(ay));
    asm("min.f16x2 %0, %1, %2;" : "=r"(r) : "r"(s), "r"(0x00ff00ffu));
    return r;
}
#else
inline uint lanes_shift(const uint a, const uint b) { return (a >> 16) | (b << 16); }
inline uint lanes_odd(const uint u) { return (u >> 8) & 0x00ff00ffu; }
inline uint lanes_interleave(const uint a, const uint b) { return (a & 0xffu) | (b & 0xffu) << 8 | (a & 0xff0000u) | (b & 0xff0000u) << 8; }
#define LANE_LO(a) ((int)(short)((a) & 0xffffu))
#define LANE_HI(a) ((int)(short)((a) >> 16))
#define LANES(lo, hi) (((uint)(lo) & 0xffffu) | ((uint)(hi) << 16))
inline uint lanes_sub(const uint a, const uint b) { return LANES(LANE_LO(a) - LANE_LO(b), LANE_HI(a) - LANE_HI(b)); }
inline uint lanes_add(const uint a, const uint b) { return LANES(LANE_LO(a) + LANE_LO(b), LANE_HI(a) + LANE_HI(b)); }
inline uint lanes_weigh(const uint t, const uint d) {
    return LANES(GRAD_C0 * LANE_LO(t) + GRAD_C1 * LANE_LO(d), GRAD_C0 * LANE_HI(t) + GRAD_C1 * LANE_HI(d));
}
inline uint lanes_l1_byte(const uint gx, const uint gy) {
    return LANES(min(abs(LANE_LO(gx)) + abs(LANE_LO(gy)), 255u), min(abs(LANE_HI(gx)) + abs(LANE_HI(gy)), 255u));
}
#endif
#endif

#if OP == 1
// s (of type T) = the sum over k < N of W(k) times TERM(k), for the compile-time weights W (a
// macro, as TERM): zero weights vanish, unit ones cost no multiplication, and the terms of a
// symmetric pair (equal weights at k and N-1-k) are added, in their own type, before their one
// multiplication. Used along a base row (the row factor) and down the column weights.
#define MIRRORED_SUM(s, T, N, W, TERM)                                                     \
    {                                                                                      \
        bool first_ = true;                                                                \
        s = 0;                                                                             \
        _Pragma("unroll") for (int k_ = 0; k_ < (N); ++k_) {                               \
            const int c_ = W(k_), m_ = (N) - 1 - k_; /* m_: the mirror term */             \
            const bool pair_ = m_ != k_ && W(m_) == c_;                                    \
            if (c_ == 0 || (pair_ && m_ < k_)) continue; /* zero, or added with its mirror */ \
            const T u_ = pair_ ? (T)(TERM(k_) + TERM(m_)) : (T)TERM(k_);                   \
            const T t_ = c_ == 1 ? u_ : c_ == -1 ? -u_ : (T)c_ * u_;                       \
            s = first_ ? t_ : s + t_;                                                      \
            first_ = false;                                                                \
        }                                                                                  \
    }
#define COLUMN_WEIGHT(k) rowScale[k]
#endif

__kernel __attribute__((reqd_work_group_size(GX, GY, 1)))
void filter_strip(__global const uchar* src, __global uchar* dst, const int w, const int h, const int outsideValue) {
    const int x0 = (int)get_global_id(0) * SW, y0 = (int)get_global_id(1) * RPI;
    if (x0 >= w || y0 >= h) return;
    // ROW_STRIDE: 0, or the image width compiled in, which makes each row's loads and stores
    // immediate offsets of one pointer (fewer address instructions). OUT_ROW(r): output row r's
    // byte x0.
#if ROW_STRIDE
    __global uchar* const out = dst + ((size_t)y0 * ROW_STRIDE + (size_t)x0);
#define OUT_ROW(r) (out + (size_t)(r) * ROW_STRIDE)
#else
#define OUT_ROW(r) (dst + ((uint)(y0 + (r)) * (uint)w + (uint)x0))
#endif

    // The strip's input: NR rows of SW bytes from x0, and the 4 bytes on either side of each, of
    // which RX are used: sideL[j] holds x0 - 4 .. x0 - 1 (byte 4 - RX + k is x0 - RX + k), sideR[j]
    // x0 + SW .. x0 + SW + 3.
    pix_t rows[NR];
    uint sideL[NR], sideR[NR];
#if !ALIGNED
    if (x0 + SW > w) {
        // The last strip of a row that is not whole: every byte through the border rule.
        int xs[NC];
#pragma unroll
        for (int c = 0; c < NC; ++c) xs[c] = strip_index(x0 - RX + c, w);
#pragma unroll
        for (int j = 0; j < NR; ++j) {
            const int yi = strip_index(y0 - RY + j, h);
            uchar t[NC];
#pragma unroll
            for (int c = 0; c < NC; ++c) t[c] = (yi < 0 || xs[c] < 0) ? (uchar)outsideValue : src[(uint)yi * (uint)w + (uint)xs[c]];
            rows[j] = PACK(t, RX);
            sideL[j] = sideR[j] = 0;
#pragma unroll
            for (int k = 0; k < RX; ++k) {
                sideL[j] |= (uint)t[k] << (8 * (4 - RX + k));
                sideR[j] |= (uint)t[RX + SW + k] << (8 * k);
            }
        }
    } else
#endif
    {
        // LOAD_STRIP(ROW_AT): the NR rows, ROW_AT(j) pointing at row j's byte x0, and their sides.
        // The sides without a border: whole words beside the strip. (Rows are 4-byte aligned here,
        // and the host leaves 4 bytes of slack after a plane for the last strip's right word; the
        // first strip reads its left word inside the row and replaces it below.) Else the side bytes
        // through the border rule: left of x0 only the low edge can be passed, right of the strip
        // only the high one. Under BORDER_CONSTANT a column outside is replaced.
        const bool sidesInside = ALIGNED && x0 > 0 && x0 + SW < w;
        const int left = x0 > 0 ? -4 : 0;
#if ALIGNED
#define LOAD_SIDE_WORDS(j, p)                                   \
    {                                                           \
        sideL[j] = *(__global const uint*)((p) + left);         \
        sideR[j] = *(__global const uint*)((p) + SW);           \
    }
#else
#define LOAD_SIDE_WORDS(j, p)
#endif
#define LOAD_STRIP(ROW_AT)                                                                                                      \
    {                                                                                                                           \
        _Pragma("unroll") for (int j = 0; j < NR; ++j) {                                                                        \
            rows[j] = LOAD_ROW(ROW_AT(j));                                                                                      \
            LOAD_SIDE_WORDS(j, ROW_AT(j));                                                                                      \
        }                                                                                                                       \
        if (!sidesInside) {                                                                                                     \
            _Pragma("unroll") for (int j = 0; j < NR; ++j) {                                                                    \
                __global const uchar* row = ROW_AT(j) - x0;                                                                     \
                sideL[j] = sideR[j] = 0;                                                                                        \
                _Pragma("unroll") for (int k = 0; k < RX; ++k) {                                                                \
                    const int l = strip_low(x0 - RX + k, w), r = strip_high(x0 + SW + k, w);                                    \
                    const uint a = l < 0 ? (uint)outsideValue : row[max(l, 0)], b = r < 0 ? (uint)outsideValue : row[max(r, 0)]; \
                    sideL[j] |= a << (8 * (4 - RX + k));                                                                        \
                    sideR[j] |= b << (8 * k);                                                                                   \
                }                                                                                                               \
            }                                                                                                                   \
        }                                                                                                                       \
    }
        // Inside the image the rows follow one another; a strip at the top or bottom edge takes them
        // through the border rule (rows above the strip's first can pass only the top edge, the
        // others only the bottom one). A warp's work-items share y0 when the work-group is a warp
        // wide, so this branch does not diverge.
        if (y0 >= RY && y0 + RPI + RY <= h) {
#if ROW_STRIDE
            __global const uchar* const first = src + ((size_t)(y0 - RY) * ROW_STRIDE + (size_t)x0);
#define INSIDE_ROW(j) (first + (size_t)(j) * ROW_STRIDE)
#else
            // 32-bit offsets (the host keeps a plane below 2^32 bytes): 64-bit row pointers take
            // more registers.
            const uint first = (uint)(y0 - RY) * (uint)w + (uint)x0;
#define INSIDE_ROW(j) (src + (first + (uint)(j) * (uint)w))
#endif
            LOAD_STRIP(INSIDE_ROW);
#undef INSIDE_ROW
        } else {
            int rowIndex[NR];
#pragma unroll
            for (int j = 0; j < NR; ++j) {
                const int y = y0 - RY + j;
                rowIndex[j] = j < RY ? strip_low(y, h) : strip_high(y, h);
            }
#define EDGE_ROW(j) (src + ((uint)max(rowIndex[j], 0) * (uint)w + (uint)x0))
            LOAD_STRIP(EDGE_ROW);
#undef EDGE_ROW
#if BORDER == 0
            // Rows outside the image: the constant, sides included.
#pragma unroll
            for (int j = 0; j < NR; ++j)
                if (rowIndex[j] < 0) {
                    rows[j] = (pix_t)((uchar)outsideValue);
                    sideL[j] = sideR[j] = (uint)outsideValue * 0x01010101u;
                }
#endif
        }
#undef LOAD_STRIP
#undef LOAD_SIDE_WORDS
    }
    // With ALIGNED every strip is whole and a store needs no branch. The two-mask kernels (gradient
    // pairs) keep the branch all the same: NVIDIA's compiler schedules them better with it (the
    // one-mask kernels run faster without it).
#if ALIGNED && !(OP == 1 && NMASK == 2)
    const bool wholeStrip = true;
#else
    const bool wholeStrip = x0 + SW <= w;
#endif

#if OP == 1
#if WIDE_SUMS && !COLUMN_SUMS
#error "WIDE_SUMS: only the column sums of rank-1 masks are 64-bit"
#endif
    const int bases[NBASE * KW] = {BASES};
    const int rowBase[NMASK * KH] = {ROW_BASE};
    const int rowScale[NMASK * KH] = {ROW_SCALE};
#if GRADIENT_LANES
    // Lanes of input row j (lanes_* above): ev[j][q] holds columns 4q and 4q + 2 (q = 0 .. SW/4 - 1,
    // the strip's words; q = SW/4 the right side word's first byte), od[j][q + 1] columns 4q + 1 and
    // 4q + 3 (od[j][0]: the left side word's last byte in its high lane). Outputs A of word q are
    // its columns 4q and 4q + 2, outputs B its columns 4q + 1 and 4q + 3; their left and right
    // neighbours are od[q] and od[q + 1] shifted by a lane, od[q + 1], ev[q] and ev[q] shifted.
    // dA, dB: each row's differences across the centre, right minus left (Gx's terms).
#define NQ (SW / 4)
    uint ev[NR][NQ + 1], od[NR][NQ + 1], dA[NR][NQ], dB[NR][NQ];
#pragma unroll
    for (int j = 0; j < NR; ++j) {
        od[j][0] = lanes_odd(sideL[j]);
#pragma unroll
        for (int q = 0; q < NQ; ++q) {
            const uint u = WORD(rows[j], q);
            ev[j][q] = lanes_even(u);
            od[j][q + 1] = lanes_odd(u);
        }
        ev[j][NQ] = lanes_even(sideR[j]);
#pragma unroll
        for (int q = 0; q < NQ; ++q) {
            dA[j][q] = lanes_sub(od[j][q + 1], lanes_shift(od[j][q], od[j][q + 1]));
            dB[j][q] = lanes_sub(lanes_shift(ev[j][q], ev[j][q + 1]), ev[j][q]);
        }
        const int r = j - 2;  // the output row input row j completes
        if (r >= 0 && y0 + r < h) {
            // Gy's terms: each column's difference down the window (row r + 2 minus row r).
            uint vE[NQ + 1], vO[NQ + 1], word[NQ];
#pragma unroll
            for (int q = 0; q <= NQ; ++q) {
                vE[q] = lanes_sub(ev[j][q], ev[r][q]);
                vO[q] = lanes_sub(od[j][q], od[r][q]);
            }
#pragma unroll
            for (int q = 0; q < NQ; ++q) {
                const uint gxA = lanes_weigh(lanes_add(dA[r][q], dA[j][q]), dA[r + 1][q]);
                const uint gxB = lanes_weigh(lanes_add(dB[r][q], dB[j][q]), dB[r + 1][q]);
                const uint gyA = lanes_weigh(lanes_add(lanes_shift(vO[q], vO[q + 1]), vO[q + 1]), vE[q]);
                const uint gyB = lanes_weigh(lanes_add(vE[q], lanes_shift(vE[q], vE[q + 1])), vO[q + 1]);
                word[q] = lanes_interleave(lanes_l1_byte(gxA, gyA), lanes_l1_byte(gxB, gyB));
            }
            __global uchar* d = OUT_ROW(r);
            if (wholeStrip) {
#if SW == 16
                STORE_ROW(as_uchar16((uint4)(word[0], word[1], word[2], word[3])), d);
#elif SW == 8
                STORE_ROW(as_uchar8((uint2)(word[0], word[1])), d);
#else
                STORE_ROW(as_uchar4(word[0]), d);
#endif
            } else {
#pragma unroll
                for (int i = 0; i < SW; ++i)
                    if (x0 + i < w) d[i] = (uchar)(word[i >> 2] >> (8 * (i & 3)));
            }
        }
    }
#undef NQ
#elif COLUMN_LANES
#if !(COLUMN_SUMS || VSLIDE) || NMASK != 1 || NBASE != 1 || FLOAT_SUMS || WIDE_SUMS
#error "COLUMN_LANES: rank-1 masks whose column factor has small non-negative integers only"
#endif
#if LANE_DOTS && (HSLIDE || VSLIDE || KW < 3)
#error "LANE_DOTS: a row factor of byte weights, neither sliding"
#endif
    // A column factor of non-negative weights whose sum of bytes fits 16 bits: the column sums come
    // first, two to a register in 16-bit lanes (even[j][q] holds bytes 0 and 2 of word q of row j,
    // odd[j][q] bytes 1 and 3), so that each multiply-add serves two columns; then the row factor
    // runs along each output row's column sums (1-D columns: the sums themselves). Words 0 ..
    // SW/4 - 1 are the strip's, word SW/4 the left side's, SW/4 + 1 the right side's. A constant
    // column factor (VSLIDE) slides: each row's sums are the row above's, plus the row that enters
    // the window, minus the one that leaves it (no lane goes below zero at the end, so the borrows
    // in between cancel), scaled after the row factor.
#define NW (SW / 4 + (RX > 0 ? 2 : 0))
    uint even[NR][NW], odd[NR][NW];
#if VSLIDE
    uint colE[NW], colO[NW];  // the running (unscaled) column sums of the current output row
#endif
#pragma unroll
    for (int j = 0; j < NR; ++j) {
#pragma unroll
        for (int q = 0; q < NW; ++q) {
            const uint u = q < SW / 4 ? WORD(rows[j], q) : q == SW / 4 ? sideL[j] : sideR[j];
            even[j][q] = u & 0x00ff00ffu;
            odd[j][q] = (u >> 8) & 0x00ff00ffu;
        }
        const int r = j - (KH - 1);
        if (r >= 0 && y0 + r < h) {
#if LANE_DOTS
            // E[s], O[s]: the lanes of word s - 1 (s = 0: the left side word), the column sums of
            // pixels x0 + 4s - 4 and + 4s - 2, and of x0 + 4s - 3 and + 4s - 1.
            uint E[SW / 4 + 2], O[SW / 4 + 2];
#else
            // cs[4 + p]: the column sum of pixel x0 + p, for p from -4 to SW + 3.
            acc_t cs[SW + 8];
#endif
#pragma unroll
            for (int q = 0; q < NW; ++q) {
                uint se = 0, so = 0;
#if VSLIDE
                if (r == 0) {
#pragma unroll
                    for (int dy = 0; dy < KH; ++dy) {
                        se += even[dy][q];
                        so += odd[dy][q];
                    }
                } else {
                    se = colE[q] + even[j][q] - even[j - KH][q];
                    so = colO[q] + odd[j][q] - odd[j - KH][q];
                }
                colE[q] = se;
                colO[q] = so;
#else
#define EVEN_TERM(k) even[r + (k)][q]
#define ODD_TERM(k) odd[r + (k)][q]
                MIRRORED_SUM(se, uint, KH, COLUMN_WEIGHT, EVEN_TERM);
                MIRRORED_SUM(so, uint, KH, COLUMN_WEIGHT, ODD_TERM);
#undef EVEN_TERM
#undef ODD_TERM
#endif
#if LANE_DOTS
                const int slot = q < SW / 4 ? q + 1 : q == SW / 4 ? 0 : SW / 4 + 1;
                E[slot] = se;
                O[slot] = so;
#else
                const int at = q < SW / 4 ? 4 + 4 * q : q == SW / 4 ? 0 : 4 + SW;
                cs[at] = (acc_t)(se & 0xffffu);
                cs[at + 1] = (acc_t)(so & 0xffffu);
                cs[at + 2] = (acc_t)(se >> 16);
                cs[at + 3] = (acc_t)(so >> 16);
#endif
            }
            out_t o[SW];
#if LANE_DOTS
            // The lanes across two words: ES[s] holds the column sums of pixels x0 + 4s - 2 and
            // x0 + 4s, OS[s] of x0 + 4s - 1 and x0 + 4s + 1. The lanes of pixels t and t + 2 are
            // then one register: LANE_PAIR(t), for t from -4 to SW - 1.
            uint ES[SW / 4 + 1], OS[SW / 4 + 1];
#pragma unroll
            for (int s = 0; s <= SW / 4; ++s) {
                ES[s] = (E[s] >> 16) | (E[s + 1] << 16);  // one funnel shift on NVIDIA GPUs
                OS[s] = (O[s] >> 16) | (O[s + 1] << 16);
            }
#define LANE_PAIR(t) (((t) + 4) % 4 == 0 ? E[((t) + 4) / 4] : ((t) + 4) % 4 == 1 ? O[((t) + 4) / 4] : ((t) + 4) % 4 == 2 ? ES[((t) + 4) / 4] : OS[((t) + 4) / 4])
// The register holding pixel t's lane (E or O), and the byte of the weight word that meets it.
#define LANE_OF(t) (((t) + 4) % 2 == 0 ? E[((t) + 4) / 4] : O[((t) + 4) / 4])
#define LANE_BYTE(t) (((t) + 4) % 4 >= 2 ? 8 : 0)
#pragma unroll
            for (int i = 0; i < SW; ++i) {
                // Taps k and k + 2 (k % 4 of 0 or 1) together, a last tap alone.
                uint s = 0;
#pragma unroll
                for (int k = 0; k < KW; ++k) {
                    const int t = i - RX + k;
                    if (k % 4 >= 2 || (bases[k] == 0 && (k + 2 >= KW || bases[k + 2] == 0))) continue;
                    if (k + 2 < KW)
                        s = lane_dot_unsigned(LANE_PAIR(t), (uint)bases[k] | (uint)bases[k + 2] << 8, s);
                    else
                        s = lane_dot_unsigned(LANE_OF(t), (uint)bases[k] << LANE_BYTE(t), s);
                }
                o[i] = strip_combine((acc_t)s, 0);
            }
#undef LANE_PAIR
#undef LANE_OF
#undef LANE_BYTE
#else
            acc_t s;
#pragma unroll
            for (int i = 0; i < SW; ++i) {
#if HSLIDE
                if (i > 0)
                    s = s + cs[4 - RX + i + KW - 1] - cs[4 - RX + i - 1];
                else
#endif
#define BASE_WEIGHT(k) bases[k]
#define SUM_TERM(k) cs[4 - RX + i + (k)]
                    MIRRORED_SUM(s, acc_t, KW, BASE_WEIGHT, SUM_TERM);
#undef BASE_WEIGHT
#undef SUM_TERM
                o[i] = strip_combine(VSLIDE ? (acc_t)VSCALE * s : s, 0);  // the constant column factor last
            }
#endif
            STORE_OUT(o, r);
        }
    }
#else
#if VSLIDE || COLUMN_SUMS
    acc_t hbs[NR][SW];  // the base sums of input row j
#endif
#if VSLIDE
    acc_t col[SW];  // the running column sums of the current output row
#elif MANY_MASKS
    uint wins[NR][SW][NCH];  // the window chunks of every input row
#elif !COLUMN_SUMS
    // acc[m][r][i]: mask m's sum of output row r, lane i; a row is finished when its last input
    // row has been added, and stored at once.
    acc_t acc[NMASK][RPI][SW];
#endif
#pragma unroll
    for (int j = 0; j < NR; ++j) {
#if BYTE_DOTS
        // words[q + 1]: word q of row j, from the left side word (q = -1) to the right one (q =
        // SW / 4) and a zero word after it (read only where every weight is zero; the last chunk of
        // the last output reaches it at most). win[i][c]: chunk c of output i's window.
        uint words[SW / 4 + 3];
        words[0] = sideL[j];
#pragma unroll
        for (int q = 0; q < SW / 4; ++q) words[q + 1] = WORD(rows[j], q);
        words[SW / 4 + 1] = sideR[j];
        words[SW / 4 + 2] = 0u;
        uint win[SW][NCH];
#pragma unroll
        for (int i = 0; i < SW; ++i)
#pragma unroll
            for (int c = 0; c < NCH; ++c) {
                const int q = DOT_Q(i) + c + 1, o = DOT_OFF(i);
                const uint lo = words[q], hi = words[q + 1];
                win[i][c] = DOT_AT(i) == o ? lo : (lo >> (8 * o)) | (hi << (32 - 8 * o));
            }
#else
        acc_t v[NC];
        ROW_ACC(j, v);
        // Base sums of the row.
        acc_t hb[NBASE][SW];
#pragma unroll
        for (int b = 0; b < NBASE; ++b)
#pragma unroll
            for (int i = 0; i < SW; ++i) {
#if HSLIDE
                if (i > 0) {
                    hb[b][i] = hb[b][i - 1] + v[i + KW - 1] - v[i - 1];
                    continue;
                }
#endif
                acc_t s;
#define BASE_WEIGHT(k) bases[b * KW + (k)]
#define PIXEL_TERM(k) v[i + (k)]
                MIRRORED_SUM(s, acc_t, KW, BASE_WEIGHT, PIXEL_TERM);
#undef BASE_WEIGHT
#undef PIXEL_TERM
                hb[b][i] = s;
            }
#endif
#if VSLIDE || COLUMN_SUMS
#pragma unroll
        for (int i = 0; i < SW; ++i) hbs[j][i] = hb[0][i];
#endif
#if VSLIDE
        // One mask, every row the same multiple (VSCALE) of the one base row.
        const int r = j - (KH - 1);
        if (r >= 0 && y0 + r < h) {
            out_t o[SW];
#pragma unroll
            for (int i = 0; i < SW; ++i) {
                if (r == 0) {
                    col[i] = hbs[0][i];
#pragma unroll
                    for (int dy = 1; dy < KH; ++dy) col[i] += hbs[dy][i];
                } else {
                    col[i] = col[i] + hbs[j][i] - hbs[j - KH][i];
                }
                o[i] = strip_combine(VSCALE == 1 ? col[i] : (acc_t)VSCALE * col[i], 0);
            }
            STORE_OUT(o, r);
        }
#elif COLUMN_SUMS
        // Output row r is complete with input row j: its column sums, the rows of a symmetric pair
        // of weights added first.
        const int r = j - (KH - 1);
        if (r >= 0 && y0 + r < h) {
            out_t o[SW];
#pragma unroll
            for (int i = 0; i < SW; ++i) {
                sum_t s;
#define ROW_SUM_TERM(k) hbs[r + (k)][i]
                MIRRORED_SUM(s, sum_t, KH, COLUMN_WEIGHT, ROW_SUM_TERM);  // a pair adds in acc_t, then widens
#undef ROW_SUM_TERM
                o[i] = strip_combine(s, 0);
            }
            STORE_OUT(o, r);
        }
#elif MANY_MASKS
        // More than two masks (the compass operators: the largest of eight masks' sums): every
        // input row's window chunks are kept, and an output row's masks are summed one after the
        // other once its last input row is in (running sums of eight masks for each output of the
        // strip would not fit the registers).
#pragma unroll
        for (int i = 0; i < SW; ++i)
#pragma unroll
            for (int c = 0; c < NCH; ++c) wins[j][i][c] = win[i][c];
        const int r = j - (KH - 1);
        if (r >= 0 && y0 + r < h) {
            out_t o[SW];
#pragma unroll
            for (int i = 0; i < SW; ++i) {
                int best = 0;
#pragma unroll
                for (int m = 0; m < (PAIRED_MASKS ? NMASK / 2 : NMASK); ++m) {
                    int s = 0;
#pragma unroll
                    for (int dy = 0; dy < KH; ++dy) {
                        const int bi = rowBase[m * KH + dy], sc = rowScale[m * KH + dy];
                        if (bi >= 0) ROW_DOTS(s, bi, sc, wins[r + dy][i], DOT_AT(i));
                    }
#if PAIRED_MASKS
                    s = abs(s);  // mask m + NMASK / 2 is minus mask m: the larger of the two sums
#endif
                    best = m == 0 ? s : max(best, s);
                }
                o[i] = strip_combine(best, best);
            }
            STORE_OUT(o, r);
        }
#else
#pragma unroll
        for (int dy = 0; dy < KH; ++dy) {
            const int r = j - dy;
            if (r < 0 || r >= RPI) continue;
#pragma unroll
            for (int m = 0; m < NMASK; ++m) {
                const int bi = rowBase[m * KH + dy];
                const int sc = rowScale[m * KH + dy];
#pragma unroll
                for (int i = 0; i < SW; ++i) {
#if BYTE_DOTS
                    if (dy == 0) acc[m][r][i] = 0;
                    if (bi >= 0) ROW_DOTS(acc[m][r][i], bi, sc, win[i], DOT_AT(i));
#else
                    const acc_t t = bi < 0 ? (acc_t)0 : sc == 1 ? hb[bi < 0 ? 0 : bi][i] : (acc_t)sc * hb[bi < 0 ? 0 : bi][i];
                    if (dy == 0) acc[m][r][i] = t;
                    else if (bi >= 0) acc[m][r][i] += t;
#endif
                }
            }
            if (dy == KH - 1 && y0 + r < h) {
                out_t o[SW];
#pragma unroll
                for (int i = 0; i < SW; ++i) {
#if NMASK > 1
                    o[i] = strip_combine(acc[0][r][i], acc[1][r][i]);
#else
                    o[i] = strip_combine(acc[0][r][i], 0);
#endif
                }
                STORE_OUT(o, r);
            }
        }
#endif
    }
#endif  // GRADIENT_LANES, COLUMN_LANES

#elif OP == 2 && KW == 3
    // Output rows in pairs (r, r+1): rows r+1, r+2 are in both windows; each window adds its own
    // (r, or r+3). A last single row when RPI is odd.
#pragma unroll
    for (int r = 0; r < RPI; r += 2) {
        const bool pair = r + 1 < RPI;
        int lo[2][NC], md[2][NC], hi[2][NC];
        // lo2/hi2[s][c]: max / min over columns c, c+1; outputs c-1 and c share them (3 min/max per
        // two outputs instead of 4, and likewise for the pair of column medians).
        int lo2[2][NC], hi2[2][NC];
        out_t o[2][SW];
#pragma unroll
        for (int c = 0; c < NC; ++c) {
            const int a = min(PIX(r + 1, c), PIX(r + 2, c)), b = max(PIX(r + 1, c), PIX(r + 2, c));
#pragma unroll
            for (int s = 0; s < 2; ++s) {
                if (s == 1 && !pair) continue;
                const int x = PIX(r + 3 * s, c);
                lo[s][c] = min(a, x);
                hi[s][c] = max(b, x);
                md[s][c] = max(a, min(b, x));
            }
            if (c >= 2) {
                const int i = c - 2;
#pragma unroll
                for (int s = 0; s < 2; ++s) {
                    if (s == 1 && !pair) continue;
                    lo2[s][i + 1] = max(lo[s][i + 1], lo[s][i + 2]);
                    hi2[s][i + 1] = min(hi[s][i + 1], hi[s][i + 2]);
                    const int mx = i & 1 ? max(lo2[s][i], lo[s][i + 2]) : max(lo[s][i], lo2[s][i + 1]);
                    const int mn = i & 1 ? min(hi2[s][i], hi[s][i + 2]) : min(hi[s][i], hi2[s][i + 1]);
                    // The median of three with the pair both outputs of (even i, i + 1) hold.
                    const int mm = i & 1 ? NET_MED3(md[s][i], md[s][i + 1], md[s][i + 2]) : NET_MED3(md[s][i + 1], md[s][i + 2], md[s][i]);
                    o[s][i] = NET_MED3(mx, mm, mn);
                }
            }
        }
#pragma unroll
        for (int s = 0; s < 2; ++s)
            if (!(s == 1 && !pair) && y0 + r + s < h) STORE_OUT(o[s], r + s);
    }

#elif OP == 2 && KW == 5
    // Output rows in pairs (r, r+1): the four common rows r+1 .. r+4 of each column sorted once,
    // then each window's own row (r, or r+5) inserted. Going left to right, column c completes the
    // pair merge of columns c-1, c, and the output c-4, whose window's columns are c-4 .. c.
#pragma unroll
    for (int r = 0; r < RPI; r += 2) {
        const bool pair = r + 1 < RPI;
        int col[2][NC][5], pr[2][NC][10];
        out_t o[2][SW];
#pragma unroll
        for (int c = 0; c < NC; ++c) {
            int s4[4] = {PIX(r + 1, c), PIX(r + 2, c), PIX(r + 3, c), PIX(r + 4, c)};
            NET_SORT4(s4);
#pragma unroll
            for (int s = 0; s < 2; ++s) {
                if (s == 1 && !pair) continue;
                const int own = PIX(r + 5 * s, c);
                NET_INSERT4(s4, own, col[s][c]);
                if (c >= 1) NET_MERGE55(col[s][c - 1], col[s][c], pr[s][c - 1]);
                if (c >= 4) {
                    const int i = c - 4;
                    int mid[6];
                    NET_MERGE1010_MID(pr[s][i], pr[s][i + 2], mid);
                    o[s][i] = NET_MED25_FINAL(mid, col[s][c]);
                }
            }
        }
#pragma unroll
        for (int s = 0; s < 2; ++s)
            if (!(s == 1 && !pair) && y0 + r + s < h) STORE_OUT(o[s], r + s);
    }
#else
#error "filter_strip: unsupported OP / window"
#endif
}
