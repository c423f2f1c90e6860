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
// work-item computes WPTM x WPTN outputs held in registers, as (WPTM/4) x (WPTN/4) blocks of 4 x 4
// spread across the block so that neighbouring work-items read neighbouring local-memory vectors.
// Both operands are staged in local memory as 4-vectors along M (A transposed) and N (B), so each
// step of the inner loop reads WPTM/4 + WPTN/4 aligned vectors for WPTM * WPTN multiply-adds.
// Local arrays are declared as vectors and global operands read through vector pointers, not with
// vload4: vload4 only promises element alignment, and NVIDIA's compiler then splits it into scalar
// loads, four times the load instructions in the inner loop.
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
// How far the loop over a tile's K is unrolled. Fully unrolled, NVIDIA's compiler hoists every local
// load and can run out of registers; the profile picks.
#ifndef UNROLL_K
#define UNROLL_K TK
#endif
// Work-items laid out in warps of 8 x 4 (needs RX % 8 == 0 and RY % 4 == 0), so that a warp's local
// loads touch 8 + 4 distinct vectors per step instead of 16 + 2 or 32 + 1.
#ifndef WARP_TILE
#define WARP_TILE 0
#endif
// Two local tiles: the next K-step is stored into the other one while this one is read, one barrier
// per K-step. With 0, one tile and two barriers (half the local memory).
#ifndef DOUBLE_BUFFER
#define DOUBLE_BUFFER 1
#endif
// Set by the host from the sizes: every block lies inside the matrices (no guards at all); rows of A
// (K % 4 == 0) and of B and C (N % 4 == 0) start on 4-vector boundaries (vector global access).
#ifndef FULL_TILES
#define FULL_TILES 0
#endif
#ifndef VEC_A
#define VEC_A 0
#endif
#ifndef VEC_B
#define VEC_B 0
#endif

#define RX (TN / WPTN)
#define RY (TM / WPTM)
#define THREADS (RX * RY)
#define CM (WPTM / 4)
#define CN (WPTN / 4)
// Local rows in 4-vectors, padded by one: the transposed scalar stores into As then spread over the
// banks, and every row still starts on a vector boundary.
#define LDA_V (TM / 4 + 1)
#define LDB_V (TN / 4 + 1)
#define NBUF (DOUBLE_BUFFER ? 2 : 1)
// 4-vectors of A and of B each work-item stages per K-step.
#define A_VECS ((TM * TK / 4) / THREADS)
#define B_VECS ((TK * TN / 4) / THREADS)

#define GEMM_PRAGMA(x) _Pragma(#x)
#define GEMM_UNROLL(n) GEMM_PRAGMA(unroll n)

#if PORTACL_DOUBLE
typedef double4 realv;
#else
typedef float4 realv;
#endif

// Four consecutive elements of row `r` of a rows x cols matrix from column `c` (c % 4 == 0);
// zeros outside the matrix.
inline realv gemm_load4(__global const real* restrict X, const int rows, const int cols, const int r, const int c,
                        const int vectorRows) {
    __global const real* p = X + (size_t)r * cols + c;
    if (FULL_TILES) return *(__global const realv*)p;
    if (vectorRows) return (r < rows && c < cols) ? *(__global const realv*)p : (realv)(0);
    realv v = (realv)(0);
    if (r < rows) {
        if (c < cols) v.s0 = p[0];
        if (c + 1 < cols) v.s1 = p[1];
        if (c + 2 < cols) v.s2 = p[2];
        if (c + 3 < cols) v.s3 = p[3];
    }
    return v;
}

