// Lineal path counts on bit-packed rows. The host transposes the image so that the major axis of
// every displacement of a launch is the packed axis x ("frame" coordinates: a, b = the two minor
// axes, x = the major one). A Bresenham segment is then a list of runs: consecutive pixels of one row
// (a + oa, b + ob), x from x0 to x0 + len - 1. A placement fits a run iff the row has len set bits
// starting at x + x0, so with run tables E_len (bit i set iff bits i .. i+len-1 of the extended row
// are set) one 32-bit load tests a run for 32 placements at once, and a segment costs one AND per
// run, stopping as soon as no placement of the word survives.
//
// Extended rows: bit i of a row stands for x = i - ML (wrapped when periodic, 0 outside otherwise),
// ew words per row, LSB first. E holds ML+1 tables of rows*ew words, table len-1 for runs of len.
// Counts are integers: every device gives the same numbers.
#include "common/real.h"

// The 32 bits of a row starting at bit `pos`.
inline uint window32(__global const uint* row, int pos) {
    const int w = pos >> 5, sh = pos & 31;
    const uint lo = row[w];
    return sh ? (lo >> sh) | (row[w + 1] << (32 - sh)) : lo;
}

// E_1: the extended, bit-packed rows of the image seen in the frame (a, b, x), one work-item per
// (row, word). sa, sb, sx are the original strides of the frame axes.
__kernel void lineal_pack_rows(__global const uchar* mask, __global uint* E, const int na, const int nb,
                               const int nx, const int sa, const int sb, const int sx, const int ew,
                               const int ml, const int periodic) {
    const size_t gid = get_global_id(0);
    if (gid >= (size_t)na * nb * ew) return;
    const int row = (int)(gid / ew), w = (int)(gid % ew);
    const int a = row / nb, b = row - a * nb;
    const size_t base = (size_t)a * sa + (size_t)b * sb;
    uint bits = 0;
    for (int t = 0; t < 32; ++t) {
        int x = w * 32 + t - ml;
        if (periodic) {
            x %= nx;
            if (x < 0) x += nx;
        } else if (x < 0 || x >= nx) {
            continue;
        }
        if (mask[base + (size_t)x * sx]) bits |= 1u << t;
    }
    E[gid] = bits;
}

// E_len for len = 2 .. ML+1 from E_1 (table 0), one work-item per (row, word).
__kernel void lineal_run_tables(__global uint* E, const int rows, const int ew, const int ml) {
    const size_t gid = get_global_id(0);
    if (gid >= (size_t)rows * ew) return;
    const int row = (int)(gid / ew), w = (int)(gid % ew);
    __global const uint* e1 = E + (size_t)row * ew;
    uint cur = e1[w];
    for (int len = 2; len <= ml + 1; ++len) {
        const int pos = w * 32 + len - 1;
        const int wi = pos >> 5, sh = pos & 31;
        const uint lo = wi < ew ? e1[wi] : 0u;
        const uint hi = wi + 1 < ew ? e1[wi + 1] : 0u;
        cur &= sh ? (lo >> sh) | (hi << (32 - sh)) : lo;
        E[((size_t)(len - 1) * rows + row) * ew + w] = cur;
    }
}

// Row offsets are at most ML <= n away from the image, so one conditional step wraps them.
inline int wrapIndex(int i, int n) { return i < 0 ? i + n : (i >= n ? i - n : i); }

// One work-group per displacement (frame coordinates disp[g] = (da, db, dx, 0) with |dx| the largest).
// out[g] = number of placements whose whole segment lies in the phase.
__kernel void lineal_count(__global const uint* E, const int na, const int nb, const int nx, const int ew,
                           const int ml, const int periodic, __global const int4* disp, const int dispBase,
                           __global ulong* out, __local int4* runs, __local ulong* partial) {
    const int g = get_group_id(0);
    const int lid = get_local_id(0), ls = get_local_size(0);
    __local int nRuns;
    __local int reach[4];  // min/max row offsets (oa, ob) over the segment

    if (lid == 0) {
        const int4 d = disp[dispBase + g];
        const int A = abs(d.z), Ba = abs(d.x), Bb = abs(d.y);
        const int sa = d.x > 0 ? 1 : (d.x < 0 ? -1 : 0), sb = d.y > 0 ? 1 : (d.y < 0 ? -1 : 0);
        const int sx = d.z > 0 ? 1 : (d.z < 0 ? -1 : 0);
        int ea = 2 * Ba - A, eb = 2 * Bb - A;  // the thesis's error terms; a tie (e == 0) steps diagonally
        int oa = 0, ob = 0, x = 0, start = 0, n = 0;
        int amin = 0, amax = 0, bmin = 0, bmax = 0;
        for (int k = 1; k <= A; ++k) {
            int na2 = oa, nb2 = ob;
            if (ea >= 0) { na2 += sa; ea -= 2 * A; }
            ea += 2 * Ba;
            if (eb >= 0) { nb2 += sb; eb -= 2 * A; }
            eb += 2 * Bb;
            const int nxp = x + sx;
            if (na2 != oa || nb2 != ob) {  // the run of row (oa, ob) ends at x
                runs[n++] = (int4)(oa, ob, min(start, x), abs(x - start) + 1);
                oa = na2;
                ob = nb2;
                start = nxp;
                amin = min(amin, oa); amax = max(amax, oa);
                bmin = min(bmin, ob); bmax = max(bmax, ob);
            }
            x = nxp;
        }
        runs[n++] = (int4)(oa, ob, min(start, x), abs(x - start) + 1);
        nRuns = n;
        reach[0] = amin; reach[1] = amax; reach[2] = bmin; reach[3] = bmax;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int words = (nx + 31) >> 5;
    const int rows = na * nb;
    const int items = rows * words;
    const int n = nRuns;
    const uint lastMask = (nx & 31) ? ((1u << (nx & 31)) - 1u) : 0xffffffffu;
    ulong acc = 0;
    for (int item = lid; item < items; item += ls) {
        const int row = item / words, w = item - row * words;
        const int a = row / nb, b = row - a * nb;
        if (!periodic && (a + reach[0] < 0 || a + reach[1] >= na || b + reach[2] < 0 || b + reach[3] >= nb)) continue;
        uint bits = (w == words - 1) ? lastMask : 0xffffffffu;
        for (int j = 0; j < n && bits; ++j) {
            const int4 r = runs[j];
            int ra = a + r.x, rb = b + r.y;
            if (periodic) {
                ra = wrapIndex(ra, na);
                rb = wrapIndex(rb, nb);
            }
            __global const uint* t = E + ((size_t)(r.w - 1) * rows + (size_t)(ra * nb + rb)) * ew;
            bits &= window32(t, w * 32 + r.z + ml);
        }
        acc += popcount(bits);
    }
    partial[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = ls >> 1; s > 0; s >>= 1) {
        if (lid < s) partial[lid] += partial[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[g] = partial[0];
}
