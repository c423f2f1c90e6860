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
- for small inputs, the share of the Python side, with the C++ steps called one at a time from a
  Python loop (through ctypes): alone, and each after the binding's own work (portacl.vector_sum on
  empty arrays, about 1 us: argument checks, the context, the result's allocation, the GIL; no
  device work) timed with it.
Then the binding's own cost, the same calls on empty arrays (argument checks, the context's lookup,
the result's allocation, releasing and taking the GIL; no device work), the median of 20000 calls.
Run with the interpreter the package is installed in:

    build/python-venv/bin/python tools/bench/python_overhead.py --device pocl [--build build] [--rounds 15] [--sizes small]

With --pauses 0.25,0.5,1,2 it prints instead the small C++ steps' time against the pause a caller
makes between calls (busy, outside the timed span): what a caller's own work between calls costs
the next call on the device.

The C++ library is compiled into the build folder on first use (g++, against its libportacl), or
given built with --cxx-lib (a machine without a compiler; tools/device/pack_python.py packs it).
"""

import argparse
import ctypes
import os
import statistics
import sys
import time

import numpy as np

import portacl

import cxx_sides

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

# The small sizes, and the bench's sizes (portacl bench: on a CPU 2^24 elements, 1024^3 and 256^3, on a
# GPU 2^28, 4096^3 and 256^3); calls per round: 50 small ones, one large one.
SMALL = {"vector_sum": 1024, "gemm": 64, "fft": 16}
BENCH_CPU = {"vector_sum": 1 << 24, "gemm": 1024, "fft": 256}
BENCH_GPU = {"vector_sum": 1 << 28, "gemm": 4096, "fft": 256}
# The C++ side's styles (tools/bench/python_overhead.cpp).
HOST_VECTORS, BINDING_STEPS = 0, 1


def load_cxx(build, prebuilt=""):
    """The C++ side: `prebuilt` as it is (a machine without a compiler), else built in `build`."""
    if prebuilt and not os.path.exists(prebuilt):
        sys.exit(f"python_overhead: {prebuilt} (--cxx-lib) does not exist")
    lib = prebuilt or cxx_sides.build_cxx(build)
    cxx = ctypes.CDLL(os.path.abspath(lib))
    cxx.portacl_overhead_prepare.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_size_t]
    cxx.portacl_overhead_loop.restype = ctypes.c_double
    cxx.portacl_overhead_loop.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_double]
    cxx.portacl_overhead_call.argtypes = [ctypes.c_int]
    cxx.portacl_overhead_error.restype = ctypes.c_char_p
    return cxx


class CxxCase:
    """One case prepared on the C++ side in one style: its loop timed in C++, or one call at a time."""

    def __init__(self, cxx, device, case, style, n):
        self.cxx = cxx
        self.id = self.check(cxx.portacl_overhead_prepare(device.encode(), case.encode(), style, n))
        call, case_id, check = cxx.portacl_overhead_call, self.id, self.check
        self.call = lambda: check(call(case_id))

    def check(self, status):
        if status < 0:
            raise RuntimeError(self.cxx.portacl_overhead_error().decode())
        return status

    def loop(self, warmup, calls):
        return self.check(self.cxx.portacl_overhead_loop(self.id, warmup, calls, 0.0))


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


def timed_calls(call, warmup, calls):
    """`calls` timed calls after `warmup` untimed ones: the median, and each call's (start, end) on
    time.perf_counter's clock."""
    for _ in range(warmup):
        call()
    starts, ends = [], []
    for _ in range(calls):
        starts.append(time.perf_counter())
        call()
        ends.append(time.perf_counter())
    return statistics.median(e - s for s, e in zip(starts, ends)), list(zip(starts, ends))


def python_seconds(call, warmup, calls):
    """The median of `calls` timed calls after `warmup` untimed ones."""
    return timed_calls(call, warmup, calls)[0]


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


