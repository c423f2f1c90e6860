#!/usr/bin/env python3
"""The overhead of a call from Python: the wall time of portacl's functions against the same library
call from C++ (tools/bench/python_overhead.cpp), small and large inputs, on one device. Rounds
alternate C++ and Python; each round is the median of REPEATS calls after two untimed ones, and the
table gives the median round. Then the binding's own cost, the same calls on empty arrays (argument
checks, the context's lookup, the result's allocation, releasing and taking the GIL; no device work),
the median of 20000 calls. Run with the interpreter the package is installed in:

    build/python-venv/bin/python tools/bench/python_overhead.py --device pocl [--build build] [--rounds 3] [--sizes small]

The C++ program is compiled into the build folder on first use (g++, against its libportacl).
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import portacl

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

# (case, size, repeats): the bench's CPU sizes (portacl bench: 2^24 elements, 1024^3, 256^3) and small ones.
CASES = [("vector_sum", 1024, 200), ("vector_sum", 1 << 24, 9),
         ("gemm", 64, 100), ("gemm", 1024, 5),
         ("fft", 16, 100), ("fft", 256, 5)]
SMALL = {"vector_sum": 1024, "gemm": 64, "fft": 16}


def compile_cxx(build):
    exe = os.path.join(build, "python_overhead")
    src = os.path.join(ROOT, "tools", "bench", "python_overhead.cpp")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.run(["g++", "-std=c++17", "-O2", "-I" + os.path.join(ROOT, "include"),
                        "-I" + os.path.join(build, "generated", "include"), src, "-L" + build, "-lportacl",
                        "-lportacl_runtime", "-lOpenCL", "-Wl,-rpath," + os.path.abspath(build), "-o", exe], check=True)
    return exe


def inputs(case, n):
    rng = np.random.default_rng(1)
    if case == "vector_sum":
        return rng.uniform(-1, 1, n).astype(np.float32), rng.uniform(-1, 1, n).astype(np.float32)
    if case == "gemm":
        return rng.uniform(-1, 1, (n, n)).astype(np.float32), rng.uniform(-1, 1, (n, n)).astype(np.float32)
    return ((rng.uniform(-1, 1, (n, n, n)) + 1j * rng.uniform(-1, 1, (n, n, n))).astype(np.complex64),)


def python_seconds(case, args, ctx, repeats):
    call = {"vector_sum": lambda: portacl.vector_sum(*args, ctx=ctx),
            "gemm": lambda: portacl.gemm(*args, ctx=ctx),
            "fft": lambda: portacl.fft.fftn(*args, ctx=ctx)}[case]
    call()
    call()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def empty_call_seconds(ctx, calls=20000):
    """The binding's own cost: calls whose arrays are empty, so that no device work is done."""
    v = np.zeros(0, np.float32)
    a, b = np.zeros((0, 64), np.float32), np.zeros((64, 64), np.float32)
    out = {}
    for name, call in (("vector_sum", lambda: portacl.vector_sum(v, v, ctx=ctx)),
                       ("gemm", lambda: portacl.gemm(a, b, ctx=ctx))):
        for _ in range(200):
            call()
        times = []
        for _ in range(calls):
            t0 = time.perf_counter()
            call()
            times.append(time.perf_counter() - t0)
        out[name] = statistics.median(times)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="auto")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--sizes", choices=["small", "large", "all"], default="all")
    opt = ap.parse_args()
    exe = compile_cxx(opt.build)
    wanted = set(filter(None, opt.cases.split(",")))
    with portacl.Context(opt.device) as ctx:
        print(f"device: {ctx.device.name} ({ctx.device.platform}); {opt.rounds} rounds, C++ and Python alternating\n")
        print("| case | size | C++ (ms) | Python (ms) | overhead |")
        print("| --- | --- | ---: | ---: | ---: |")
        for case, n, repeats in CASES:
            if wanted and case not in wanted:
                continue
            if opt.sizes != "all" and (n == SMALL[case]) != (opt.sizes == "small"):
                continue
            args = inputs(case, n)
            cxx, py = [], []
            for _ in range(opt.rounds):
                out = subprocess.run([exe, ctx.device.index, case, str(n), str(repeats)], check=True,
                                     capture_output=True, text=True).stdout
                cxx.append(float(out))
                py.append(python_seconds(case, args, ctx, repeats))
            c, p = statistics.median(cxx), statistics.median(py)
            size = {"vector_sum": f"{n}", "gemm": f"{n}^3", "fft": f"{n}^3 c2c"}[case]
            print(f"| {case} | {size} | {c * 1e3:.3f} | {p * 1e3:.3f} | {100 * (p - c) / c:+.1f} % |", flush=True)
        fixed = empty_call_seconds(ctx)
        print("\nthe binding's own cost (empty arrays, no device work): " +
              ", ".join(f"{name} {s * 1e6:.2f} us" for name, s in fixed.items()))


if __name__ == "__main__":
    sys.exit(main())
