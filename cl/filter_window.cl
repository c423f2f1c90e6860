// Window operations on one channel plane: a TX x (TY*PY) tile of outputs per work-group, its input
// with a border of RX x RY loaded once into local memory (border rules applied there; work-groups
// whose tile lies inside the image load it without them), then per pixel:
//   OP 1  linear: NMASK masks of KW x KH, combined by COMBINE (0 single, 1 L1, 2 L2, 3 direction,
//         4 x, 5 y, 6 max, 7 max index)
//   OP 2  median of KW x KH (3x3: rows sorted once and shared by the vertically neighbouring
//         outputs, then the median of the largest minimum, the median middle and the smallest
//         maximum; up to 9x9: forgetful selection by compare-exchange, in registers, the values
//         common to two vertically neighbouring windows selected once for both; larger: bitwise
//         search of the median's value, MEDIAN_SEARCH with KEY_BITS)
//   OP 3  averaging with a threshold over KW x KH
//   OP 4  rotating mask: windows of KW x KH centred at every offset within (KW/2, KH/2); the
//         statistics of each window are computed once per work-group (rotating_statistics), then
//         every output compares the KW*KH windows that hold it
// Each work-item computes PY outputs of one column, one below the other (a row of work-items writes
// contiguous pixels at every step). Input rows are read once from local memory into registers and
// serve every output whose window they fall in. Defines: SRC_T, DST_T, INTEGER, ACC_T (int or long:
// the host proves the sums fit; OP 4: the sums of squares and dispersions), SUM_T (OP 4: the sums),
// OUT_MAX (integer output), BORDER, TX, TY, PY, RX, RY, KW, KH, OP, NMASK, COMBINE.
#include "common/filter_common.h"

// Defaults of the defines above (a 3x3 sum of float samples; the host always sets them).
#ifndef ACC_T
#define ACC_T int
#endif
#ifndef SUM_T
#define SUM_T int
#endif
#ifndef PY
#define PY 1
#endif
#ifndef OP
#define OP 1
#endif
#ifndef KW
#define KW 3
#endif
#ifndef KH
#define KH 3
#endif
#ifndef NMASK
#define NMASK 1
#endif
#ifndef COMBINE
#define COMBINE 0
#endif
#ifndef DIV_NARROW
#define DIV_NARROW 1
#endif
#ifndef MEDIAN_SEARCH
#define MEDIAN_SEARCH 0
#endif
#ifndef KEY_BITS
#define KEY_BITS 8
#endif

#define TW (TX + 2 * RX)
#define TH (TY * PY + 2 * RY)

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

#define CSWAP(a, b) { const val_t lo_ = min(a, b); b = max(a, b); a = lo_; }
#define MED3(a, b, c) max(min(a, b), min(max(a, b), c))


// The combine rule of OP 1 for one output: rr[NMASK] are its mask sums.
#if OP == 1
#if INTEGER
typedef ACC_T sum_t;
#else
typedef real sum_t;
#endif
inline void store_linear(__global DST_T* dst, const int at, const sum_t* rr, const long divisor, const int shift) {
#if COMBINE == 3
    dst[at] = (DST_T)direction_degrees((real)rr[0], (real)rr[1]);
#elif COMBINE == 7
    int best = 0;
    for (int m = 1; m < NMASK; ++m)
        if (rr[m] > rr[best]) best = m;
    dst[at] = (DST_T)(45 * best);
#elif INTEGER
    long v;  // (ACC_T values widen losslessly)
#if COMBINE == 0
#if DIV_NARROW
    v = round_div_int((int)rr[0], (int)DIVISOR_OF(divisor), SHIFT_OF(shift));
#else
    v = round_div(rr[0], DIVISOR_OF(divisor), SHIFT_OF(shift));
#endif
#elif COMBINE == 1
    v = (long)(rr[0] < 0 ? -rr[0] : rr[0]) + (long)(rr[1] < 0 ? -rr[1] : rr[1]);
#elif COMBINE == 2
    v = round_sqrt((long)rr[0] * rr[0] + (long)rr[1] * rr[1]);
#elif COMBINE == 4
    v = rr[0];
#elif COMBINE == 5
    v = rr[1];
#elif COMBINE == 6
    v = rr[0];
    for (int m = 1; m < NMASK; ++m) v = max(v, (long)rr[m]);
#endif
    dst[at] = store_int(v);
#else
    real v;
#if COMBINE == 0 || COMBINE == 4
    v = rr[0];
#elif COMBINE == 1
    v = fabs(rr[0]) + fabs(rr[1]);
#elif COMBINE == 2
    v = sqrt(rr[0] * rr[0] + rr[1] * rr[1]);
#elif COMBINE == 5
    v = rr[1];
#elif COMBINE == 6
    v = rr[0];
    for (int m = 1; m < NMASK; ++m) v = fmax(v, rr[m]);
#endif
    dst[at] = (DST_T)v;
#endif
}
#endif

