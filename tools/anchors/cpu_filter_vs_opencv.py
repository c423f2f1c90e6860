#!/usr/bin/env python3
"""The filters on a CPU OpenCL device beside OpenCV's CPU path on the same cores, in one run.

Each round runs `portacl filter --bench` once on the device (all the operations, every size; device
time per launch, the image already on the device) and then OpenCV on the same operations and sizes
(cv2.Mat, --threads threads, wall time per call), so that a change in the machine's load shows in
both. Prints, per operation and size, the median over the rounds of each and their ratio
(portacl / OpenCV: below 1, portacl is faster), the same for the least of the rounds (the least
disturbed by other work on a shared machine), and the ratio of CPU times (all threads' CPU seconds
per call: portacl's `cpu us` column, OpenCV's process time), which other work on the machine moves
far less than wall times. 8-bit grey images. The operations are
tools/anchors/opencv_filter_anchors.py's (OpenCV) and the `portacl bench` filter cases (portacl).

usage: python3 tools/anchors/cpu_filter_vs_opencv.py [--device pocl] [--threads 2] [--sizes 2048,4096]
           [--rounds 5] [--repeats 7] [--only median,gaussian] [--portacl build/portacl] [--nice 10]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cv2  # noqa: E402
import numpy as np  # noqa: E402
from opencv_filter_anchors import opencv_cases  # noqa: E402

# The bench's user mask (host/filter/filter_bench.cpp convSpec(9)), the same as OpenCV's mask9.
FILTER2D = "conv:" + ";".join(",".join(str(1 + (x * 7 + y * 3) % 5) for x in range(9)) for y in range(9)) + ":sum"
# OpenCV case name -> portacl operation
PAIRS = {
    "box 3x3": "box:3",
    "box 9x9": "box:9",
    "filter2D 9x9": FILTER2D,
    "row pass 9x1 box": "conv:1,1,1,1,1,1,1,1,1:sum",
    "column pass 1x9 binomial": "conv:1;8;28;56;70;56;28;8;1:sum",
    "median 3x3": "median:3",
    "median 5x5": "median:5",
    "median 7x7": "median:7",
    "median 9x9": "median:9",
    "sobel |dx|+|dy|": "sobel",
    "gaussian 9x9 s2": "gaussian:9:2.0",
}


def portacl_times(cli, device, ops, sizes, nice):
    """{(op, side): (ms, cpu ms)} from one `portacl filter --bench` run (cpu ms: NaN where the table
    has no `cpu us` column)."""
    cmd = (["nice", "-n", str(nice)] if nice else []) + [cli, "filter", "--bench", "--device", device, "--bench-sizes",
                                                          ",".join(map(str, sizes))]
    for op in ops:
        cmd += ["--op", op]
    env = dict(os.environ, PORTACL_NO_PROGRESS="1")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(f"portacl failed ({' '.join(cmd)}):\n{out.stderr}")
    times = {}
    # rows: "<op (27 chars)> <side>^2 <alone us> ..."; the op is cut at 27 characters
    for line in out.stdout.splitlines():
        m = re.match(r"^(.{27}) (\d+)\^2\s+([\d.]+)", line)
        if not m:
            continue
        name, side, us = m.group(1).strip(), int(m.group(2)), float(m.group(3))
        last = line.split()[-1]
        cpu = float(last) / 1e3 if "cpu us" in out.stdout and re.match(r"^[\d.]+$", last) else float("nan")
        for op in ops:
            if op[:27] == name:
                times[(op, side)] = (us / 1e3, cpu)
    return times


def opencv_ms(fn, img, repeats):
    """(median wall ms per call, CPU ms per call of all threads)"""
    fn(img)
    ts = []
    c0 = time.process_time()
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(img)
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts), (time.process_time() - c0) * 1e3 / repeats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="pocl")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sizes", default="2048,4096")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=7, help="OpenCV calls timed per round (the median)")
    ap.add_argument("--only", default="", help="comma-separated substrings of the case names")
    ap.add_argument("--portacl", default="build/portacl")
    ap.add_argument("--nice", type=int, default=10)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    names = [n for n in PAIRS if not args.only or any(k in n for k in args.only.split(","))]
    cv2.setNumThreads(args.threads)
    cv2.ocl.setUseOpenCL(False)
    if args.nice:
        os.nice(args.nice)
    cases = opencv_cases()
    rng = np.random.default_rng(7)
    images = {s: rng.integers(0, 256, (s, s), dtype=np.uint8) for s in sizes}
    ours = {(n, s): [] for n in names for s in sizes}
    theirs = {(n, s): [] for n in names for s in sizes}
    ours_cpu = {(n, s): [] for n in names for s in sizes}
    theirs_cpu = {(n, s): [] for n in names for s in sizes}
    for _ in range(args.rounds):
        t = portacl_times(args.portacl, args.device, [PAIRS[n] for n in names], sizes, args.nice)
        for n in names:
            for s in sizes:
                ours[(n, s)].append(t[(PAIRS[n], s)][0])
                ours_cpu[(n, s)].append(t[(PAIRS[n], s)][1])
                wall, cpu = opencv_ms(cases[n], images[s], args.repeats)
                theirs[(n, s)].append(wall)
                theirs_cpu[(n, s)].append(cpu)
    print(f"device {args.device}; OpenCV {cv2.__version__} CPU path on {cv2.getNumThreads()} threads; "
          f"{args.rounds} alternated rounds, their medians and their least; ratio = portacl / OpenCV")
    print(f"{'operation':<26} {'image':>7} {'portacl ms':>11} {'OpenCV ms':>10} {'ratio':>6}   "
          f"{'least: portacl':>14} {'OpenCV':>7} {'ratio':>6}   {'CPU ms: portacl':>15} {'OpenCV':>7} {'ratio':>6}")
    for n in names:
        for s in sizes:
            a, b = statistics.median(ours[(n, s)]), statistics.median(theirs[(n, s)])
            la, lb = min(ours[(n, s)]), min(theirs[(n, s)])
            ca, cb = statistics.median(ours_cpu[(n, s)]), statistics.median(theirs_cpu[(n, s)])
            print(f"{n:<26} {str(s) + '^2':>7} {a:>11.2f} {b:>10.2f} {a / b:>6.2f}   {la:>14.2f} {lb:>7.2f} {la / lb:>6.2f}   "
                  f"{ca:>15.2f} {cb:>7.2f} {ca / cb:>6.2f}")


if __name__ == "__main__":
    main()
