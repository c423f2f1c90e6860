// FFTs along the slowest axis (z) of a half spectrum, one line of N = 16 q points per 16 work-items,
// for kernels that transform, multiply and transform back in one pass over memory (cl/kwave.cl,
// kwave_z_*), and the inverse real transform of rows along x (kwave_x_*). Work-item t of a line holds
// the points t + 16 j (j < q) before the forward transform and after the inverse one; between them
// work-items t < q hold the spectrum at t + q k (k < 16). Each transform is a q-point and a 16-point
// DFT in registers with one exchange through local memory (N = q x 16, Cooley-Tukey); the lines of
// a work-group are consecutive in memory (Z_LINES of them, KZ_LINES from the host), so every global
// access is a whole row segment. Needs real, real2 and cmul.
#ifndef KZ_LINES
#define KZ_LINES 1
#endif
#define Z_LINES KZ_LINES
// Local memory holds point m of line l at m Z_PITCH + l: the lines of a point side by side, one
// spare so that runs along m (the rows of kwave_x_*) fall in different banks.
#define Z_PITCH (Z_LINES + 1)

// cos and sin of 2 pi m / 16.
__constant real Z_COS16[16] = {1.0, 0.92387953251128674, 0.70710678118654752, 0.38268343236508977,
                               0.0, -0.38268343236508977, -0.70710678118654752, -0.92387953251128674,
                               -1.0, -0.92387953251128674, -0.70710678118654752, -0.38268343236508977,
                               0.0, 0.38268343236508977, 0.70710678118654752, 0.92387953251128674};
#define Z_SIN16(m) Z_COS16[((m) + 12) & 15]

// In-place DFT of v[0..L), L a power of two up to 16 (a compile-time constant once inlined):
// sum_j v[j] exp(sign 2 pi i j k / L). Iterative radix 2 with the bit-reversed input order.
inline void z_small_dft(real2* v, const int L, const real sign) {
#pragma unroll
    for (int i = 0; i < 16; ++i) {
        int r = 0;
#pragma unroll
        for (int b = 1, q = 8; b < 16; b <<= 1, q >>= 1)
            if (i & b) r |= q;
        r /= 16 / L;  // the reversal of i in log2(L) bits
        if (i < L && r > i) {
            const real2 s = v[i];
            v[i] = v[r];
            v[r] = s;
        }
    }
#pragma unroll
    for (int hw = 1; hw < 16; hw <<= 1) {
#pragma unroll
        for (int s = 0; s < 16; s += 2 * hw) {
#pragma unroll
            for (int j = 0; j < hw; ++j) {
                if (hw < L && s < L) {
                    const int m = j * (8 / hw);  // exp(sign 2 pi i j / (2 hw)) = W16^m
                    const real2 w = (real2)(Z_COS16[m], sign * Z_SIN16(m));
                    const real2 a = v[s + j], b = cmul(v[s + j + hw], w);
                    v[s + j] = a + b;
                    v[s + j + hw] = a - b;
                }
            }
        }
    }
}

// v * (sign i): a quarter turn, no multiplication.
inline real2 z_quarter(const real2 v, const real sign) { return (real2)(-sign * v.y, sign * v.x); }

// 4-point DFT of (a, b, c, d) in place, exp(sign 2 pi i m k / 4).
#define Z_DFT4(a, b, c, d, sign)                           \
    {                                                      \
        const real2 t0_ = a + c, t1_ = a - c, t2_ = b + d; \
        const real2 t3_ = z_quarter(b - d, sign);          \
        a = t0_ + t2_;                                     \
        c = t0_ - t2_;                                     \
        b = t1_ + t3_;                                     \
        d = t1_ - t3_;                                     \
    }

// 16-point DFT in place as 4 x 4 (n = j + 4 m, k = k1 + 4 k2): eight 4-point DFTs (quarter turns
// only) and the twiddles W16^(j k1), natural order in and out.
inline void z_dft16(real2* v, const real sign) {
#pragma unroll
    for (int j = 0; j < 4; ++j) Z_DFT4(v[j], v[j + 4], v[j + 8], v[j + 12], sign);  // A[j][k1] at v[j + 4 k1]
#pragma unroll
    for (int j = 1; j < 4; ++j)
#pragma unroll
        for (int k1 = 1; k1 < 4; ++k1) {
            const int m = j * k1;
            if (m == 4) v[j + 4 * k1] = z_quarter(v[j + 4 * k1], sign);
            else v[j + 4 * k1] = cmul(v[j + 4 * k1], (real2)(Z_COS16[m], sign * Z_SIN16(m)));
        }
    real2 o[16];
#pragma unroll
    for (int k1 = 0; k1 < 4; ++k1) {
        real2 a = v[4 * k1], b = v[4 * k1 + 1], c = v[4 * k1 + 2], d = v[4 * k1 + 3];
        Z_DFT4(a, b, c, d, sign);
        o[k1] = a;
        o[k1 + 4] = b;
        o[k1 + 8] = c;
        o[k1 + 12] = d;
    }
#pragma unroll
    for (int k = 0; k < 16; ++k) v[k] = o[k];
}