def measure(cxx, device, case, n, calls, rounds, ctx):
    """Each loop's per-round medians, the loops interleaved."""
    call = python_call(case, inputs(case, n), ctx)
    host, steps = CxxCase(cxx, device, case, HOST_VECTORS, n), CxxCase(cxx, device, case, BINDING_STEPS, n)
    small = n == SMALL[case]
    if small:  # loops of calls, the C++ ones timed in C++
        loops = [("host", lambda: host.loop(1, calls)), ("steps", lambda: steps.loop(1, calls)),
                 ("python", lambda: python_seconds(call, 1, calls)),
                 # the Python loop's share: the C++ steps called from Python, alone and after the
                 # binding's own work
                 ("ctypes", lambda: python_seconds(steps.call, 1, calls)),
                 ("after empty", lambda: python_seconds(lambda: (portacl.vector_sum(e, e, ctx=ctx), steps.call()), 1,
                                                        calls))]
        e = np.zeros(0, np.float32)
    else:  # one call each, timed here (a microsecond in a call of milliseconds)
        loops = [("host", lambda: python_seconds(host.call, 0, 1)), ("steps", lambda: python_seconds(steps.call, 0, 1)),
                 ("python", lambda: python_seconds(call, 0, 1))]
    for _, loop in loops:
        loop()
    out = {name: [] for name, _ in loops}
    for r in range(rounds):
        k = r % len(loops)
        for name, loop in loops[k:] + loops[:k]:
            out[name].append(loop())
    cxx.portacl_overhead_clear()
    return out


def pause_curve(cxx, device, cases, pauses, rounds, calls=50):
    """A small call's time in a C++ loop against the pause the caller makes between calls."""
    pauses = [0.0] + [p for p in pauses if p > 0]
    print("| case | pause between calls (us) | C++ steps (ms) | against no pause |")
    print("| --- | ---: | ---: | ---: |")
    for case in cases:
        steps = CxxCase(cxx, device, case, BINDING_STEPS, SMALL[case])
        times = {p: [] for p in pauses}
        for r in range(rounds):
            k = r % len(pauses)
            for p in pauses[k:] + pauses[:k]:
                times[p].append(steps.check(cxx.portacl_overhead_loop(steps.id, 1, calls, p)))
        for p in pauses:
            print(f"| {case} | {p:g} | {statistics.median(times[p]) * 1e3:.3f} | {overhead(times[p], times[0.0])} |")
        cxx.portacl_overhead_clear()


def overhead(python, cxx):
    """The median over the rounds of one loop against another, and its quartiles."""
    per_round = [100 * (p - c) / c for p, c in zip(python, cxx)]
    q1, q2, q3 = statistics.quantiles(per_round, n=4) if len(per_round) > 1 else per_round * 3
    return f"{statistics.median(per_round):+.1f} % ({q1:+.1f} to {q3:+.1f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="auto")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cxx-lib", default="", help="a built libpython_overhead.so, used as it is (default: compiled "
                    "in --build on first use)")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--sizes", choices=["small", "large", "all"], default="all")
    ap.add_argument("--pauses", default="", help="comma-separated pauses in us: instead of the table, the small "
                    "C++ steps' time with each pause between calls, against none (e.g. 0.25,0.5,1,2)")
    opt = ap.parse_args()
    cxx = load_cxx(opt.build, opt.cxx_lib)
    wanted = set(filter(None, opt.cases.split(",")))
    with portacl.Context(opt.device) as ctx:
        print(f"device: {ctx.device.name} ({ctx.device.platform}); {opt.rounds} rounds in one process\n")
        if opt.pauses:
            return pause_curve(cxx, ctx.device.index, [c for c in SMALL if not wanted or c in wanted],
                               [float(p) for p in opt.pauses.split(",")], opt.rounds)
        print("| case | size | C++ host vectors (ms) | C++ steps (ms) | Python (ms) | Python against C++ steps "
              "| C++ steps, Python loop (ms) | the same after an empty call (ms) | that against C++ steps |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        bench = BENCH_GPU if ctx.device.type == "GPU" else BENCH_CPU
        for case, n, calls in [(c, size, 50 if small else 1) for c in SMALL for small, size in
                               ((True, SMALL[c]), (False, bench[c]))]:
            if wanted and case not in wanted:
                continue
            if opt.sizes != "all" and (n == SMALL[case]) != (opt.sizes == "small"):
                continue
            m = measure(cxx, ctx.device.index, case, n, calls, opt.rounds, ctx)
            size = {"vector_sum": f"{n}", "gemm": f"{n}^3", "fft": f"{n}^3 c2c"}[case]
            ms = lambda v: f"{statistics.median(v) * 1e3:.3f}"
            print(f"| {case} | {size} | {ms(m['host'])} | {ms(m['steps'])} | {ms(m['python'])} | "
                  f"{overhead(m['python'], m['steps'])} | "
                  + (f"{ms(m['ctypes'])} | {ms(m['after empty'])} | {overhead(m['after empty'], m['steps'])} |"
                     if "ctypes" in m else "- | - | - |"), flush=True)
        fixed = empty_call_seconds(ctx)
        print("\nthe binding's own cost (empty arrays, no device work): " +
              ", ".join(f"{name} {s * 1e6:.2f} us" for name, s in fixed.items()))


if __name__ == "__main__":
    sys.exit(main())
