// C = A * B on NVIDIA's tensor cores (compute capability 8.0 and up) through inline PTX mma.sync: one
// body, two kernels, chosen by the precision the host builds it in (PORTACL_DOUBLE):
// - gemm_dmma, double: the FP64 tensor cores, each 16 x 8 x MMA_K block one mma.sync (two m8n8k4
//   before compute capability 9.0, MMA_M16 = 0).
// - gemm_3xtf32, float, error-compensated TF32 ("3xTF32"): every operand x is split once, as its tile
//   is staged, into big = tf32(x) and small = tf32(x - big), tf32 rounding to nearest with ties away
//   from zero to 10 fraction bits (cvt.rna.tf32.f32). Each 16 x 8 x 8 block is then three m16n8k8
//   products accumulated in float, small*big, big*small and big*big; small*small, below 2^-22 |a*b|,
//   is left out. Its serial reference is gemmReference3xTf32 (host/gemm/reference_3xtf32.cpp).
// Row-major A (M x K), B (K x N), C (M x N); every size, with zeros beyond the edges.
//
// A work-group of WARPS_M x WARPS_N warps computes a BM x BN block of C, each warp a
// (BM / WARPS_M) x (BN / WARPS_N) part of it as 16 x 8 fragments. K advances BK at a time through
// two local tiles: the next step's operands are read into registers while the current one is
// multiplied. The tiles hold 8 bytes an element (a double, or a float's big and small TF32 parts side
// by side), stored K-major and padded by 4 elements, so that the fragment reads of a half-warp (rows
// g = lane / 4, columns t = lane % 4) fall in 16 different 8-byte banks.
//
// STAGES > 0 stages the tiles instead with cp.async (compute capability 8.0 and up): each work-item
// copies its elements from global to local memory without passing them through registers, STAGES
// K-steps in flight, one barrier per step. Those tiles hold the operands as they are (a float is split
// into its TF32 parts as its fragment is read, not as it is staged), unpadded (three stages of
// 128 x 128 x 8 doubles fill the 48 KiB NVIDIA's OpenCL gives a work-group) and XOR-swizzled instead:
// A is stored M-major (row m's K elements contiguous, as global memory has them) with K index k at
// k ^ A_SWIZZLE(m), B K-major with column n at n ^ B_SWIZZLE(k); both move whole 4-element groups,
// so that the fragment reads of a warp fall in different banks.
//
// MMA_PTX = 1 (the host's choice on NVIDIA GPUs) issues the instructions; without it each mma.sync
// is computed through local memory from the same fragments, so that the tiling, staging, splitting
// and edges run, and are tested, on any device (tests/test_gemm_3xtf32.cpp, on PoCL).
#ifndef PORTACL_DOUBLE
#define PORTACL_DOUBLE 0
#endif
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 8
#endif
#ifndef WARPS_M
#define WARPS_M 4
#endif
#ifndef WARPS_N
#define WARPS_N 2
#endif
#ifndef MMA_K  // K of one instruction: double 4, 8 or 16 (8 and 16 from compute capability 9.0); float 8
#define MMA_K (PORTACL_DOUBLE ? 4 : 8)
#endif
#ifndef MMA_M16  // double: one m16n8k4 (compute capability 9.0) instead of two m8n8k4
#define MMA_M16 0
#endif
#ifndef MMA_PTX
#define MMA_PTX 0
#endif
#ifndef STAGES  // 0: register staging into two padded tiles; 2 to 4: cp.async stages
#define STAGES 0
#endif

// Double for the FP64 kernel, and for the emulated TF32 instruction's sums where the device has it.
#if PORTACL_DOUBLE || (!MMA_PTX && defined(cl_khr_fp64))
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if PORTACL_DOUBLE
typedef double real;
typedef double staged;  // a staged operand: the double itself
#else
typedef float real;
typedef uint2 staged;  // a staged operand: its big (x) and small (y) TF32 parts, as a float's bits
#endif

#define WTM (BM / WARPS_M)
#define WTN (BN / WARPS_N)
#define FRAG_M (WTM / 16)
#define FRAG_N (WTN / 8)
#define THREADS (WARPS_M * WARPS_N * 32)
#define LDA (BM + 4)
#define LDB (BN + 4)
#define A_LOADS (BM * BK / THREADS)
#define B_LOADS (BK * BN / THREADS)