__kernel __attribute__((reqd_work_group_size(RX, RY, 1)))
void gemm_register_blocked(const int M, const int N, const int K, __global const real* restrict A,
                           __global const real* restrict B, __global real* restrict C) {
    __local realv As[NBUF][TK][LDA_V];  // As[k][m / 4]: A transposed
    __local realv Bs[NBUF][TK][LDB_V];  // Bs[k][n / 4]
    const int tid = get_local_id(1) * RX + get_local_id(0);
#if WARP_TILE
    const int lane = tid % 32, warp = tid / 32;
    const int tx = (warp % (RX / 8)) * 8 + lane % 8, ty = (warp / (RX / 8)) * 4 + lane / 8;
#else
    const int tx = get_local_id(0), ty = get_local_id(1);
#endif
    const int row0 = get_group_id(1) * TM, col0 = get_group_id(0) * TN;

    realv acc[WPTM][CN];
#pragma unroll
    for (int i = 0; i < WPTM; ++i)
#pragma unroll
        for (int j = 0; j < CN; ++j) acc[i][j] = (realv)(0);

    // The next K-step's operands, loaded into registers while the current step is computed. Work-item
    // `tid` stages vectors tid, tid + THREADS, ...: A along its rows (TK/4 vectors a row), B along its
    // rows (TN/4 vectors a row), so that a warp reads whole segments of global memory.
    realv ra[A_VECS], rb[B_VECS];
#define GEMM_LOAD(t)                                                                              \
    _Pragma("unroll") for (int l = 0; l < A_VECS; ++l) {                                          \
        const int v = tid + l * THREADS;                                                          \
        ra[l] = gemm_load4(A, M, K, row0 + v / (TK / 4), (t) + (v % (TK / 4)) * 4, VEC_A);        \
    }                                                                                             \
    _Pragma("unroll") for (int l = 0; l < B_VECS; ++l) {                                          \
        const int v = tid + l * THREADS;                                                          \
        rb[l] = gemm_load4(B, K, N, (t) + v / (TN / 4), col0 + (v % (TN / 4)) * 4, VEC_B);        \
    }
#define GEMM_STORE(buf)                                                                           \
    _Pragma("unroll") for (int l = 0; l < A_VECS; ++l) {                                          \
        const int v = tid + l * THREADS, m = v / (TK / 4), k = (v % (TK / 4)) * 4;                \
        __local real* a = (__local real*)As[buf][k];                                              \
        a[m] = ra[l].s0;                                                                          \
        a[4 * LDA_V + m] = ra[l].s1;                                                              \
        a[8 * LDA_V + m] = ra[l].s2;                                                              \
        a[12 * LDA_V + m] = ra[l].s3;                                                             \
    }                                                                                             \
    _Pragma("unroll") for (int l = 0; l < B_VECS; ++l) {                                          \
        const int v = tid + l * THREADS;                                                          \
        Bs[buf][v / (TN / 4)][v % (TN / 4)] = rb[l];                                              \
    }

    GEMM_LOAD(0)
    GEMM_STORE(0)
    barrier(CLK_LOCAL_MEM_FENCE);
    int buf = 0;
    for (int t = 0; t < K; t += TK) {
        const bool more = t + TK < K;  // the same for the whole work-group
        if (more) { GEMM_LOAD(t + TK) }
        GEMM_UNROLL(UNROLL_K)
        for (int k = 0; k < TK; ++k) {
            realv a[CM], b[CN];
#pragma unroll
            for (int i = 0; i < CM; ++i) a[i] = As[buf][k][i * RY + ty];
#pragma unroll
            for (int j = 0; j < CN; ++j) b[j] = Bs[buf][k][j * RX + tx];
#pragma unroll
            for (int i = 0; i < CM; ++i)
#pragma unroll
                for (int j = 0; j < CN; ++j) {
                    acc[i * 4 + 0][j] = mad((realv)(a[i].s0), b[j], acc[i * 4 + 0][j]);
                    acc[i * 4 + 1][j] = mad((realv)(a[i].s1), b[j], acc[i * 4 + 1][j]);
                    acc[i * 4 + 2][j] = mad((realv)(a[i].s2), b[j], acc[i * 4 + 2][j]);
                    acc[i * 4 + 3][j] = mad((realv)(a[i].s3), b[j], acc[i * 4 + 3][j]);
                }
        }
#if DOUBLE_BUFFER
        if (more) {
            buf ^= 1;
            GEMM_STORE(buf)
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#else
        barrier(CLK_LOCAL_MEM_FENCE);
        if (more) {
            GEMM_STORE(0)
            barrier(CLK_LOCAL_MEM_FENCE);
        }
#endif
    }
#undef GEMM_LOAD
#undef GEMM_STORE

#pragma unroll
    for (int i = 0; i < WPTM; ++i) {
        const int r = row0 + (i / 4) * (4 * RY) + ty * 4 + i % 4;
#if !FULL_TILES
        if (r >= M) continue;
#endif
#pragma unroll
        for (int j = 0; j < CN; ++j) {
            const int c = col0 + j * (4 * RX) + tx * 4;
            __global real* out = C + (size_t)r * N + c;
            const realv v = acc[i][j];
#if FULL_TILES
            *(__global realv*)out = v;
#else
            if (VEC_B) {
                if (c < N) *(__global realv*)out = v;
            } else {
                if (c < N) out[0] = v.s0;
                if (c + 1 < N) out[1] = v.s1;
                if (c + 2 < N) out[2] = v.s2;
                if (c + 3 < N) out[3] = v.s3;
            }
#endif
        }
    }
}
