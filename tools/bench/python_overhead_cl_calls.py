#!/usr/bin/env python3
"""The OpenCL calls behind a small call from Python and the same call from C++: their sequence, and
where the time goes, seen from the OpenCL layer tools/bench/opencl_call_log.cpp in one process.

For each small case of tools/bench/python_overhead.py (vector_sum 1024, gemm 64^3, fft 16^3) four
loops run interleaved in rounds, each logged by the layer:
- C++ steps: the binding's steps in C++ (python_overhead.cpp, style 1), back to back in a C++ loop;
- Python: the package's function in a Python loop;
- C++ steps after a pause: the same C++ loop with a busy pause before each call, as long as the
  Python loop's gap between two calls' OpenCL calls less the C++ loop's (the median over the first
  10 rounds, which the loop's figures leave out; or --pause US);
- C++ steps from a Python loop: the C++ steps called one at a time from the Python loop of the
  package's calls, through ctypes (the interpreter between calls, without the package).
Each call's OpenCL calls are checked to be the same sequence, call after call and loop against loop.
Then, medians over the calls of all rounds: the gap between the last OpenCL call of one call and the
first of the next (what the caller does between calls, as the OpenCL runtime sees it), the span from
the first OpenCL call of a call to the return of its last, and the time spent inside the entry points
that wait (the blocking transfers and the kernel's enqueue); for the wall time and the span, the
median over the rounds of each round's ratio to the C++ loop, with its quartiles; and for the loops
timed in Python, the time of a timed call before its first OpenCL call and after its last (the
package's own work, the call from the loop and the result's release; perf_counter and the layer
share CLOCK_MONOTONIC).

    build/python-venv/bin/python tools/bench/python_overhead_cl_calls.py --device pocl [--rounds 150]

The layer is compiled into the build folder on first use (g++, the entry points read from the ICD
loader's <CL/cl_icd.h>; tools/bench/cxx_sides.py), or given built with --layer, and the script starts
itself again with OPENCL_LAYERS naming it.
"""

import argparse
import ctypes
import os
import statistics
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


class CallLog:
    """The layer's log, read through its C entry points (the library the ICD loader has loaded)."""

    def __init__(self, lib):
        self.lib = ctypes.CDLL(lib)
        self.lib.portacl_cl_log_start.argtypes = [ctypes.c_size_t]
        self.lib.portacl_cl_log_stop.restype = ctypes.c_size_t
        self.lib.portacl_cl_log_entry.argtypes = [ctypes.c_size_t] + [ctypes.c_void_p] * 4
        self.lib.portacl_cl_log_name.restype = ctypes.c_char_p
        self.lib.portacl_cl_log_name.argtypes = [ctypes.c_uint32]
        self.capacity = 1 << 20

    def logged(self, run):
        """Runs run() with the log on; its result and the calls of the thread that made the most, as
        (name, enter seconds, leave seconds)."""
        self.lib.portacl_cl_log_start(self.capacity)
        result = run()
        n = self.lib.portacl_cl_log_stop()
        if n > self.capacity:
            sys.exit("python_overhead_cl_calls: the log is full; fewer calls per round")
        slot, thread, enter, leave = ctypes.c_uint32(), ctypes.c_uint32(), ctypes.c_int64(), ctypes.c_int64()
        rows = []
        for i in range(n):
            self.lib.portacl_cl_log_entry(i, ctypes.byref(slot), ctypes.byref(thread), ctypes.byref(enter), ctypes.byref(leave))
            rows.append((thread.value, self.lib.portacl_cl_log_name(slot.value).decode(), enter.value * 1e-9, leave.value * 1e-9))
        if not rows:
            sys.exit("python_overhead_cl_calls: the OpenCL layer logged no call; this ICD loader does not load "
                     "OPENCL_LAYERS (ocl-icd 2.3 and later and Khronos's loader do)")
        threads = [r[0] for r in rows]
        main = max(set(threads), key=threads.count) if threads else 0
        return result, [r[1:] for r in rows if r[0] == main]


