// Incremental lineal path counts under pixel swaps (reconstruction by simulated annealing). A swap
// clears phase pixel a and sets pixel b. For a displacement d with segment offsets o_j, only the
// placements p = a - o_j and p = b - o_j can change: those through a lose their count if their segment
// was in the phase, those through b gain one if their segment is in the phase after the swap (a
// placement through both has neither). The image is periodic; X holds 0/1 per pixel.
#include "common/real.h"

// Coordinates here lie in (-2n, 3n) (ML < n): two conditional steps instead of a division.
inline int wrapc(int i, int n) {
    i = i < 0 ? i + n : (i >= n ? i - n : i);
    return i < 0 ? i + n : (i >= n ? i - n : i);
}

// Whether the segment at placement (pz, py, px) lies in the phase, with pixel `cleared` read as 0 and
// `set` read as 1 (-1: none).
inline int fits(__global const uchar* X, int nz, int ny, int nx, __global const int4* seg, int len, int pz, int py,
                int px, int cleared, int set) {
    for (int m = 0; m < len; ++m) {
        const int4 o = seg[m];
        const int q = (wrapc(pz + o.x, nz) * ny + wrapc(py + o.y, ny)) * nx + wrapc(px + o.z, nx);
        const int v = q == cleared ? 0 : (q == set ? 1 : X[q]);
        if (!v) return 0;
    }
    return 1;
}

inline int pixelAfter(__global const uchar* X, int q, int cleared, int set) {
    return q == cleared ? 0 : (q == set ? 1 : X[q]);
}

// Change of the S2 count of displacement (dz, dy, dx) under the swap: only the pairs (p, p + d) with
// p in {a, a - d, b, b - d} can change (each distinct p once).
inline int s2Change(__global const uchar* X, int nz, int ny, int nx, int az, int ay, int ax, int bz, int by, int bx,
                    int dz, int dy, int dx, int a, int b) {
    int ps[4];
    ps[0] = a;
    ps[1] = (wrapc(az - dz, nz) * ny + wrapc(ay - dy, ny)) * nx + wrapc(ax - dx, nx);
    ps[2] = b;
    ps[3] = (wrapc(bz - dz, nz) * ny + wrapc(by - dy, ny)) * nx + wrapc(bx - dx, nx);
    int change = 0;
    for (int k = 0; k < 4; ++k) {
        int seen = 0;
        for (int m = 0; m < k; ++m) seen |= ps[m] == ps[k];
        if (seen) continue;
        const int p = ps[k];
        const int pz = p / (ny * nx), py = (p / nx) % ny, px = p % nx;
        const int q = (wrapc(pz + dz, nz) * ny + wrapc(py + dy, ny)) * nx + wrapc(px + dx, nx);
        change += pixelAfter(X, p, a, b) * pixelAfter(X, q, a, b) - X[p] * X[q];
    }
    return change;
}

// delta[i*nd + d]: change of the count of displacement d under candidate swap i = (a, b); with
// s2 != 0 also delta2[i*nd + d], the change of its S2 count (d = the segment's last offset).
__kernel void anneal_delta(__global const uchar* X, const int nz, const int ny, const int nx,
                           __global const int4* seg, __global const int* segStart, const int nd,
                           __global const int2* swaps, const int K, __global int* delta, const int s2,
                           __global int* delta2) {
    const int d = get_global_id(0), i = get_global_id(1);
    if (d >= nd || i >= K) return;
    const int a = swaps[i].x, b = swaps[i].y;
    const int az = a / (ny * nx), ay = (a / nx) % ny, ax = a % nx;
    const int bz = b / (ny * nx), by = (b / nx) % ny, bx = b % nx;
    __global const int4* s = seg + segStart[d];
    const int len = segStart[d + 1] - segStart[d];
    int change = 0;
    for (int j = 0; j < len; ++j) {
        const int4 o = s[j];
        change -= fits(X, nz, ny, nx, s, len, az - o.x, ay - o.y, ax - o.z, -1, -1);
        change += fits(X, nz, ny, nx, s, len, bz - o.x, by - o.y, bx - o.z, a, b);
    }
    delta[(size_t)i * nd + d] = change;
    if (s2) {
        const int4 e = s[len - 1];
        delta2[(size_t)i * nd + d] = s2Change(X, nz, ny, nx, az, ay, ax, bz, by, bx, e.x, e.y, e.z, a, b);
    }
}