#if BM % (16 * WARPS_M) || BN % (8 * WARPS_N) || BK % MMA_K || (BM * BK) % THREADS || (BK * BN) % THREADS
#error "gemm_mma: the tiles do not split into warps' fragments and loads"
#endif
#if !PORTACL_DOUBLE && MMA_K != 8
#error "gemm_mma: the 3xTF32 product multiplies 16 x 8 x 8 blocks (MMA_K = 8)"
#endif
#if STAGES && (STAGES < 2 || STAGES > 4 || (BK != 4 && BK != 8 && BK != 16 && (PORTACL_DOUBLE || BK != 32)) || BN % (PORTACL_DOUBLE ? 16 : 32))
#error "gemm_mma: cp.async staging takes 2 to 4 stages, K-steps of 4, 8 or 16 (float also 32) and tensor_n a multiple of 16 (float 32)"
#endif

// The fragments of one 16 x 8 x MMA_K block (lane = 4g + t), as the PTX ISA lays out m16n8k4, k8 and
// k16 (m8n8k4: the first 8 rows): a[2s + h] holds row g + 8h, column t + 4s of A; b[s] row t + 4s,
// column g of B; c[2h + e] row g + 8h, column 2t + e of C.

#if !PORTACL_DOUBLE
// x rounded to TF32 as a float's bits: round to nearest, ties away from zero, at 10 fraction bits.
// The 13 low bits are cleared whatever the instruction leaves there, so the bits are a float.
inline uint tf32(float x) {
#if MMA_PTX
    uint r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r & 0xffffe000u;
#else
    // Half a TF32 unit added to the magnitude, then cut: a carry rounds up into the exponent (to
    // infinity beyond the largest float); infinities and NaNs are kept.
    return isfinite(x) ? (as_uint(x) + 0x1000u) & 0xffffe000u : as_uint(x);
#endif
}
#endif

// What the local tiles hold for an operand x: the double itself, or x's two TF32 parts (once per
// element, as the tile is staged, not per product). x - big is exact in float.
#if PORTACL_DOUBLE
inline staged split(double x) { return x; }
#else
inline staged split(float x) {
    const uint big = tf32(x);
    return (uint2)(big, tf32(x - as_float(big)));
}
#endif

#if MMA_PTX
#if PORTACL_DOUBLE && MMA_K == 16
inline void mma(double* c, const double* a, const double* b) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
                 "{%12,%13,%14,%15}, {%16,%17,%18,%19};"
                 : "=d"(c[0]), "=d"(c[1]), "=d"(c[2]), "=d"(c[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                   "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]), "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]));
}
#elif PORTACL_DOUBLE && MMA_K == 8
inline void mma(double* c, const double* a, const double* b) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};"
                 : "=d"(c[0]), "=d"(c[1]), "=d"(c[2]), "=d"(c[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]), "d"(c[0]), "d"(c[1]),
                   "d"(c[2]), "d"(c[3]));
}
#elif PORTACL_DOUBLE && MMA_M16
inline void mma(double* c, const double* a, const double* b) {
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=d"(c[0]), "=d"(c[1]), "=d"(c[2]), "=d"(c[3])
                 : "d"(a[0]), "d"(a[1]), "d"(b[0]), "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]));
}
#elif PORTACL_DOUBLE
inline void mma(double* c, const double* a, const double* b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(c[0]), "=d"(c[1])
                 : "d"(a[0]), "d"(b[0]), "d"(c[0]), "d"(c[1]));
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(c[2]), "=d"(c[3])
                 : "d"(a[1]), "d"(b[0]), "d"(c[2]), "d"(c[3]));
}
#else
// a and b: TF32 parts (4 and 2 .b32 registers), c: 4 .f32 accumulators.
inline void mma(float* c, const uint* a, const uint* b) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};"
                 : "=f"(c[0]), "=f"(c[1]), "=f"(c[2]), "=f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
                   "f"(c[2]), "f"(c[3]));
}
#endif