// DFT of v[0..L): the 4 x 4 one for 16 points, radix 2 below.
inline void z_dft(real2* v, const int L, const real sign) {
    if (L == 16) z_dft16(v, sign);
    else if (L > 1) z_small_dft(v, L, sign);
}

// tw[m] = exp(-2 pi i m / n), m < count, computed once per work-group (a sincos per work-item).
inline void z_twiddles(__local real2* tw, const int id, const int n, const int count) {
    for (int m = id; m < count; m += 16 * Z_LINES) {
        real c;
        const real s = sincos((real)6.283185307179586477 / (real)n * (real)m, &c);
        tw[m] = (real2)(c, -s);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}
// exp(sign 2 pi i m / N) from the table of the N twiddles.
inline real2 z_tw(__local const real2* tw, const int m, const real sign) {
    const real2 w = tw[m];
    return sign < 0 ? w : (real2)(w.x, -w.y);
}

// Forward transform (exp(-2 pi i n k / N), N = 16 q) of the line held as v[j] = x[t + 16 j]; afterwards
// work-items t < q hold s[k] = X[t + q k], k < 16. Every work-item of the group must call it; tw
// holds the N twiddles.
inline void z_forward(real2* v, real2* s, __local real2* lds, __local const real2* tw, const int t, const int line,
                      const int q) {
    z_dft(v, q, (real)-1);  // A[t][k1], k1 < q
#pragma unroll
    for (int k1 = 0; k1 < q; ++k1) lds[(t * q + k1) * Z_PITCH + line] = cmul(v[k1], z_tw(tw, t * k1, (real)-1));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < q) {
#pragma unroll
        for (int u = 0; u < 16; ++u) s[u] = lds[(u * q + t) * Z_PITCH + line];
        z_dft(s, 16, (real)-1);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

// Inverse transform, unscaled (exp(+2 pi i n k / N), N = 16 q), from s[k] = X[t + q k] (t < q) to
// v[j] = x[t + 16 j]. Every work-item of the group must call it.
inline void z_inverse(real2* s, real2* v, __local real2* lds, __local const real2* tw, const int t, const int line,
                      const int q) {
    if (t < q) {
        z_dft(s, 16, (real)1);  // C[k1 = t][n1], n1 < 16
#pragma unroll
        for (int n1 = 0; n1 < 16; ++n1) lds[(t * 16 + n1) * Z_PITCH + line] = cmul(s[n1], z_tw(tw, n1 * t, (real)1));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int k1 = 0; k1 < q; ++k1) v[k1] = lds[(k1 * 16 + t) * Z_PITCH + line];
    z_dft(v, q, (real)1);
    barrier(CLK_LOCAL_MEM_FENCE);
}

// Inverse real transform (C2R) of a row of N = 32 q reals from its N/2 + 1 = 16 q + 1 coefficients
// X[m], staged by the caller in lds[m Z_PITCH + line] (the imaginary parts of X[0] and X[N/2] are
// ignored, as C2R transforms do), scaled by 1/N: the N/2-point complex inverse of
// Z[m] = (X[m] + conj(X[N/2-m]) + i (X[m] - conj(X[N/2-m])) exp(2 pi i m / N)) / 2, which is
// z[n] = x[2n] + i x[2n+1]. Work-item t of a row gets v[j] = (x[2m], x[2m+1]) at m = t + 16 j, j < q;
// tw holds the 16 q twiddles of z_inverse and halfTw exp(-2 pi i m / N), m < 16 q. Every work-item
// of the group must call it.
inline void row_inverse_real(real2* v, __local real2* lds, __local const real2* tw, __local const real2* halfTw,
                             const int t, const int line, const int q) {
    const int m2 = 16 * q;
    real2 s[16];
    if (t < q) {
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            const int m = t + q * k;
            real2 a = lds[m * Z_PITCH + line], b = lds[(m2 - m) * Z_PITCH + line];
            if (m == 0) a.y = b.y = 0;
            b.y = -b.y;
            const real2 h = halfTw[m];
            const real2 odd = cmul(a - b, (real2)(h.x, -h.y));
            s[k] = (a + b + z_quarter(odd, (real)1)) * ((real)1 / (real)(2 * m2));
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // every row read before z_inverse writes lds
    z_inverse(s, v, lds, tw, t, line, q);
}
