// C = A * B in double on NVIDIA's FP64 tensor cores (compute capability 8.0 and up), through inline
// PTX: each warp multiplies 16 x 8 x DMMA_K blocks with mma.sync. Row-major A (M x K), B (K x N), C (M x N); every size, with zeros beyond the edges.
//
// A work-group of WARPS_M x WARPS_N warps computes a BM x BN block of C, each warp a
// (BM / WARPS_M) x (BN / WARPS_N) part of it as 16 x 8 fragments. K advances BK at a time through
// two local tiles: the next step's operands are read into registers while the current one is
// multiplied. The tiles are stored K-major and padded by 4 doubles, so that the fragment reads of a
// half-warp (rows g = lane / 4, columns t = lane % 4) fall in 16 different banks.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define WTM (BM / WARPS_M)
#define WTN (BN / WARPS_N)
#define FRAG_M (WTM / 16)
#define FRAG_N (WTN / 8)
#define THREADS (WARPS_M * WARPS_N * 32)
#define LDA (BM + 4)
#define LDB (BN + 4)
#define A_LOADS (BM * BK / THREADS)
#define B_LOADS (BK * BN / THREADS)

#if BM % (16 * WARPS_M) || BN % (8 * WARPS_N) || BK % DMMA_K || (BM * BK) % THREADS || (BK * BN) % THREADS
#error "gemm_dmma: the tiles do not split into warps' fragments and loads"
#endif

// c (rows g and g + 8, columns 2t and 2t + 1 of a 16 x 8 block) += a (16 x DMMA_K) * b (DMMA_K x 8).
// The fragments (lane = 4g + t): a[2s + h] holds row g + 8h, column t + 4s; b[s] row t + 4s, column g.
// DMMA_K is 4, 8 or 16 from compute capability 9.0; before it, each 16 x 8 x 4 block is two m8n8k4.
#if DMMA_K == 16
inline void dmma(double* c, const double* a, const double* b) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
                 "{%12,%13,%14,%15}, {%16,%17,%18,%19};"
                 : "=d"(c[0]), "=d"(c[1]), "=d"(c[2]), "=d"(c[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                   "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]), "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]));
}
#elif DMMA_K == 8
inline void dmma(double* c, const double* a, const double* b) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};"
                 : "=d"(c[0]), "=d"(c[1]), "=d"(c[2]), "=d"(c[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]), "d"(c[0]), "d"(c[1]),
                   "d"(c[2]), "d"(c[3]));
}
#elif DMMA_M16
inline void dmma(double* c, const double* a, const double* b) {
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=d"(c[0]), "=d"(c[1]), "=d"(c[2]), "=d"(c[3])
                 : "d"(a[0]), "d"(a[1]), "d"(b[0]), "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]));
}
#else
inline void dmma(double* c, const double* a, const double* b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(c[0]), "=d"(c[1])
                 : "d"(a[0]), "d"(b[0]), "d"(c[0]), "d"(c[1]));
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(c[2]), "=d"(c[3])
                 : "d"(a[1]), "d"(b[0]), "d"(c[2]), "d"(c[3]));
}
#endif

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void gemm_dmma(const int M, const int N, const int K, __global const double* restrict A,
               __global const double* restrict B, __global double* restrict C) {
    __local double As[2][BK][LDA];  // As[k][m]: A transposed
    __local double Bs[2][BK][LDB];  // Bs[k][n]
    const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wm = (warp / WARPS_N) * WTM, wn = (warp % WARPS_N) * WTN;
    const int row0 = get_group_id(1) * BM, col0 = get_group_id(0) * BN;

    double acc[FRAG_M][FRAG_N][4];
#pragma unroll
    for (int i = 0; i < FRAG_M; ++i)
#pragma unroll
        for (int j = 0; j < FRAG_N; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0;

    // Work-item tid stages elements tid, tid + THREADS, ... of the A tile along its rows (BK a row)
    // and of the B tile along its rows (BN a row).
    double ra[A_LOADS], rb[B_LOADS];
#define DMMA_LOAD(k0)                                                                             \
    _Pragma("unroll") for (int l = 0; l < A_LOADS; ++l) {                                         \
        const int v = tid + l * THREADS, r = row0 + v / BK, c = (k0) + v % BK;                    \
        ra[l] = r < M && c < K ? A[(size_t)r * K + c] : 0.0;                                      \
    }                                                                                             \
    _Pragma("unroll") for (int l = 0; l < B_LOADS; ++l) {                                         \
        const int v = tid + l * THREADS, r = (k0) + v / BN, c = col0 + v % BN;                   \
        rb[l] = r < K && c < N ? B[(size_t)r * N + c] : 0.0;                                      \
    }
#define DMMA_STORE(buf)                                                                           \
    _Pragma("unroll") for (int l = 0; l < A_LOADS; ++l) {                                         \
        const int v = tid + l * THREADS;                                                          \
        As[buf][v % BK][v / BK] = ra[l];                                                          \
    }                                                                                             \
    _Pragma("unroll") for (int l = 0; l < B_LOADS; ++l) {                                         \
        const int v = tid + l * THREADS;                                                          \
        Bs[buf][v / BN][v % BN] = rb[l];                                                          \
    }

    DMMA_LOAD(0)
    DMMA_STORE(0)
    barrier(CLK_LOCAL_MEM_FENCE);
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;  // the same for the whole work-group
        if (more) { DMMA_LOAD(k0 + BK) }
#pragma unroll
        for (int kk = 0; kk < BK; kk += DMMA_K) {
            double a[FRAG_M][DMMA_K / 2], b[FRAG_N][DMMA_K / 4];
#pragma unroll
            for (int s = 0; s < DMMA_K / 4; ++s) {
#pragma unroll
                for (int i = 0; i < FRAG_M; ++i) {
                    a[i][2 * s] = As[buf][kk + t + 4 * s][wm + i * 16 + g];
                    a[i][2 * s + 1] = As[buf][kk + t + 4 * s][wm + i * 16 + g + 8];
                }
#pragma unroll
                for (int j = 0; j < FRAG_N; ++j) b[j][s] = Bs[buf][kk + t + 4 * s][wn + j * 8 + g];
            }
#pragma unroll
            for (int i = 0; i < FRAG_M; ++i)
#pragma unroll
                for (int j = 0; j < FRAG_N; ++j) dmma(acc[i][j], a[i], b[j]);
        }
        // The other buffer was last read before the previous barrier: it can be filled now.
        if (more) {
            buf ^= 1;
            DMMA_STORE(buf)
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#undef DMMA_LOAD
#undef DMMA_STORE

#pragma unroll
    for (int i = 0; i < FRAG_M; ++i)
#pragma unroll
        for (int j = 0; j < FRAG_N; ++j) {
            const int r = row0 + wm + i * 16 + g, c = col0 + wn + j * 8 + 2 * t;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int rr = r + 8 * h;
                if (rr >= M) continue;
                __global double* out = C + (size_t)rr * N + c;
                if (c < N) out[0] = acc[i][j][2 * h];
                if (c + 1 < N) out[1] = acc[i][j][2 * h + 1];
            }
        }
}