// A window of the image around each candidate's pixels, so that anneal_delta_window reads the
// placements through a and b without wrapping coordinates or testing for the swapped pixels. Byte w
// of window k holds two pixels at the same offset: bit 0 from X around a = swaps[i0 + k].x, bit 1
// from X after the swap around b. Position (wz, wy, wx) is offset (wz - mlz, wy - ml, wx - ml) from
// the centre, wrapped. One work-item per window row.
__kernel void anneal_window(__global const uchar* X, const int nz, const int ny, const int nx,
                            __global const int2* swaps, const int i0, const int ml, const int mlz,
                            __global uchar* win) {
    const int r = get_global_id(0), k = get_global_id(1);
    const int W = 2 * ml + 1, rows = (2 * mlz + 1) * W;
    if (r >= rows) return;
    const int a = swaps[i0 + k].x, b = swaps[i0 + k].y;
    const int oz = r / W - mlz, oy = r % W - ml;
    const int rowA = (wrapc(a / (ny * nx) + oz, nz) * ny + wrapc((a / nx) % ny + oy, ny)) * nx;
    const int rowB = (wrapc(b / (ny * nx) + oz, nz) * ny + wrapc((b / nx) % ny + oy, ny)) * nx;
    __global uchar* out = win + ((size_t)k * rows + r) * W;
    int xa = wrapc(a % nx - ml, nx), xb = wrapc(b % nx - ml, nx);
    for (int wx = 0; wx < W; ++wx) {
        out[wx] = (uchar)(X[rowA + xa] | (pixelAfter(X, rowB + xb, a, b) << 1));
        if (++xa == nx) xa = 0;
        if (++xb == nx) xb = 0;
    }
}

// anneal_delta for candidates i0 + k (k < K) from their windows (anneal_window); segLin holds the
// segment offsets as window offsets ((oz * W) + oy) * W + ox. Same results as anneal_delta. A
// placement's two tests (before the swap around a, after it around b) run together on the window's
// two bits, starting with the segment's first and last pixels: on a random image most placements
// fail one of them, and the loop stops once both tests have failed.
__kernel void anneal_delta_window(__global const uchar* win, const int ml, const int mlz,
                                  __global const int* segLin, __global const int* segStart, const int nd,
                                  const int i0, const int K, __global int* delta, __global const uchar* X,
                                  const int nz, const int ny, const int nx, __global const int4* seg,
                                  __global const int2* swaps, const int s2, __global int* delta2) {
    const int d = get_global_id(0), k = get_global_id(1);
    if (d >= nd || k >= K) return;
    const int W = 2 * ml + 1, S = (2 * mlz + 1) * W * W, centre = (mlz * W + ml) * W + ml;
    __global const uchar* w = win + (size_t)k * S;
    __global const int* lin = segLin + segStart[d];
    const int len = segStart[d + 1] - segStart[d], first = lin[0], last = lin[len - 1];
    int change = 0;
    for (int j = 0; j < len; ++j) {
        const int p = centre - lin[j];
        int both = w[p + first] & w[p + last];
        for (int m = 1; both && m < len - 1; ++m) both &= w[p + lin[m]];
        change += (both >> 1) - (both & 1);
    }
    const int i = i0 + k;
    delta[(size_t)i * nd + d] = change;
    if (s2) {
        const int a = swaps[i].x, b = swaps[i].y;
        const int4 e = seg[segStart[d + 1] - 1];
        delta2[(size_t)i * nd + d] = s2Change(X, nz, ny, nx, a / (ny * nx), (a / nx) % ny, a % nx, b / (ny * nx),
                                              (b / nx) % ny, b % nx, e.x, e.y, e.z, a, b);
    }
}

// dE[i] = sum_d (e_d + delta/N)^2 - e_d^2 with e_d = count_d/N - target_d; one work-group per candidate.
// With s2 != 0 adds w2 * sum_d (e2_d + delta2/N)^2 - e2_d^2.
__kernel void anneal_energy(__global const int* delta, __global const real* e, const real invN, const int nd,
                            __global real* dE, __local real* part, const int s2, __global const int* delta2,
                            __global const real* e2, const real w2) {
    const int i = get_group_id(0), lid = get_local_id(0), ls = get_local_size(0);
    real acc = 0;
    for (int d = lid; d < nd; d += ls) {
        const real dl = (real)delta[(size_t)i * nd + d] * invN;
        acc += dl * (2 * e[d] + dl);
        if (s2) {
            const real d2 = (real)delta2[(size_t)i * nd + d] * invN;
            acc += w2 * d2 * (2 * e2[d] + d2);
        }
    }
    part[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = ls >> 1; s > 0; s >>= 1) {
        if (lid < s) part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) dE[i] = part[0];
}

// Applies candidate i to one set of counts and residuals (called for L, and for S2 when matched);
// with a >= 0 also swaps the pixels in X (saves two blocking transfers per accepted swap).
__kernel void anneal_apply(__global long* counts, __global real* e, __global const real* target,
                           __global const int* delta, const int i, const int nd, const real invN,
                           __global uchar* X, const int a, const int b) {
    const int d = get_global_id(0);
    if (d == 0 && a >= 0) {
        X[a] = 0;
        X[b] = 1;
    }
    if (d >= nd) return;
    const long c = counts[d] + delta[(size_t)i * nd + d];
    counts[d] = c;
    e[d] = (real)c * invN - target[d];
}
