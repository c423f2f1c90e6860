#!/usr/bin/env python3
"""The overhead of a call from Python: the wall time of portacl's functions against the same library
call from C++ (tools/bench/python_overhead.cpp), small and large inputs, on one device.

The C++ calls run in this process (the C++ side is a shared library loaded through ctypes), so that
both sides share the OpenCL runtime's worker threads and meet the same load: on a CPU device the same
small call takes about 60 us or about 200 us for seconds at a time as other processes take the cores,
and separate processes would compare those spells, not the calls. The loops are interleaved in short
rounds (small inputs: blocks of calls; large ones: one call each), their order rotating, and the
overhead is the median over the rounds of each round's ratio, with its quartiles as the noise.

The loops, each the median of its calls in a round:
- C++ host vectors: the library's std::vector calls (vectorSum, gemm; for the FFT upload, execute and
  download into a std::vector), whose result vector is zero-filled before the download overwrites it;
- C++ steps: the binding's own steps in C++ (device buffers written from the inputs' memory, the
  buffer call, a read into an uninitialised array) on memory allocated as NumPy allocates it (huge
  pages from 4 MiB on): the same work as the Python call, which is measured against it;
- Python: the package's function on NumPy arrays;
- C++ steps with the pause (small inputs): the same, with the Python loop's own time between calls
  (from one call's return to the next call, outside the timed span) spun before each call.
Then the binding's own cost, the same calls on empty arrays (argument checks, the context's lookup,
the result's allocation, releasing and taking the GIL; no device work), the median of 20000 calls.
Run with the interpreter the package is installed in:

    build/python-venv/bin/python tools/bench/python_overhead.py --device pocl [--build build] [--rounds 15] [--sizes small]

The C++ library is compiled into the build folder on first use (g++, against its libportacl).
"""

import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import portacl

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

# (case, size, calls per round): the bench's CPU sizes (portacl bench: 2^24 elements, 1024^3, 256^3)
# and small ones.
CASES = [("vector_sum", 1024, 50), ("vector_sum", 1 << 24, 1),
         ("gemm", 64, 50), ("gemm", 1024, 1),
         ("fft", 16, 50), ("fft", 256, 1)]
SMALL = {"vector_sum": 1024, "gemm": 64, "fft": 16}
# The C++ side's styles (tools/bench/python_overhead.cpp).
HOST_VECTORS, BINDING_STEPS = 0, 1


def load_cxx(build):
    lib = os.path.join(build, "libpython_overhead.so")
    src = os.path.join(ROOT, "tools", "bench", "python_overhead.cpp")
    if not os.path.exists(lib) or os.path.getmtime(lib) < os.path.getmtime(src):
        subprocess.run(["g++", "-std=c++17", "-O2", "-fPIC", "-shared", "-I" + os.path.join(ROOT, "include"),
                        "-I" + os.path.join(build, "generated", "include"), src, "-L" + build, "-lportacl",
                        "-lportacl_runtime", "-lOpenCL", "-Wl,-rpath," + os.path.abspath(build), "-o", lib], check=True)
    cxx = ctypes.CDLL(os.path.abspath(lib))
    cxx.portacl_overhead_seconds.restype = ctypes.c_double
    cxx.portacl_overhead_seconds.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_size_t,
                                             ctypes.c_int, ctypes.c_int, ctypes.c_double]
    cxx.portacl_overhead_error.restype = ctypes.c_char_p

    def seconds(device, case, style, n, warmup, calls, pause_s=0.0):
        s = cxx.portacl_overhead_seconds(device.encode(), case.encode(), style, n, warmup, calls, pause_s * 1e6)
        if s < 0:
            raise RuntimeError(cxx.portacl_overhead_error().decode())
        return s
    return seconds


def inputs(case, n):
    rng = np.random.default_rng(1)
    if case == "vector_sum":
        return rng.uniform(-1, 1, n).astype(np.float32), rng.uniform(-1, 1, n).astype(np.float32)
    if case == "gemm":
        return rng.uniform(-1, 1, (n, n)).astype(np.float32), rng.uniform(-1, 1, (n, n)).astype(np.float32)
    return ((rng.uniform(-1, 1, (n, n, n)) + 1j * rng.uniform(-1, 1, (n, n, n))).astype(np.complex64),)


