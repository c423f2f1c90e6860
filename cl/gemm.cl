// The matrix product C = A * B (row-major; A is M x K, B is K x N, C is M x N) as three kernels:
// the slides' direct kernel, the slides' local-memory tiled kernel, and a register-blocked kernel
// whose tile sizes come from the vendor profile. All three accept any M, N, K.
#include "common/real.h"

// One work-item per element of C, reading a row of A and a column of B from global memory.
__kernel void gemm_direct(const int M, const int N, const int K, __global const real* A,
                          __global const real* B, __global real* C) {
    const int col = get_global_id(0), row = get_global_id(1);
    if (row >= M || col >= N) return;
    real sum = 0;
    for (int k = 0; k < K; ++k) sum = mad(A[row * K + k], B[k * N + col], sum);
    C[row * N + col] = sum;
}

#ifndef TILE
#define TILE 16
#endif

// The slides' tiled kernel: a TILE x TILE work-group stages TILE x TILE blocks of A and B in local
// memory, so that each element read from global memory is used TILE times.
__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void gemm_tiled(const int M, const int N, const int K, __global const real* A, __global const real* B,
                __global real* C) {
    __local real As[TILE][TILE];
    __local real Bs[TILE][TILE + 1];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int col = get_group_id(0) * TILE + tx, row = get_group_id(1) * TILE + ty;
    real sum = 0;
    for (int t = 0; t < K; t += TILE) {
        As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : (real)0;
        Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : (real)0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; ++k) sum = mad(As[ty][k], Bs[k][tx], sum);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < M && col < N) C[row * N + col] = sum;
}

// Register-blocked kernel. A work-group of RX x RY work-items computes a TM x TN block of C; each
// work-item computes WPTM x WPTN outputs held in registers, as WPTM/4 x WPTN/4 blocks of 4 x 4
// spread across the tile so that neighbouring work-items read neighbouring local-memory words.
// A is staged transposed (As[k][m]) so that both operands are read as 4-vectors.
#ifndef TM
#define TM 64
#endif
#ifndef TN
#define TN 64
#endif
#ifndef TK
#define TK 16
#endif
#ifndef WPTM
#define WPTM 4
#endif
#ifndef WPTN
#define WPTN 4
#endif
#define RX (TN / WPTN)
#define RY (TM / WPTM)
#define THREADS (RX * RY)
#define CM (WPTM / 4)
#define CN (WPTN / 4)

// How far the K-loop of a tile is unrolled: fully unrolled, the compiler hoists every local load
// and runs out of registers (254 on an H100/H200, one work-group per SM); partly unrolled keeps two.
#ifndef UNROLL_K
#define UNROLL_K TK
#endif
#define GEMM_PRAGMA(x) _Pragma(#x)
#define GEMM_UNROLL(n) GEMM_PRAGMA(unroll n)

#if PORTACL_DOUBLE
typedef double4 realv;
#else
typedef float4 realv;
#endif
#define VLOAD vload4
#define VSTORE vstore4
#ifndef FULL_TILES
#define FULL_TILES 0
#endif
#ifndef WARP_TILE
#define WARP_TILE 0
#endif

