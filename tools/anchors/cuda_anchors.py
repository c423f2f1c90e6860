#!/usr/bin/env python3
"""Measures the CUDA anchors that the issues compare PortaCL with, on the same GPU and in the same run
as `portacl bench`: cuBLAS SGEMM/DGEMM 4096^3 and cuFFT 256^3 R2C+C2R (float, cached plans), via CuPy.
Prints one line per figure. Needs CuPy (present on the GPU machine, not a PortaCL dependency)."""
import sys

try:
    import cupy as cp
except ImportError:
    sys.exit("cuda_anchors: CuPy is not installed here")


def time_ms(fn, repeats=10, warmups=3):
    for _ in range(warmups):
        fn()
    cp.cuda.Device().synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(repeats):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    times.sort()
    return times[len(times) // 2]


n = 4096
for dtype, name in ((cp.float32, "SGEMM"), (cp.float64, "DGEMM")):
    a = cp.random.rand(n, n).astype(dtype)
    b = cp.random.rand(n, n).astype(dtype)
    ms = time_ms(lambda: a @ b)
    print(f"cuBLAS {name} {n}^3: {ms:.3f} ms, {2 * n**3 / ms / 1e9:.1f} TFLOP/s")

x = cp.random.rand(256, 256, 256).astype(cp.float32)
ms = time_ms(lambda: cp.fft.irfftn(cp.fft.rfftn(x), s=x.shape))
print(f"cuFFT 256^3 R2C+C2R float: {ms:.3f} ms")
a = cp.empty(1 << 28, dtype=cp.float32)
b = cp.empty_like(a)
ms = time_ms(lambda: cp.copyto(b, a))
print(f"device copy 2^28 float: {ms:.3f} ms, {2 * a.nbytes / ms / 1e6:.0f} GB/s (read+write)")
