#!/usr/bin/env python3
"""Checks issue 3's performance goals from one run's files: the CSV of `portacl bench --only filter
--csv FILE` and the output of `tools/anchors/opencv_filter_anchors.py`, both measured in the same run
on the same GPU. The goals: every operation OpenCV has at least 2x faster than OpenCV's OpenCL path,
and the bandwidth-bound operations (the 3x3 masks and the 1-D separable passes) at 60 % or more of
the copy bandwidth the bench measured. Prints one line per check and exits 1 when one fails, 2 when
an input is missing or unreadable.

usage: python3 tools/anchors/filter_goals.py BENCH.csv OPENCV.txt"""
import csv
import re
import sys

# The bench's workload names (filter/<name>) of the bandwidth-bound operations.
BANDWIDTH_BOUND = ["box:3", "row pass:9x1 box", "column pass:1x9 binomial", "sobel", "scharr", "laplace:4:3"]
# OpenCV's case names (opencv_filter_anchors.py) and the bench's names for the same operation.
OPENCV_CASES = {
    "box 3x3": "box:3",
    "box 9x9": "box:9",
    "filter2D 9x9": "filter2D:9x9",
    "row pass 9x1 box": "row pass:9x1 box",
    "column pass 1x9 binomial": "column pass:1x9 binomial",
    "median 3x3": "median:3",
    "median 5x5": "median:5",
    "sobel |dx|+|dy|": "sobel",
    "gaussian 9x9 s2": "gaussian:9:2.0",
}


def fail(message):
    print(f"filter_goals: {message}", file=sys.stderr)
    sys.exit(2)


def read_bench(path):
    """{name: (seconds, percent of the copy peak)} and the device's name."""
    rows, device = {}, None
    try:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row.get("workload", "").startswith("filter/"):
                    rows[row["workload"][len("filter/"):]] = (float(row["seconds"]), float(row["percent_of_peak"]))
                    device = row.get("device")
    except (OSError, KeyError, ValueError) as e:
        fail(f"cannot read the bench CSV {path}: {e}")
    if not rows:
        fail(f"{path} holds no filter rows (was it written by `portacl bench --only filter --csv`?)")
    return rows, device


def read_opencv(path):
    """{OpenCV case: milliseconds} of the OpenCL (UMat) path."""
    times = {}
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r"opencv-ocl (.+) \d+\^2 u8: ([0-9.]+) ms", line.strip())
                if m:
                    times[m.group(1)] = float(m.group(2))
    except OSError as e:
        fail(f"cannot read the OpenCV anchors {path}: {e}")
    if not times:
        fail(f"{path} holds no OpenCL timings (OpenCV saw no OpenCL device?)")
    return times


def main():
    if len(sys.argv) != 3:
        fail("usage: filter_goals.py BENCH.csv OPENCV.txt")
    bench, device = read_bench(sys.argv[1])
    opencv = read_opencv(sys.argv[2])
    print(f"device: {device}")
    ok = True
    for name in BANDWIDTH_BOUND:
        if name not in bench:
            fail(f"the bench CSV has no row filter/{name}")
        seconds, percent = bench[name]
        passed = percent >= 60.0
        ok &= passed
        print(f"{'pass' if passed else 'FAIL'}  {name}: {seconds * 1e6:.1f} us, {percent:.1f} % of the copy peak (goal 60 %)")
    for case, name in OPENCV_CASES.items():
        if case not in opencv or name not in bench:
            fail(f"no timing of {case} on both sides")
        ratio = opencv[case] * 1e-3 / bench[name][0]
        passed = ratio >= 2.0
        ok &= passed
        print(f"{'pass' if passed else 'FAIL'}  {name}: {ratio:.1f}x faster than OpenCV's OpenCL path (goal 2x)")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