__kernel __attribute__((reqd_work_group_size(RX, RY, 1)))
void gemm_register_blocked(const int M, const int N, const int K, __global const real* A,
                           __global const real* B, __global real* C) {
    // Rows padded by 4 elements: the transposed stores into As then spread over the banks instead of
    // all landing in one, and every row still starts on a 16-byte boundary for the vector loads.
    __local real As[2][TK][TM + 4];
    __local real Bs[2][TK][TN + 4];
    const int tid = get_local_id(1) * RX + get_local_id(0);
#if WARP_TILE
    // Each warp of 32 covers 8 x 4 positions of the work-item grid instead of 16 x 2 (or 32 x 1), so
    // that its local-memory loads touch 8 + 4 distinct 4-vectors per step instead of 16 + 2.
    const int lane = tid % 32, warp = tid / 32;
    const int tx = (warp % (RX / 8)) * 8 + lane % 8, ty = (warp / (RX / 8)) * 4 + lane / 8;
#else
    const int tx = get_local_id(0), ty = get_local_id(1);
#endif
    const int row0 = get_group_id(1) * TM, col0 = get_group_id(0) * TN;

    realv acc[WPTM][CN];
    for (int i = 0; i < WPTM; ++i)
        for (int j = 0; j < CN; ++j) acc[i][j] = (realv)(0);

    // Each work-item stages (TM*TK)/THREADS elements of A and (TK*TN)/THREADS of B per K-step,
    // prefetched into registers one step ahead so that global loads overlap the arithmetic.
    const int LA = (TM * TK) / THREADS, LB = (TK * TN) / THREADS;
#if FULL_TILES
    // Every tile lies inside the matrices (the host checked M, N, K): unguarded 4-vector loads.
    realv ra[(TM * TK) / THREADS / 4], rb[(TK * TN) / THREADS / 4];
#define LOAD_TILES(t)                                                                  \
    for (int l = 0; l < LA / 4; ++l) {                                                 \
        const int idx = tid + l * THREADS, m = idx / (TK / 4), k4 = idx % (TK / 4);   \
        ra[l] = VLOAD(0, A + (size_t)(row0 + m) * K + (t) + k4 * 4);                   \
    }                                                                                  \
    for (int l = 0; l < LB / 4; ++l) {                                                 \
        const int idx = tid + l * THREADS, k = idx / (TN / 4), n4 = idx % (TN / 4);   \
        rb[l] = VLOAD(0, B + (size_t)((t) + k) * N + col0 + n4 * 4);                   \
    }
#define STORE_TILES(buf)                                                               \
    for (int l = 0; l < LA / 4; ++l) {                                                 \
        const int idx = tid + l * THREADS, m = idx / (TK / 4), k = (idx % (TK / 4)) * 4; \
        As[buf][k + 0][m] = ra[l].s0;                                                  \
        As[buf][k + 1][m] = ra[l].s1;                                                  \
        As[buf][k + 2][m] = ra[l].s2;                                                  \
        As[buf][k + 3][m] = ra[l].s3;                                                  \
    }                                                                                  \
    for (int l = 0; l < LB / 4; ++l) {                                                 \
        const int idx = tid + l * THREADS;                                             \
        VSTORE(rb[l], 0, &Bs[buf][idx / (TN / 4)][(idx % (TN / 4)) * 4]);              \
    }
#else
    real ra[(TM * TK) / THREADS], rb[(TK * TN) / THREADS];
#define LOAD_TILES(t)                                                                  \
    for (int l = 0; l < LA; ++l) {                                                     \
        const int idx = tid + l * THREADS, m = idx / TK, k = idx % TK;                 \
        const int gr = row0 + m, gk = (t) + k;                                         \
        ra[l] = (gr < M && gk < K) ? A[(size_t)gr * K + gk] : (real)0;                 \
    }                                                                                  \
    for (int l = 0; l < LB; ++l) {                                                     \
        const int idx = tid + l * THREADS, k = idx / TN, n = idx % TN;                 \
        const int gk = (t) + k, gc = col0 + n;                                         \
        rb[l] = (gk < K && gc < N) ? B[(size_t)gk * N + gc] : (real)0;                 \
    }
#define STORE_TILES(buf)                                                               \
    for (int l = 0; l < LA; ++l) {                                                     \
        const int idx = tid + l * THREADS;                                             \
        As[buf][idx % TK][idx / TK] = ra[l];                                           \
    }                                                                                  \
    for (int l = 0; l < LB; ++l) {                                                     \
        const int idx = tid + l * THREADS;                                             \
        Bs[buf][idx / TN][idx % TN] = rb[l];                                           \
    }
#endif

    LOAD_TILES(0)
    STORE_TILES(0)
    barrier(CLK_LOCAL_MEM_FENCE);
    int buf = 0;
    for (int t = 0; t < K; t += TK) {
        const int next = t + TK;
        if (next < K) { LOAD_TILES(next) }
        GEMM_UNROLL(UNROLL_K)
        for (int k = 0; k < TK; ++k) {
            realv a[CM], b[CN];
            for (int i = 0; i < CM; ++i) a[i] = VLOAD(0, &As[buf][k][i * (TM / CM) + ty * 4]);
            for (int j = 0; j < CN; ++j) b[j] = VLOAD(0, &Bs[buf][k][j * (TN / CN) + tx * 4]);
            for (int i = 0; i < CM; ++i) {
                acc[i * 4 + 0][0] = mad((realv)(a[i].s0), b[0], acc[i * 4 + 0][0]);
                acc[i * 4 + 1][0] = mad((realv)(a[i].s1), b[0], acc[i * 4 + 1][0]);
                acc[i * 4 + 2][0] = mad((realv)(a[i].s2), b[0], acc[i * 4 + 2][0]);
                acc[i * 4 + 3][0] = mad((realv)(a[i].s3), b[0], acc[i * 4 + 3][0]);
                for (int j = 1; j < CN; ++j) {
                    acc[i * 4 + 0][j] = mad((realv)(a[i].s0), b[j], acc[i * 4 + 0][j]);
                    acc[i * 4 + 1][j] = mad((realv)(a[i].s1), b[j], acc[i * 4 + 1][j]);
                    acc[i * 4 + 2][j] = mad((realv)(a[i].s2), b[j], acc[i * 4 + 2][j]);
                    acc[i * 4 + 3][j] = mad((realv)(a[i].s3), b[j], acc[i * 4 + 3][j]);
                }
            }
        }
        if (next < K) {
            buf ^= 1;
            STORE_TILES(buf)
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int i = 0; i < WPTM; ++i) {
        const int r = row0 + (i / 4) * (TM / CM) + ty * 4 + (i % 4);
        if (r >= M) continue;
        for (int j = 0; j < CN; ++j) {
            const int c = col0 + j * (TN / CN) + tx * 4;
            __global real* out = C + (size_t)r * N + c;
            const realv v = acc[i][j];
            if (FULL_TILES) {
                VSTORE(v, 0, out);
            } else if (c + 3 < N) {
                out[0] = v.s0; out[1] = v.s1; out[2] = v.s2; out[3] = v.s3;
            } else {
                if (c < N) out[0] = v.s0;
                if (c + 1 < N) out[1] = v.s1;
                if (c + 2 < N) out[2] = v.s2;
            }
        }
    }
}