#if OP == 4
// The rotating mask's windows: one centred at every pixel of the output tile grown by (KW/2, KH/2),
// CW x CH of them. Their sums come in two passes over local memory, each window row's sum over KW
// values (shared by the KH windows that hold the row), then KH of those; the serial reference adds
// in the same order (left to right, then top to bottom), so that float results agree bit for bit.
#define CW (TX + 2 * (KW / 2))
#define CH (TY * PY + 2 * (KH / 2))
// Windows per work-item in the second pass.
#define WINDOWS_PER_ITEM ((CW * CH + TX * TY - 1) / (TX * TY))
#if INTEGER
typedef SUM_T sum_t;  // sums of samples
typedef ACC_T sq_t;   // sums of squares, then dispersions n*Q - S^2
#else
typedef real sum_t;
typedef real sq_t;
#endif

// First level/spread[t * CW + c] hold the sums of the samples and of their squares over tile row t,
// columns c .. c+KW-1 (TH x CW of them). Then, in their first CW * CH places, window (c, cy)'s
// statistics: integers its sum and its dispersion n*Q - S^2 (n^2 times its variance, compared
// exactly), floats its mean and variance, as the reference computes them. Every work-item of the
// group must call it (barriers).
inline void rotating_statistics(__local const val_t* tile, __local sum_t* level, __local sq_t* spread) {
    const int first = get_local_id(1) * TX + get_local_id(0);
    for (int i = first; i < TH * CW; i += TX * TY) {
        const int t = i / CW;
        __local const val_t* p = tile + t * TW + (i - t * CW);
        sum_t s = 0;
        sq_t q = 0;
#pragma unroll
        for (int dx = 0; dx < KW; ++dx) {
#if INTEGER
            s += p[dx];
            q += (sq_t)p[dx] * p[dx];
#else
            s = s + p[dx];
            q = q + p[dx] * p[dx];
#endif
        }
        level[i] = s;
        spread[i] = q;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Each window's statistics are held in registers until every work-item has read the row sums
    // they overwrite (local memory for a second pair of arrays would not fit large windows).
    sum_t levels[WINDOWS_PER_ITEM];
    sq_t spreads[WINDOWS_PER_ITEM];
#pragma unroll
    for (int k = 0; k < WINDOWS_PER_ITEM; ++k) {
        const int i = first + k * TX * TY;
        if (i >= CW * CH) break;
        sum_t s = 0;
        sq_t q = 0;
#pragma unroll
        for (int dy = 0; dy < KH; ++dy) {
#if INTEGER
            s += level[i + dy * CW];
            q += spread[i + dy * CW];
#else
            s = s + level[i + dy * CW];
            q = q + spread[i + dy * CW];
#endif
        }
#if INTEGER
        levels[k] = s;
        spreads[k] = (sq_t)((long)(KW * KH) * q - (long)s * s);
#else
        const real mean = s / (real)(KW * KH);
        levels[k] = mean;
        spreads[k] = q / (real)(KW * KH) - mean * mean;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int k = 0; k < WINDOWS_PER_ITEM; ++k) {
        const int i = first + k * TX * TY;
        if (i >= CW * CH) break;
        level[i] = levels[k];
        spread[i] = spreads[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

__kernel __attribute__((reqd_work_group_size(TX, TY, 1)))
void filter_window(__global const SRC_T* src, __global DST_T* dst, const int w, const int h, const val_t outside,
                   __constant weight_t* masks, const long divisor, const int shift, const real threshold,
                   const long limit) {
    __local val_t tile[TH * TW];
#if OP == 4
    __local sum_t level[TH * CW];
    __local sq_t spread[TH * CW];
#endif
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int gx0 = (int)get_group_id(0) * TX - RX, gy0 = (int)get_group_id(1) * (TY * PY) - RY;
    load_tile(tile, src, w, h, gx0, gy0, TW, TH, outside);
    barrier(CLK_LOCAL_MEM_FENCE);
#if OP == 4
    rotating_statistics(tile, level, spread);
#endif
    const int x = gx0 + RX + lx, y0 = gy0 + RY + ly * PY;
    if (x >= w || y0 >= h) return;
    // Top-left of the first output's KW x KH window (centred) in the tile; output r's is r rows lower.
    __local const val_t* win = tile + (ly * PY + RY - KH / 2) * TW + (lx + RX - KW / 2);

#if OP == 1
    // Every input row once: its KW values serve each output whose window holds it (same order of
    // terms per output as the serial reference: rows, then columns, ascending).
    sum_t acc[NMASK][PY];
#pragma unroll
    for (int m = 0; m < NMASK; ++m)
#pragma unroll
        for (int r = 0; r < PY; ++r) acc[m][r] = 0;
#pragma unroll
    for (int j = 0; j < PY + KH - 1; ++j) {
        val_t v[KW];
#pragma unroll
        for (int dx = 0; dx < KW; ++dx) v[dx] = win[j * TW + dx];
#pragma unroll
        for (int r = 0; r < PY; ++r) {
            const int dy = j - r;
            if (dy >= 0 && dy < KH) {
#pragma unroll
                for (int m = 0; m < NMASK; ++m)
#pragma unroll
                    for (int dx = 0; dx < KW; ++dx) {
#if INTEGER
                        acc[m][r] += (sum_t)masks[(m * KH + dy) * KW + dx] * (sum_t)v[dx];
#else
                        acc[m][r] = acc[m][r] + masks[(m * KH + dy) * KW + dx] * v[dx];
#endif
                    }
            }
        }
    }
#pragma unroll
    for (int r = 0; r < PY; ++r) {
        if (y0 + r >= h) break;
        sum_t rr[NMASK];
#pragma unroll
        for (int m = 0; m < NMASK; ++m) rr[m] = acc[m][r];
        store_linear(dst, (y0 + r) * w + x, rr, divisor, shift);
    }

#elif OP == 2
#define N (KW * KH)
#if N == 1
#pragma unroll
    for (int r = 0; r < PY; ++r)
        if (y0 + r < h) dst[(y0 + r) * w + x] = (DST_T)win[r * TW];
#elif MEDIAN_SEARCH
    // Large windows: the median's bits from the top down. Bit b is 0 when at least N/2 + 1 values
    // are <= (the bits found so far, then 0, then all ones); KEY_BITS passes over the window, no
    // buffer. Keys: integers as they are, floats by the order-preserving map of their bits.
    for (int r = 0; r < PY; ++r) {
        if (y0 + r >= h) break;
        __local const val_t* wr = win + r * TW;
        uint prefix = 0;
        for (int b = KEY_BITS - 1; b >= 0; --b) {
            const uint cand = prefix | ((1u << b) - 1u);
            int count = 0;
            for (int dy = 0; dy < KH; ++dy)
                for (int dx = 0; dx < KW; ++dx) count += median_key(wr[dy * TW + dx]) <= cand;
            if (count < N / 2 + 1) prefix |= 1u << b;
        }
        dst[(y0 + r) * w + x] = (DST_T)median_value(prefix);
    }
#elif KW == 3 && KH == 3
    // Each row sorted once (lo <= md <= hi), shared by the three windows that hold it. The median of
    // nine is the median of (the largest lo, the median md, the smallest hi) of its three rows.
    val_t lo[PY + 2], md[PY + 2], hi[PY + 2];
#pragma unroll
    for (int j = 0; j < PY + 2; ++j) {
        val_t a = win[j * TW], b = win[j * TW + 1], c = win[j * TW + 2];
        CSWAP(a, b);
        CSWAP(b, c);
        CSWAP(a, b);
        lo[j] = a;
        md[j] = b;
        hi[j] = c;
    }
#pragma unroll
    for (int r = 0; r < PY; ++r) {
        if (y0 + r >= h) break;
        const val_t mx = max(max(lo[r], lo[r + 1]), lo[r + 2]);
        const val_t mn = min(min(hi[r], hi[r + 1]), hi[r + 2]);
        const val_t mm = MED3(md[r], md[r + 1], md[r + 2]);
        dst[(y0 + r) * w + x] = (DST_T)MED3(mx, mm, mn);
    }
#else
    // Forgetful selection: keep R = N/2 + 2 values, repeatedly drop the smallest and the largest and
    // take in the next one; the last three hold the median. Compare-exchanges only, every index a
    // compile-time constant once unrolled: the buffers stay in registers. Two vertically
    // neighbouring windows share C = (KH-1) KW values: those are selected once (PAIR), then each
    // window goes on alone with its own row. (Keeping the buffer sorted, with Batcher's sort and
    // insertions, needs fewer compare-exchanges but runs slower on GPUs.)
#define R (N / 2 + 2)
#define C ((KH - 1) * KW)
#define PAIR (C >= R && PY % 2 == 0)
#if PAIR
#define NB 2
#else
#define NB 1
#endif
#pragma unroll
    for (int r = 0; r < PY; r += NB) {
        if (y0 + r >= h) break;
        val_t buf[NB][R];
#if PAIR
        // Shared part: rows r+1 .. r+KH-1 of the pair, in raster order.
        __local const val_t* common = win + (r + 1) * TW;
#pragma unroll
        for (int i = 0; i < R; ++i) buf[0][i] = common[(i / KW) * TW + i % KW];
#pragma unroll
        for (int k = R; k < C; ++k) {
            const int lo = k - R;
#pragma unroll
            for (int i = lo + 1; i < R; ++i) CSWAP(buf[0][lo], buf[0][i]);
#pragma unroll
            for (int i = lo + 1; i < R - 1; ++i) CSWAP(buf[0][i], buf[0][R - 1]);
            buf[0][R - 1] = common[(k / KW) * TW + k % KW];
        }
#pragma unroll
        for (int i = 0; i < R; ++i) buf[1][i] = buf[0][i];
        // Then each window's own row: the top one's row r, the bottom one's row r+KH.
#pragma unroll
        for (int k = C; k < N; ++k) {
            const int lo = k - R;
#pragma unroll
            for (int s = 0; s < 2; ++s) {
#pragma unroll
                for (int i = lo + 1; i < R; ++i) CSWAP(buf[s][lo], buf[s][i]);
#pragma unroll
                for (int i = lo + 1; i < R - 1; ++i) CSWAP(buf[s][i], buf[s][R - 1]);
                buf[s][R - 1] = win[(r + s * KH) * TW + (k - C)];
            }
        }
#else
#pragma unroll
        for (int i = 0; i < R; ++i) buf[0][i] = win[(r + i / KW) * TW + i % KW];
#pragma unroll
        for (int k = R; k < N; ++k) {
            const int lo = k - R;
#pragma unroll
            for (int i = lo + 1; i < R; ++i) CSWAP(buf[0][lo], buf[0][i]);
#pragma unroll
            for (int i = lo + 1; i < R - 1; ++i) CSWAP(buf[0][i], buf[0][R - 1]);
            buf[0][R - 1] = win[(r + k / KW) * TW + k % KW];
        }
#endif
        // Three values remain (buf[R-3 .. R-1]); the median is their middle.
#pragma unroll
        for (int s = 0; s < NB; ++s)
            if (s == 0 || y0 + r + s < h) dst[(y0 + r + s) * w + x] = (DST_T)MED3(buf[s][R - 3], buf[s][R - 2], buf[s][R - 1]);
    }
#endif

#elif OP == 3
    for (int r = 0; r < PY; ++r) {
    const int y = y0 + r;
    if (y >= h) break;
    __local const val_t* wr = win + r * TW;
    const val_t f = wr[(KH / 2) * TW + KW / 2];
#if INTEGER
    long s = 0;
    for (int dy = 0; dy < KH; ++dy)
        for (int dx = 0; dx < KW; ++dx) s += wr[dy * TW + dx];
    const long diff = s - (long)(KW * KH) * f;
    dst[y * w + x] = (DST_T)((diff < 0 ? -diff : diff) <= limit ? round_div(s, KW * KH, -1) : (long)f);
#else
    real s = (real)0;
    for (int dy = 0; dy < KH; ++dy)
        for (int dx = 0; dx < KW; ++dx) s = s + wr[dy * TW + dx];
    const real mean = s / (real)(KW * KH);
    dst[y * w + x] = (DST_T)(fabs(mean - f) <= threshold ? mean : f);
#endif
    }

#elif OP == 4
    for (int r = 0; r < PY; ++r) {
        if (y0 + r >= h) break;
        // Windows centred at (x+cx, y+cy), raster order; the first of least dispersion wins.
        const int first = (ly * PY + r) * CW + lx;
        int best = first;
        sq_t least = spread[first];
        // Unrolled, with selects rather than branches (faster on PoCL).
#pragma unroll
        for (int cy = 0; cy < KH; ++cy)
#pragma unroll
            for (int cx = 0; cx < KW; ++cx) {
                const int i = first + cy * CW + cx;
                const sq_t v = spread[i];
                const int lower = v < least;
                least = lower ? v : least;
                best = lower ? i : best;
            }
#if INTEGER
        dst[(y0 + r) * w + x] = (DST_T)round_div(level[best], KW * KH, -1);
#else
        dst[(y0 + r) * w + x] = (DST_T)level[best];
#endif
    }
#endif
}