// c += a * b for one 16 x 8 x MMA_K block of staged fragments: one instruction in double; in float
// the three TF32 products, the small parts first (they are the smallest terms), into a block sum
// that starts from zero and is then added to c. The tensor cores' float accumulation truncates
// (Fasi, Higham, Mikaitis and Pranesh, PeerJ Comput. Sci. 7:e330, 2021), so accumulating the whole
// of K in the instruction would bias c by about a unit in the last place per block; the block sums
// are small and the additions to c round to nearest.
inline void multiply(real* c, const staged* a, const staged* b) {
#if PORTACL_DOUBLE
    mma(c, a, b);
#else
    const uint a_big[4] = {a[0].x, a[1].x, a[2].x, a[3].x}, a_small[4] = {a[0].y, a[1].y, a[2].y, a[3].y};
    const uint b_big[2] = {b[0].x, b[1].x}, b_small[2] = {b[0].y, b[1].y};
    float block[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    mma(block, a_small, b_big);
    mma(block, a_big, b_small);
    mma(block, a_big, b_big);
    for (int e = 0; e < 4; ++e) c[e] += block[e];
#endif
}

// A warp's step of MMA_K along K: every fragment of A times every fragment of B.
inline void multiply_warp_tile(real acc[FRAG_M][FRAG_N][4], const staged a[FRAG_M][MMA_K / 2],
                               const staged b[FRAG_N][MMA_K / 4], __local real* scratch) {
#pragma unroll
    for (int i = 0; i < FRAG_M; ++i)
#pragma unroll
        for (int j = 0; j < FRAG_N; ++j) multiply(acc[i][j], a[i], b[j]);
}

#else  // !MMA_PTX

// The same step computed from the same fragments on any device: the warp's lanes put theirs into its
// scratch, laid out as the instructions read them, then each computes its elements of C. Per 16 x 8
// block, in the instructions' order: double, fused multiply-adds along K; float, for each of the
// three TF32 products (small*big, big*small, big*big) the exact products summed with c in double
// (where the device has it) and rounded to float once, as the serial reference does.
#if PORTACL_DOUBLE
#define PARTS 1
#define PART(v, part) (v)
#else
#define PARTS 2  // big, small
#define PART(v, part) as_float((part) ? (v).y : (v).x)
#endif
#define SCRATCH_A (16 * MMA_K)  // one A block, row-major
#define SCRATCH_B (MMA_K * 8)   // one B block, row-major
#define MMA_SCRATCH (PARTS * (FRAG_M * SCRATCH_A + FRAG_N * SCRATCH_B))
inline void multiply_warp_tile(real acc[FRAG_M][FRAG_N][4], const staged a[FRAG_M][MMA_K / 2],
                               const staged b[FRAG_N][MMA_K / 4], __local real* scratch) {
    const int lane = get_local_id(0) & 31, g = lane >> 2, t = lane & 3;
    __local real* sa = scratch;                              // [part][i][row][k]
    __local real* sb = scratch + PARTS * FRAG_M * SCRATCH_A;  // [part][j][k][column]
    for (int p = 0; p < PARTS; ++p)
        for (int s = 0; s < MMA_K / 4; ++s) {
            for (int i = 0; i < FRAG_M; ++i) {
                __local real* block = sa + (p * FRAG_M + i) * SCRATCH_A;
                block[g * MMA_K + t + 4 * s] = PART(a[i][2 * s], p);
                block[(g + 8) * MMA_K + t + 4 * s] = PART(a[i][2 * s + 1], p);
            }
            for (int j = 0; j < FRAG_N; ++j) sb[(p * FRAG_N + j) * SCRATCH_B + (t + 4 * s) * 8 + g] = PART(b[j][s], p);
        }
    barrier(CLK_LOCAL_MEM_FENCE);
#if PORTACL_DOUBLE
    const int products = 1, a_part[1] = {0}, b_part[1] = {0};
#else
    const int products = 3, a_part[3] = {1, 0, 0}, b_part[3] = {0, 1, 0};
#endif
    for (int i = 0; i < FRAG_M; ++i)
        for (int j = 0; j < FRAG_N; ++j) {
#if !PORTACL_DOUBLE
            // The block's three products into a sum from zero, then added to c (as with the instructions).
            real block[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#define BLOCK_SUM(e) block[e]
#else
#define BLOCK_SUM(e) acc[i][j][e]
#endif
            for (int q = 0; q < products; ++q) {
                __local const real* ab = sa + (a_part[q] * FRAG_M + i) * SCRATCH_A;
                __local const real* bb = sb + (b_part[q] * FRAG_N + j) * SCRATCH_B;
                for (int h = 0; h < 2; ++h)
                    for (int e = 0; e < 2; ++e) {
                        const int row = g + 8 * h, column = 2 * t + e;
#if PORTACL_DOUBLE
                        double sum = BLOCK_SUM(2 * h + e);
                        for (int k = 0; k < MMA_K; ++k) sum = fma(ab[row * MMA_K + k], bb[k * 8 + column], sum);
                        BLOCK_SUM(2 * h + e) = sum;
#elif defined(cl_khr_fp64)
                        double sum = BLOCK_SUM(2 * h + e);
                        for (int k = 0; k < MMA_K; ++k) sum += (double)ab[row * MMA_K + k] * (double)bb[k * 8 + column];
                        BLOCK_SUM(2 * h + e) = (float)sum;
#else
                        float sum = BLOCK_SUM(2 * h + e);
                        for (int k = 0; k < MMA_K; ++k) sum += ab[row * MMA_K + k] * bb[k * 8 + column];
                        BLOCK_SUM(2 * h + e) = sum;
#endif
                    }
            }
#if !PORTACL_DOUBLE
            for (int e = 0; e < 4; ++e) acc[i][j][e] += block[e];
#endif
#undef BLOCK_SUM
        }
    barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

#if STAGES
// What a stage holds per element: the operand as it is in global memory (a float is split into its
// TF32 parts as its fragment is read), and where element (m, k) of an A tile and (k, n) of a B tile
// lie in the unpadded, swizzled stages. A half-warp's fragment reads (rows g = 0..7 of A and columns
// g of B, K indices t = 0..3) fall in different banks: the XORs move whole groups of four elements.
// Double (8-byte banks, 16 a row): A rows BK doubles apart, B rows BN (a multiple of 16) apart.
// Float (4-byte banks, 32 a row): 32 / BK rows of A share a row of banks, so its groups are XORed by
// the row's place among the 8 rows a warp reads; B rows (BN a multiple of 32) all start at bank 0, so
// column n moves by 8 per K index.
#if PORTACL_DOUBLE
typedef double stored;
#define A_SWIZZLE(m) (BK == 4 ? 0 : BK == 8 ? 4 * (((m) >> 1) & 1) : 4 * ((m) & 3))
#define B_SWIZZLE(k) (4 * ((k) & 3))
#else
typedef float stored;
#define A_SWIZZLE(m) (4 * (((m) / (32 / BK)) & (BK / 4 - 1)))
#define B_SWIZZLE(k) (8 * ((k) & 3))
#endif
#define A_AT(m, k) ((m) * BK + ((k) ^ A_SWIZZLE(m)))
#define B_AT(k, n) ((k) * BN + ((n) ^ B_SWIZZLE(k)))
// COPY_WIDTH (the host's choice): each copy moves that many neighbouring elements of a row, 16 bytes
// (two doubles or four floats) where K and N are multiples of it, so that they are aligned and either
// wholly inside the matrix or wholly outside; else one. The swizzles keep such a group side by side.
#ifndef COPY_WIDTH
#define COPY_WIDTH 1
#endif
#define A_COPIES (BM * BK / COPY_WIDTH / THREADS)
#define B_COPIES (BK * BN / COPY_WIDTH / THREADS)
#if (BM * BK / COPY_WIDTH) % THREADS || (BK * BN / COPY_WIDTH) % THREADS
#error "gemm_mma: the tiles' copies do not split evenly over the work-items"
#endif

// to[0 .. COPY_WIDTH) = inside ? from[0 .. COPY_WIDTH) : 0, asynchronously on NVIDIA through L1
// (cp.async with a source size of 0 fills zeros and reads nothing; `from` is then any valid
// address), at once elsewhere.
#if MMA_PTX
#if COPY_WIDTH * (PORTACL_DOUBLE ? 8 : 4) == 16
#define COPY_ASYNC "cp.async.ca.shared.global [%0], [%1], 16, %2;"
#elif PORTACL_DOUBLE
#define COPY_ASYNC "cp.async.ca.shared.global [%0], [%1], 8, %2;"
#else
#define COPY_ASYNC "cp.async.ca.shared.global [%0], [%1], 4, %2;"
#endif
#endif
inline void copy_async(__local stored* to, __global const stored* from, bool inside) {
#if MMA_PTX
    // A __local pointer's integer value is its offset in the shared window, what .shared addresses take.
    asm volatile(COPY_ASYNC ::"r"((uint)(size_t)to), "l"(from), "r"(inside ? COPY_WIDTH * (int)sizeof(stored) : 0) : "memory");
#else
    for (int e = 0; e < COPY_WIDTH; ++e) to[e] = inside ? from[e] : 0;
#endif
}

// The copies issued since the last commit form one group; wait until at most STAGES - 2 groups, the
// later steps', are still in flight (this work-item's copies only: a barrier follows).
#if MMA_PTX
#define ASYNC_COMMIT() asm volatile("cp.async.commit_group;" ::: "memory")
#if STAGES == 2
#define ASYNC_WAIT() asm volatile("cp.async.wait_group 0;" ::: "memory")
#elif STAGES == 3
#define ASYNC_WAIT() asm volatile("cp.async.wait_group 1;" ::: "memory")
#else
#define ASYNC_WAIT() asm volatile("cp.async.wait_group 2;" ::: "memory")
#endif
#else
#define ASYNC_COMMIT()
#define ASYNC_WAIT()
#endif
#endif

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
#if PORTACL_DOUBLE
void gemm_dmma(const int M, const int N, const int K, __global const double* restrict A,
               __global const double* restrict B, __global double* restrict C)
#else
void gemm_3xtf32(const int M, const int N, const int K, __global const float* restrict A,
                 __global const float* restrict B, __global float* restrict C)
#endif
{
#if STAGES
    __local stored As[STAGES][BM * BK] __attribute__((aligned(16)));  // A_AT(m, k)
    __local stored Bs[STAGES][BK * BN] __attribute__((aligned(16)));  // B_AT(k, n)
#else
    __local staged As[2][BK][LDA];  // As[k][m]: A transposed
    __local staged Bs[2][BK][LDB];  // Bs[k][n]
#endif
    const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wm = (warp / WARPS_N) * WTM, wn = (warp % WARPS_N) * WTN;
    const int row0 = get_group_id(1) * BM, col0 = get_group_id(0) * BN;
#if MMA_PTX
    __local real* const scratch = 0;  // unused: mma.sync exchanges the fragments itself
#else
    __local real scratches[WARPS_M * WARPS_N][MMA_SCRATCH];
    __local real* const scratch = scratches[warp];
#endif

    real acc[FRAG_M][FRAG_N][4];
#pragma unroll
    for (int i = 0; i < FRAG_M; ++i)
#pragma unroll
        for (int j = 0; j < FRAG_N; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0;

#if STAGES
    // Work-item tid copies elements (or groups of COPY_WIDTH) tid, tid + THREADS, ... of the A tile
    // along its rows (BK a row) and of the B tile along its rows (BN a row): each warp's copies cover
    // whole rows of banks.
#define MMA_COPY(k0, to)                                                                          \
    _Pragma("unroll") for (int l = 0; l < A_COPIES; ++l) {                                        \
        const int v = tid + l * THREADS, m = v / (BK / COPY_WIDTH), k = v % (BK / COPY_WIDTH) * COPY_WIDTH; \
        const int r = row0 + m, c = (k0) + k;                                                      \
        const bool inside = r < M && c < K;                                                       \
        copy_async(&As[to][A_AT(m, k)], inside ? A + (size_t)r * K + c : A, inside);              \
    }                                                                                             \
    _Pragma("unroll") for (int l = 0; l < B_COPIES; ++l) {                                        \
        const int v = tid + l * THREADS, k = v / (BN / COPY_WIDTH), n = v % (BN / COPY_WIDTH) * COPY_WIDTH; \
        const int r = (k0) + k, c = col0 + n;                                                      \
        const bool inside = r < K && c < N;                                                       \
        copy_async(&Bs[to][B_AT(k, n)], inside ? B + (size_t)r * N + c : B, inside);              \
    }

    // Steps 0 .. STAGES - 2 in flight; then each step waits for its own, and after the barrier
    // (everyone's copies are in, and everyone has finished reading the previous step's stage) the
    // copies of the step STAGES - 1 ahead go into that stage. Every step commits a group, empty or not,
    // so that the wait counts the same everywhere.
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s * BK < K) { MMA_COPY(s * BK, s) }
        ASYNC_COMMIT();
    }
    int stage = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        ASYNC_WAIT();
        barrier(CLK_LOCAL_MEM_FENCE);
        {
            const int ahead = k0 + (STAGES - 1) * BK, to = stage == 0 ? STAGES - 1 : stage - 1;
            if (ahead < K) { MMA_COPY(ahead, to) }
            ASYNC_COMMIT();
        }
#pragma unroll
        for (int kk = 0; kk < BK; kk += MMA_K) {
            staged a[FRAG_M][MMA_K / 2], b[FRAG_N][MMA_K / 4];
#pragma unroll
            for (int s = 0; s < MMA_K / 4; ++s) {
#pragma unroll
                for (int i = 0; i < FRAG_M; ++i) {
                    a[i][2 * s] = split(As[stage][A_AT(wm + i * 16 + g, kk + t + 4 * s)]);
                    a[i][2 * s + 1] = split(As[stage][A_AT(wm + i * 16 + g + 8, kk + t + 4 * s)]);
                }
#pragma unroll
                for (int j = 0; j < FRAG_N; ++j) b[j][s] = split(Bs[stage][B_AT(kk + t + 4 * s, wn + j * 8 + g)]);
            }
            multiply_warp_tile(acc, a, b, scratch);
        }
        stage = stage == STAGES - 1 ? 0 : stage + 1;
    }
#undef MMA_COPY
#else
    // Work-item tid stages elements tid, tid + THREADS, ... of the A tile along its rows (BK a row)
    // and of the B tile along its rows (BN a row).
    real ra[A_LOADS], rb[B_LOADS];
#define MMA_LOAD(k0)                                                                              \
    _Pragma("unroll") for (int l = 0; l < A_LOADS; ++l) {                                         \
        const int v = tid + l * THREADS, r = row0 + v / BK, c = (k0) + v % BK;                    \
        ra[l] = r < M && c < K ? A[(size_t)r * K + c] : 0;                                        \
    }                                                                                             \
    _Pragma("unroll") for (int l = 0; l < B_LOADS; ++l) {                                         \
        const int v = tid + l * THREADS, r = (k0) + v / BN, c = col0 + v % BN;                   \
        rb[l] = r < K && c < N ? B[(size_t)r * N + c] : 0;                                        \
    }
#define MMA_STORE(buf)                                                                            \
    _Pragma("unroll") for (int l = 0; l < A_LOADS; ++l) {                                         \
        const int v = tid + l * THREADS;                                                          \
        As[buf][v % BK][v / BK] = split(ra[l]);                                                   \
    }                                                                                             \
    _Pragma("unroll") for (int l = 0; l < B_LOADS; ++l) {                                         \
        const int v = tid + l * THREADS;                                                          \
        Bs[buf][v / BN][v % BN] = split(rb[l]);                                                   \
    }

    MMA_LOAD(0)
    MMA_STORE(0)
    barrier(CLK_LOCAL_MEM_FENCE);
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;  // the same for the whole work-group
        if (more) { MMA_LOAD(k0 + BK) }
#pragma unroll
        for (int kk = 0; kk < BK; kk += MMA_K) {
            staged a[FRAG_M][MMA_K / 2], b[FRAG_N][MMA_K / 4];
#pragma unroll
            for (int s = 0; s < MMA_K / 4; ++s) {
#pragma unroll
                for (int i = 0; i < FRAG_M; ++i) {
                    a[i][2 * s] = As[buf][kk + t + 4 * s][wm + i * 16 + g];
                    a[i][2 * s + 1] = As[buf][kk + t + 4 * s][wm + i * 16 + g + 8];
                }
#pragma unroll
                for (int j = 0; j < FRAG_N; ++j) b[j][s] = Bs[buf][kk + t + 4 * s][wn + j * 8 + g];
            }
            multiply_warp_tile(acc, a, b, scratch);
        }
        // The other buffer was last read before the previous barrier: it can be filled now.
        if (more) {
            buf ^= 1;
            MMA_STORE(buf)
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#undef MMA_LOAD
#undef MMA_STORE
#endif

#pragma unroll
    for (int i = 0; i < FRAG_M; ++i)
#pragma unroll
        for (int j = 0; j < FRAG_N; ++j) {
            const int r = row0 + wm + i * 16 + g, c = col0 + wn + j * 8 + 2 * t;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int rr = r + 8 * h;
                if (rr >= M) continue;
                __global real* out = C + (size_t)rr * N + c;
                if (c < N) out[0] = acc[i][j][2 * h];
                if (c + 1 < N) out[1] = acc[i][j][2 * h + 1];
            }
        }
}