def split_calls(rows):
    """The log cut into calls: the shortest period of its sequence of entry points that repeats over
    the whole log, else the period of its first two calls. Returns the calls and the first call whose
    sequence differs from the first one (None: all the same)."""
    names = [r[0] for r in rows]
    periods = range(1, len(names) // 2 + 1)
    period = next((p for p in periods if len(names) % p == 0 and names[p:] == names[:-p]), None)
    if period is None:
        period = next((p for p in periods if names[p:2 * p] == names[:p] and names[p] == names[0]), len(names))
    calls = [rows[i:i + period] for i in range(0, len(rows) - len(rows) % period, period)]
    odd = next((k for k, c in enumerate(calls) if [r[0] for r in c] != names[:period]), None)
    return calls, odd


def summary(calls):
    """Medians over the calls: the gap before each call, its span, and the time inside each entry point."""
    gaps = [b[0][1] - a[-1][2] for a, b in zip(calls, calls[1:])]
    spans = [c[-1][2] - c[0][1] for c in calls]
    inside = {}
    for c in calls:
        per = {}
        for name, enter, leave in c:
            per[name] = per.get(name, 0.0) + leave - enter
        for name, s in per.items():
            inside.setdefault(name, []).append(s)
    return {"gap": gaps, "span": spans, "inside": inside}


def sequence_text(call):
    """A call's entry points, repeats folded: 'clCreateBuffer x3, clEnqueueWriteBuffer, ...'."""
    out = []
    for name, _, _ in call:
        if out and out[-1][0] == name:
            out[-1][1] += 1
        else:
            out.append([name, 1])
    return ", ".join(n + (f" x{k}" if k > 1 else "") for n, k in out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="auto")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cxx-lib", default="", help="a built libpython_overhead.so (default: compiled in --build)")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--calls", type=int, default=50, help="calls per loop and round")
    ap.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--pause", type=float, default=-1,
                    help="the C++ loop's pause before each call in us (default: the Python gap less the C++ gap)")
    ap.add_argument("--icd-header", default="/usr/include/CL/cl_icd.h")
    ap.add_argument("--layer", default="", help="a built libopencl_call_log.so (default: compiled in --build)")
    opt = ap.parse_args()
    if opt.rounds < 2 or opt.calls < 2:
        sys.exit("python_overhead_cl_calls: --rounds and --calls take 2 or more")

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import cxx_sides

    layer = os.path.abspath(opt.layer) if opt.layer else cxx_sides.build_layer(opt.build, opt.icd_header)
    if not os.path.exists(layer):
        sys.exit(f"python_overhead_cl_calls: {layer} (--layer) does not exist")
    if os.environ.get("OPENCL_LAYERS") != layer:  # the ICD loader reads it once, when first used
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, OPENCL_LAYERS=layer))

    import portacl
    import python_overhead as po

    log = CallLog(layer)
    cxx = po.load_cxx(opt.build, opt.cxx_lib)
    wanted = set(filter(None, opt.cases.split(",")))
    with portacl.Context(opt.device) as ctx:
        print(f"device: {ctx.device.name} ({ctx.device.platform}); {opt.rounds} rounds of {opt.calls} calls "
              "per loop in one process; medians over the calls (us)\n")
        for case, n in po.SMALL.items():
            if wanted and case not in wanted:
                continue
            call = po.python_call(case, po.inputs(case, n), ctx)
            steps = po.CxxCase(cxx, ctx.device.index, case, po.BINDING_STEPS, n)
            pause = [max(opt.pause, 0.0)]
            loops = {"C++ steps": lambda: steps.loop(1, opt.calls),
                     "Python": lambda: po.timed_calls(call, 1, opt.calls),
                     "C++ steps after a pause": lambda: cxx.portacl_overhead_loop(steps.id, 1, opt.calls, pause[0]),
                     "C++ steps from a Python loop": lambda: po.timed_calls(steps.call, 1, opt.calls)}
            names = list(loops)
            for name in names:
                loops[name]()
            walls = {name: [] for name in names}
            # the Python loops' timed calls: their time before the first OpenCL call and after the last
            outside = {name: ([], []) for name in names}
            aligned = abs(time.perf_counter() - time.clock_gettime(time.CLOCK_MONOTONIC)) < 1e-3
            logs = {name: [] for name in names}
            first = {}
            odd = {}
            for r in range(opt.rounds):
                k = r % len(names)
                for name in names[k:] + names[:k]:
                    wall, rows = log.logged(loops[name])
                    calls, bad = split_calls(rows)
                    calls = calls[1:]  # the loop's untimed first call
                    if bad is not None:
                        odd.setdefault(name, bad)
                    first.setdefault(name, calls[0])
                    if isinstance(wall, tuple):
                        wall, bounds = wall
                        if aligned and len(bounds) == len(calls):
                            outside[name][0].extend(c[0][1] - b[0] for c, b in zip(calls, bounds))
                            outside[name][1].extend(b[1] - c[-1][2] for c, b in zip(calls, bounds))
                    walls[name].append(wall)
                    logs[name].extend([calls])
                if opt.pause < 0 and r == min(9, opt.rounds - 2):
                    # the pause that gives the C++ loop the Python loop's gap
                    gap = {name: statistics.median(g for calls in logs[name] for g in summary(calls)["gap"])
                           for name in ("C++ steps", "Python")}
                    pause[0] = max(0.0, (gap["Python"] - gap["C++ steps"]) * 1e6)
                    walls["C++ steps after a pause"].clear()
                    outside["C++ steps after a pause"] = ([], [])
                    logs["C++ steps after a pause"].clear()
            reference = [r[0] for r in first["C++ steps"]]
            print(f"### {case} {n}: {len(reference)} OpenCL calls per call\n\n{sequence_text(first['C++ steps'])}\n")
            waits = [name for name in ("clEnqueueWriteBuffer", "clEnqueueNDRangeKernel", "clEnqueueReadBuffer")
                     if name in reference]
            print("| loop | same OpenCL calls as C++ steps | wall per call | against C++ steps | gap before a call | "
                  "span of its OpenCL calls | against C++ steps | " + " | ".join(f"in {w}" for w in waits) +
                  " | the rest of the span | timed, before its first OpenCL call | timed, after its last |")
            print("| --- | --- | ---: | ---: | ---: | ---: | ---: | " + " | ".join("---:" for _ in waits) + " | ---: | ---: | ---: |")
            # per round: the median span of its calls, for the rounds' ratios
            spans = {name: [statistics.median(summary(calls)["span"]) for calls in logs[name]] for name in names}
            base = "C++ steps"
            paired = lambda d, name: po.overhead(d[name][-len(d[base]):], d[base][-len(d[name]):]) if name != base else "-"
            for name in names:
                same = [r[0] for r in first[name]] == reference and name not in odd
                merged = {"gap": [], "span": [], "inside": {}}
                for calls in logs[name]:
                    s = summary(calls)
                    merged["gap"] += s["gap"]
                    merged["span"] += s["span"]
                    for w, v in s["inside"].items():
                        merged["inside"].setdefault(w, []).extend(v)
                us = lambda v: f"{statistics.median(v) * 1e6:.1f}"
                inside_all = [sum(v) for v in zip(*merged["inside"].values())]
                rest = [s - i for s, i in zip(merged["span"], inside_all)]
                label = name + (f" ({pause[0]:.2f} us)" if name.endswith("pause") else "")
                print(f"| {label} | {'yes, every call' if same else 'NO'} | {us(walls[name])} | {paired(walls, name)} | "
                      f"{us(merged['gap'])} | {us(merged['span'])} | {paired(spans, name)} | " + " | ".join(us(merged["inside"][w]) for w in waits) + f" | {us(rest)} | " +
                      " | ".join(us(v) if v else "-" for v in outside[name]) + " |")
            print(flush=True)
            cxx.portacl_overhead_clear()


if __name__ == "__main__":
    sys.exit(main())
