// Two-point probability through the FFT: |F|^2 of the phase indicator's spectrum, then the map of
// S2 read out of the circular autocorrelation with its normalization.
#include "common/real.h"

// Interleaved complex c[k] -> (|c[k]|^2, 0), n complex numbers.
__kernel void s2_power(__global real* c, const ulong n) {
    const size_t k = get_global_id(0);
    if (k >= n) return;
    const real re = c[2 * k], im = c[2 * k + 1];
    c[2 * k] = re * re + im * im;
    c[2 * k + 1] = (real)0;
}

// corr: the circular autocorrelation (sum_p f(p) f(p+d)) on the padded grid (pz, py, px);
// out[map index of d] = corr[d mod padded] / norm, norm = N (periodic) or prod(n_i - |d_i|).
__kernel void s2_extract(__global const real* corr, const int pz, const int py, const int px, const int nz,
                         const int ny, const int nx, const int mlz, const int ml, const int periodic,
                         __global real* out) {
    const int mx = 2 * ml + 1, my = 2 * ml + 1, mz = 2 * mlz + 1;
    const size_t i = get_global_id(0);
    if (i >= (size_t)mz * my * mx) return;
    const int dx = (int)(i % mx) - ml, dy = (int)((i / mx) % my) - ml, dz = (int)(i / ((size_t)mx * my)) - mlz;
    const int z = (dz % pz + pz) % pz, y = (dy % py + py) % py, x = (dx % px + px) % px;
    const real c = corr[((size_t)z * py + y) * px + x];
    const real norm = periodic ? (real)nz * (real)ny * (real)nx
                               : (real)(nz - abs(dz)) * (real)(ny - abs(dy)) * (real)(nx - abs(dx));
    out[i] = c / norm;
}