def python_call(case, args, ctx):
    return {"vector_sum": lambda: portacl.vector_sum(*args, ctx=ctx),
            "gemm": lambda: portacl.gemm(*args, ctx=ctx),
            "fft": lambda: portacl.fft.fftn(*args, ctx=ctx)}[case]


def python_seconds(call, warmup, calls):
    """The median of `calls` timed calls after `warmup` untimed ones, and the median time between
    one call's return and the next call (the loop's own time, outside the timed span)."""
    for _ in range(warmup):
        call()
    starts, ends = [], []
    for _ in range(calls):
        starts.append(time.perf_counter())
        call()
        ends.append(time.perf_counter())
    pauses = [s - e for s, e in zip(starts[1:], ends)]
    return statistics.median(e - s for s, e in zip(starts, ends)), (statistics.median(pauses) if pauses else 0.0)


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


def measure(cxx_seconds, device, case, n, calls, rounds, ctx):
    """Each loop's per-round medians, and the Python loop's pauses, the loops interleaved."""
    call = python_call(case, inputs(case, n), ctx)
    small = n == SMALL[case]
    cxx_seconds(device, case, HOST_VECTORS, n, 2, 1)
    cxx_seconds(device, case, BINDING_STEPS, n, 2, 1)
    python_seconds(call, 2, 1)
    out = {"host": [], "steps": [], "python": [], "paused": [], "pause": []}
    loops = [("host", lambda: cxx_seconds(device, case, HOST_VECTORS, n, 1 if small else 0, calls)),
             ("steps", lambda: cxx_seconds(device, case, BINDING_STEPS, n, 1 if small else 0, calls)),
             ("python", lambda: python_seconds(call, 1 if small else 0, calls))]
    for r in range(rounds):
        for name, loop in loops[r % 3:] + loops[:r % 3]:
            t = loop()
            if name == "python":
                t, pause = t
                out["pause"].append(pause)
                if small:  # the pause matters for calls of microseconds, not of milliseconds
                    out["paused"].append(cxx_seconds(device, case, BINDING_STEPS, n, 1, calls, pause))
            out[name].append(t)
    return out


def overhead(python, cxx):
    """The median over the rounds of Python against C++, and its quartiles."""
    per_round = [100 * (p - c) / c for p, c in zip(python, cxx)]
    q1, q2, q3 = statistics.quantiles(per_round, n=4) if len(per_round) > 1 else per_round * 3
    return f"{statistics.median(per_round):+.1f} % ({q1:+.1f} to {q3:+.1f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="auto")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--sizes", choices=["small", "large", "all"], default="all")
    opt = ap.parse_args()
    cxx_seconds = load_cxx(opt.build)
    wanted = set(filter(None, opt.cases.split(",")))
    with portacl.Context(opt.device) as ctx:
        print(f"device: {ctx.device.name} ({ctx.device.platform}); {opt.rounds} rounds in one process\n")
        print("| case | size | C++ host vectors (ms) | C++ steps (ms) | Python (ms) | Python against C++ steps "
              "| pause (us) | C++ steps with the pause (ms) | Python against them |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for case, n, calls in CASES:
            if wanted and case not in wanted:
                continue
            if opt.sizes != "all" and (n == SMALL[case]) != (opt.sizes == "small"):
                continue
            m = measure(cxx_seconds, ctx.device.index, case, n, calls, opt.rounds, ctx)
            size = {"vector_sum": f"{n}", "gemm": f"{n}^3", "fft": f"{n}^3 c2c"}[case]
            ms = lambda v: f"{statistics.median(v) * 1e3:.3f}" if v else "-"
            print(f"| {case} | {size} | {ms(m['host'])} | {ms(m['steps'])} | {ms(m['python'])} | "
                  f"{overhead(m['python'], m['steps'])} | "
                  + (f"{statistics.median(m['pause']) * 1e6:.1f} | {ms(m['paused'])} | "
                     f"{overhead(m['python'], m['paused'])} |" if m["paused"] else "- | - | - |"), flush=True)
        fixed = empty_call_seconds(ctx)
        print("\nthe binding's own cost (empty arrays, no device work): " +
              ", ".join(f"{name} {s * 1e6:.2f} us" for name, s in fixed.items()))


if __name__ == "__main__":
    sys.exit(main())
