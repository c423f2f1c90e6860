// Crashes the compiler of Intel's OpenCL CPU runtime 2026.2 (intel-opencl-rt 2026.2.0, driver
// 2026.22.10.0.01_160000) with a segmentation fault in LLVM's "Early Machine Loop Invariant Code
// Motion" pass: the median of a 5x5 window by forgetful selection, a fully unrolled chain of
// integer min/max compare-exchanges. N = 15 compiles; float values instead of int compile;
// -cl-opt-disable compiles. PoCL 3.1 and Mesa 22.3's rusticl compile it.
#define CSWAP(a, b) { const int t_ = min(a, b); b = max(a, b); a = t_; }
#define N 25
#define R (N / 2 + 2)
__kernel void median5(__global const uchar* src, __global uchar* dst, int w) {
    const int x = get_global_id(0), y = get_global_id(1);
    int buf[R];
#pragma unroll
    for (int i = 0; i < R; ++i) buf[i] = src[(y + i / 5) * w + x + i % 5];
#pragma unroll
    for (int k = R; k < N; ++k) {
        const int lo = k - R;
#pragma unroll
        for (int i = lo + 1; i < R; ++i) CSWAP(buf[lo], buf[i]);
#pragma unroll
        for (int i = lo + 1; i < R - 1; ++i) CSWAP(buf[i], buf[R - 1]);
        buf[R - 1] = src[(y + k / 5) * w + x + k % 5];
    }
    dst[y * w + x] = (uchar)max(min(buf[R - 3], buf[R - 2]), min(max(buf[R - 3], buf[R - 2]), buf[R - 1]));
}
