// The register-blocked matrix product shaped for CPUs (the [gemm] cpu_block_m profile key): one
// work-item per block of CPU_ROWS rows x CPU_VECTORS vectors of C, work-groups of one. The block's
// accumulators stay in vector registers over the whole of K; each step of K loads CPU_VECTORS
// vectors of a row of B and broadcasts CPU_ROWS elements of A, so that a vector unit does
// CPU_ROWS x CPU_VECTORS fused multiply-adds per CPU_VECTORS loads. No local memory, no barriers:
// a CPU runtime runs a work-group of one as a plain loop, where the GPU kernel's (gemm.cl) tiles and
// barriers cost it more than they save. VL, the vector's elements, is the device's native width.
#include "common/real.h"

#ifndef CPU_ROWS
#define CPU_ROWS 6
#endif
#ifndef CPU_VECTORS
#define CPU_VECTORS 2
#endif
#ifndef VL
#define VL 8
#endif

#define GEMM_CAT(a, b) a##b
#define GEMM_VEC(t, n) GEMM_CAT(t, n)
#define GEMM_VLOAD(n) GEMM_CAT(vload, n)
#define GEMM_VSTORE(n) GEMM_CAT(vstore, n)
typedef GEMM_VEC(REAL, VL) realw;
#define NR (CPU_VECTORS * VL)

__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void gemm_cpu_blocked(const int M, const int N, const int K, __global const real* restrict A,
                      __global const real* restrict B, __global real* restrict C) {
    const int j0 = get_global_id(0) * NR, i0 = get_global_id(1) * CPU_ROWS;
    const int rows = min(CPU_ROWS, M - i0), columns = min(NR, N - j0);
    realw acc[CPU_ROWS][CPU_VECTORS];
    for (int i = 0; i < CPU_ROWS; ++i)
        for (int v = 0; v < CPU_VECTORS; ++v) acc[i][v] = (realw)(0);
    __global const real* a = A + (size_t)i0 * K;
    if (rows == CPU_ROWS && columns == NR) {
        for (int k = 0; k < K; ++k) {
            __global const real* b = B + (size_t)k * N + j0;
            realw bv[CPU_VECTORS];
            for (int v = 0; v < CPU_VECTORS; ++v) bv[v] = GEMM_VLOAD(VL)(v, b);
            for (int i = 0; i < CPU_ROWS; ++i) {
                const realw ai = (realw)(a[(size_t)i * K + k]);
                for (int v = 0; v < CPU_VECTORS; ++v) acc[i][v] = mad(ai, bv[v], acc[i][v]);
            }
        }
        for (int i = 0; i < CPU_ROWS; ++i)
            for (int v = 0; v < CPU_VECTORS; ++v) GEMM_VSTORE(VL)(acc[i][v], v, C + (size_t)(i0 + i) * N + j0);
        return;
    }
    // A block across the matrix's last rows or columns: the elements outside it are read as zeros
    // and never written.
    for (int k = 0; k < K; ++k) {
        __global const real* b = B + (size_t)k * N + j0;
        realw bv[CPU_VECTORS];
        for (int v = 0; v < CPU_VECTORS; ++v) {
            real e[VL];
            for (int l = 0; l < VL; ++l) e[l] = v * VL + l < columns ? b[v * VL + l] : (real)0;
            bv[v] = GEMM_VLOAD(VL)(0, e);
        }
        for (int i = 0; i < rows; ++i) {
            const realw ai = (realw)(a[(size_t)i * K + k]);
            for (int v = 0; v < CPU_VECTORS; ++v) acc[i][v] = mad(ai, bv[v], acc[i][v]);
        }
    }
    for (int i = 0; i < rows; ++i)
        for (int v = 0; v < CPU_VECTORS; ++v) {
            real e[VL];
            GEMM_VSTORE(VL)(acc[i][v], 0, e);
            for (int l = 0; l < VL; ++l)
                if (v * VL + l < columns) C[(size_t)(i0 + i) * N + j0 + v * VL + l] = e[l];
        }
}
