// Window operations on one channel plane: a TX x TY tile of outputs per work-group, its input with
// a border of RX x RY loaded once into local memory (border rules applied there), then per pixel:
//   OP 1  linear: NMASK masks of KW x KH, combined by COMBINE (0 single, 1 L1, 2 L2, 3 direction,
//         4 x, 5 y, 6 max, 7 max index)
//   OP 2  median of KW x KH (up to 9x9: forgetful selection by compare-exchange, in registers;
//         larger: bitwise search of the median's value, MEDIAN_SEARCH with KEY_BITS)
//   OP 3  averaging with a threshold over KW x KH
//   OP 4  rotating mask: windows of KW x KH centred at every offset within (KW/2, KH/2)
// Each work-item computes PX outputs, TX apart (so that a row of work-items writes contiguous
// pixels at every step). Defines: SRC_T, DST_T, INTEGER, ACC_T (int or long: the host proves the
// sums fit), OUT_MAX (integer output), BORDER, TX, TY, PX, RX, RY, KW, KH, OP, NMASK, COMBINE.
#include "common/filter_common.h"

#define TW (TX * PX + 2 * RX)
#define TH (TY + 2 * RY)

#if INTEGER
typedef int weight_t;
inline uint median_key(val_t v) { return (uint)v; }
inline val_t median_value(uint k) { return (val_t)k; }
#else
typedef real weight_t;
// Floats ordered as unsigned integers: flip every bit of negatives, the sign bit of the rest.
inline uint median_key(val_t v) {
    const uint u = as_uint((float)v);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
inline val_t median_value(uint k) { return (val_t)as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k); }
#endif

