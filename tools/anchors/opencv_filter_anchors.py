#!/usr/bin/env python3
"""OpenCV anchors for the filter benchmark (issue 3), measured on the same machine and in the same run
as `portacl bench --only filter`: 4096x4096 8-bit grey, box 3x3 and 9x9, filter2D 9x9, a 9-tap row and column pass, median 3x3,
5x5, 7x7 and 9x9, Sobel (|dx|+|dy| as two CV_16S Sobel calls and convertScaleAbs, the thesis's operator),
Gaussian 9x9 sigma 2. The OpenCL path (cv2.UMat, image already on the device, cv2.ocl.finish()
after each call, wall time per call) and the CPU path (cv2.Mat, all threads). Prints one line per
figure; the median of the repeats.

usage: python3 tools/anchors/opencv_filter_anchors.py [--side 4096] [--repeats 20] [--threads N]"""
import argparse
import time

import cv2
import numpy as np


def median_ms(fn, repeats, sync):
    for _ in range(3):
        fn()
        sync()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def opencv_cases():
    """The benchmark's operations as OpenCV calls, by name (tools/anchors/cpu_filter_vs_opencv.py
    pairs them with the portacl operations)."""
    mask9 = (1 + (np.add.outer(np.arange(9) * 3, np.arange(9) * 7) % 5)).astype(np.float32)
    mask9 /= mask9.sum()
    binomial9 = (np.array([1, 8, 28, 56, 70, 56, 28, 8, 1], dtype=np.float32) / 256).reshape(9, 1)  # a column

    def sobel(x):
        gx = cv2.Sobel(x, cv2.CV_16S, 1, 0)
        gy = cv2.Sobel(x, cv2.CV_16S, 0, 1)
        return cv2.add(cv2.convertScaleAbs(gx), cv2.convertScaleAbs(gy))

    return {
        "box 3x3": lambda x: cv2.blur(x, (3, 3)),
        "box 9x9": lambda x: cv2.blur(x, (9, 9)),
        "filter2D 9x9": lambda x: cv2.filter2D(x, -1, mask9),
        "row pass 9x1 box": lambda x: cv2.blur(x, (9, 1)),
        "column pass 1x9 binomial": lambda x: cv2.filter2D(x, -1, binomial9),
        "median 3x3": lambda x: cv2.medianBlur(x, 3),
        "median 5x5": lambda x: cv2.medianBlur(x, 5),
        "median 7x7": lambda x: cv2.medianBlur(x, 7),
        "median 9x9": lambda x: cv2.medianBlur(x, 9),
        "sobel |dx|+|dy|": sobel,
        "gaussian 9x9 s2": lambda x: cv2.GaussianBlur(x, (9, 9), 2.0),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--side", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--threads", type=int, default=0, help="OpenCV's CPU threads (default: all)")
    args = ap.parse_args()
    if args.threads > 0:
        cv2.setNumThreads(args.threads)
    rng = np.random.default_rng(7)
    img = rng.integers(0, 256, (args.side, args.side), dtype=np.uint8)
    cases = opencv_cases()
    cv2.ocl.setUseOpenCL(True)
    dev = cv2.ocl.Device.getDefault() if cv2.ocl.haveOpenCL() else None
    if dev is not None and dev.name():  # an empty name: OpenCV found no usable OpenCL device
        print(f"OpenCV {cv2.__version__} OpenCL device: {dev.name()} ({dev.vendorName()})")
        u = cv2.UMat(img)
        for name, fn in cases.items():
            print(f"opencv-ocl {name} {args.side}^2 u8: {median_ms(lambda: fn(u), args.repeats, cv2.ocl.finish):.3f} ms")
    else:
        print(f"OpenCV {cv2.__version__}: no OpenCL device (UMat path not measured)")
    cv2.ocl.setUseOpenCL(False)
    print(f"OpenCV CPU threads: {cv2.getNumThreads()}")
    for name, fn in cases.items():
        print(f"opencv-cpu {name} {args.side}^2 u8: {median_ms(lambda: fn(img), max(3, args.repeats // 4), lambda: None):.3f} ms")


if __name__ == "__main__":
    main()