__kernel __attribute__((reqd_work_group_size(TX, TY, 1)))
void filter_window(__global const SRC_T* src, __global DST_T* dst, const int w, const int h, const val_t outside,
                   __global const weight_t* masks, const long divisor, const int shift, const real threshold,
                   const long limit) {
    __local val_t tile[TH * TW];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int gx0 = (int)get_group_id(0) * (TX * PX) - RX, gy0 = (int)get_group_id(1) * TY - RY;
    for (int i = ly * TX + lx; i < TW * TH; i += TX * TY) {
        const int ty = i / TW, tx = i - ty * TW;
        const int xi = border_index(gx0 + tx, w), yi = border_index(gy0 + ty, h);
        tile[i] = (xi < 0 || yi < 0) ? outside : (val_t)src[yi * w + xi];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int y = gy0 + RY + ly;
    if (y >= h) return;
#pragma unroll
    for (int px = 0; px < PX; ++px) {
    const int lxp = lx + px * TX, x = gx0 + RX + lxp;
    if (x >= w) break;
    // Top-left of this pixel's KW x KH window (centred) in the tile.
    __local const val_t* win = tile + (ly + RY - KH / 2) * TW + (lxp + RX - KW / 2);

#if OP == 1
#if INTEGER
    ACC_T r[NMASK];
#else
    real r[NMASK];
#endif
    for (int m = 0; m < NMASK; ++m) {
        __global const weight_t* mk = masks + m * KW * KH;
#if INTEGER
        ACC_T acc = 0;
#pragma unroll
        for (int dy = 0; dy < KH; ++dy)
#pragma unroll
            for (int dx = 0; dx < KW; ++dx) acc += (ACC_T)mk[dy * KW + dx] * (ACC_T)win[dy * TW + dx];
#else
        real acc = (real)0;
#pragma unroll
        for (int dy = 0; dy < KH; ++dy)
#pragma unroll
            for (int dx = 0; dx < KW; ++dx) acc = acc + mk[dy * KW + dx] * win[dy * TW + dx];
#endif
        r[m] = acc;
    }
#if COMBINE == 3
    dst[y * w + x] = (DST_T)direction_degrees((real)r[0], (real)r[1]);
#elif COMBINE == 7
    int best = 0;
    for (int m = 1; m < NMASK; ++m)
        if (r[m] > r[best]) best = m;
    dst[y * w + x] = (DST_T)(45 * best);
#else
#if INTEGER
    long v;  // (ACC_T values widen losslessly)
#if COMBINE == 0
#if DIV_NARROW
    v = round_div_int((int)r[0], (int)divisor, shift);
#else
    v = round_div(r[0], divisor, shift);
#endif
#elif COMBINE == 1
    v = (long)(r[0] < 0 ? -r[0] : r[0]) + (long)(r[1] < 0 ? -r[1] : r[1]);
#elif COMBINE == 2
    v = round_sqrt((long)r[0] * r[0] + (long)r[1] * r[1]);
#elif COMBINE == 4
    v = r[0];
#elif COMBINE == 5
    v = r[1];
#elif COMBINE == 6
    v = r[0];
    for (int m = 1; m < NMASK; ++m) v = max(v, (long)r[m]);
#endif
    dst[y * w + x] = store_int(v);
#else
    real v;
#if COMBINE == 0 || COMBINE == 4
    v = r[0];
#elif COMBINE == 1
    v = fabs(r[0]) + fabs(r[1]);
#elif COMBINE == 2
    v = sqrt(r[0] * r[0] + r[1] * r[1]);
#elif COMBINE == 5
    v = r[1];
#elif COMBINE == 6
    v = r[0];
    for (int m = 1; m < NMASK; ++m) v = fmax(v, r[m]);
#endif
    dst[y * w + x] = (DST_T)v;
#endif
#endif

#elif OP == 2
    // Forgetful selection: keep N/2 + 2 values, repeatedly drop the smallest and largest and take
    // in the next one; the last three hold the median.
#define N (KW * KH)
#if N == 1
    dst[y * w + x] = (DST_T)win[0];
#elif MEDIAN_SEARCH
    // Large windows: the median's bits from the top down. Bit b is 0 when at least N/2 + 1 values
    // are <= (the bits found so far, then 0, then all ones); KEY_BITS passes over the window, no
    // buffer. Keys: integers as they are, floats by the order-preserving map of their bits.
    uint prefix = 0;
    for (int b = KEY_BITS - 1; b >= 0; --b) {
        const uint cand = prefix | ((1u << b) - 1u);
        int count = 0;
        for (int dy = 0; dy < KH; ++dy)
            for (int dx = 0; dx < KW; ++dx) count += median_key(win[dy * TW + dx]) <= cand;
        if (count < N / 2 + 1) prefix |= 1u << b;
    }
    dst[y * w + x] = (DST_T)median_value(prefix);
#else
#define R (N / 2 + 2)
    // Compare-exchanges only, every index a compile-time constant once unrolled: the buffer stays
    // in registers (no dynamically indexed private array, which would go to memory).
#define CSWAP(a, b) { const val_t lo_ = min(a, b); b = max(a, b); a = lo_; }
    val_t buf[R];
#pragma unroll
    for (int i = 0; i < R; ++i) buf[i] = win[(i / KW) * TW + i % KW];
#pragma unroll
    for (int k = R; k < N; ++k) {
        const int lo = k - R;  // buf[lo .. R-1] are the values still in play
#pragma unroll
        for (int i = lo + 1; i < R; ++i) CSWAP(buf[lo], buf[i]);      // minimum to buf[lo]: dropped
#pragma unroll
        for (int i = lo + 1; i < R - 1; ++i) CSWAP(buf[i], buf[R - 1]);  // maximum to buf[R-1]: replaced
        buf[R - 1] = win[(k / KW) * TW + k % KW];
    }
    // Three values remain (buf[R-3 .. R-1]); the median is their middle.
    const val_t a = buf[R - 3], b = buf[R - 2], c = buf[R - 1];
    dst[y * w + x] = (DST_T)max(min(a, b), min(max(a, b), c));
#endif

#elif OP == 3
    const val_t f = win[(KH / 2) * TW + KW / 2];
#if INTEGER
    long s = 0;
    for (int dy = 0; dy < KH; ++dy)
        for (int dx = 0; dx < KW; ++dx) s += win[dy * TW + dx];
    const long diff = s - (long)(KW * KH) * f;
    dst[y * w + x] = (DST_T)((diff < 0 ? -diff : diff) <= limit ? round_div(s, KW * KH, -1) : (long)f);
#else
    real s = (real)0;
    for (int dy = 0; dy < KH; ++dy)
        for (int dx = 0; dx < KW; ++dx) s = s + win[dy * TW + dx];
    const real mean = s / (real)(KW * KH);
    dst[y * w + x] = (DST_T)(fabs(mean - f) <= threshold ? mean : f);
#endif

#elif OP == 4
    // Windows centred at (x+cx, y+cy), raster order; the first of least dispersion wins.
    __local const val_t* base = tile + ly * TW + lxp;  // top-left of the (2KW-1) x (2KH-1) neighbourhood
#if INTEGER
    long bestDisp = -1, bestSum = 0;
#else
    real bestVar = (real)0, bestMean = (real)0;
    int first = 1;
#endif
    for (int cy = 0; cy < KH; ++cy)
        for (int cx = 0; cx < KW; ++cx) {
            __local const val_t* p = base + cy * TW + cx;
#if INTEGER
            long s = 0, q = 0;
            for (int dy = 0; dy < KH; ++dy)
                for (int dx = 0; dx < KW; ++dx) {
                    const long v = p[dy * TW + dx];
                    s += v;
                    q += v * v;
                }
            const long disp = (long)(KW * KH) * q - s * s;
            if (bestDisp < 0 || disp < bestDisp) {
                bestDisp = disp;
                bestSum = s;
            }
#else
            real s = (real)0, q = (real)0;
            for (int dy = 0; dy < KH; ++dy)
                for (int dx = 0; dx < KW; ++dx) {
                    const real v = p[dy * TW + dx];
                    s = s + v;
                    q = q + v * v;
                }
            const real mean = s / (real)(KW * KH), var = q / (real)(KW * KH) - mean * mean;
            if (first || var < bestVar) {
                bestVar = var;
                bestMean = mean;
                first = 0;
            }
#endif
        }
#if INTEGER
    dst[y * w + x] = (DST_T)round_div(bestSum, KW * KH, -1);
#else
    dst[y * w + x] = (DST_T)bestMean;
#endif
#endif
    }  // px
}
