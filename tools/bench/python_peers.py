#!/usr/bin/env python3
"""The CPU peers of `portacl bench` that are Python libraries: scikit-image's skeleton (Lee), porespy's
box counts and WhiteboxTools' hydrology tools (the whitebox_workflows wheel). The bench
(host/bench/python_peer.cpp) writes the input, runs this script, reads the peer's time from its
first line of output and the peer's answer from OUT, and compares that answer with its own before it
prints the time beside its row.

usage: python_peers.py version TOOL
       python_peers.py time TOOL OP IN OUT THREADS REPEATS [ARG]

TOOL and OP:
  scikit-image skeleton-lee        IN, OUT: .npy uint8 volumes (object 1); skeletonize, method "lee"
  porespy      boxcount            IN: .npy uint8 volume; ARG: the sides, comma-separated; OUT: .npy
                                   int64 of shape (1, sides): metrics.boxcount's counts
  whitebox     d8-pointer          IN: DEM GeoTIFF; OUT: D8 pointer GeoTIFF (WhiteboxTools' codes)
  whitebox     fill                IN: DEM GeoTIFF; OUT: the filled DEM (fill_depressions, no flat fix)
  whitebox     d8-accumulation     IN: D8 pointer GeoTIFF (WhiteboxTools' codes); OUT: cells
  whitebox     dinf-accumulation   IN: D-infinity azimuths in degrees (negative: no flow); OUT: cells
  whitebox     basins              IN: D8 pointer GeoTIFF (WhiteboxTools' codes); OUT: basin labels

`version` prints the peer's name and version (exit 0), or why it cannot run (exit 3). `time` runs the
operation once untimed, then REPEATS times, and prints the median seconds of the timed calls (the
input already in memory, nothing written inside the timed span); exit 3 when the peer cannot run,
2 for a usage error. WhiteboxTools is looked for in $PORTACL_WHITEBOX_PREFIX (default
/opt/portacl/whitebox, where scripts/install-deps.sh puts it) as well as on the path."""
import os
import statistics
import sys
import time

UNAVAILABLE = 3


def fail(message, status=UNAVAILABLE):
    print(message)
    sys.exit(status)


def median_seconds(call, repeats):
    call()
    times = []
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def scikit_image():
    try:
        import skimage
        from skimage.morphology import skeletonize
    except ImportError:
        fail("scikit-image: not installed")
    return f"scikit-image {skimage.__version__}", skeletonize


def porespy():
    try:
        import porespy as ps
    except ImportError:
        fail("porespy: not installed")
    except Exception as e:  # porespy imports many libraries as it starts; say which one failed
        fail(f"porespy: does not import ({type(e).__name__}: {e})")
    return f"porespy {ps.__version__}", ps


def whitebox():
    sys.path.insert(0, os.environ.get("PORTACL_WHITEBOX_PREFIX", "/opt/portacl/whitebox"))
    try:
        import whitebox_workflows as wbw
    except ImportError:
        fail("WhiteboxTools: not installed (scripts/install-deps.sh installs whitebox_workflows)")
    wbe = wbw.WbEnvironment()
    return f"WhiteboxTools {wbe.version().split()[-1] if wbe.version() else ''}".strip(), wbe


def time_scikit_image(op, src, dst, repeats):
    import numpy as np
    _, skeletonize = scikit_image()
    if op != "skeleton-lee":
        fail(f"scikit-image has no operation {op}", 2)
    volume = np.load(src).astype(bool)
    out = {}
    seconds = median_seconds(lambda: out.__setitem__("s", skeletonize(volume, method="lee")), repeats)
    np.save(dst, (out["s"] != 0).astype(np.uint8))
    return seconds


def time_porespy(op, src, dst, repeats, arg):
    import numpy as np
    _, ps = porespy()
    if op != "boxcount":
        fail(f"porespy has no operation {op}", 2)
    volume = np.load(src).astype(bool)
    sides = [int(s) for s in arg.split(",")]
    out = {}
    seconds = median_seconds(lambda: out.__setitem__("b", ps.metrics.boxcount(volume, bins=sides)), repeats)
    got = out["b"]
    if [int(s) for s in got.size] != sides:
        fail(f"porespy counted sides {list(got.size)}, not {sides}", 1)
    np.save(dst, np.asarray(got.count, dtype=np.int64).reshape(1, -1))
    return seconds


def time_whitebox(op, src, dst, threads, repeats):
    _, wbe = whitebox()
    wbe.max_procs = threads
    wbe.verbose = False
    hydro = wbe.hydrology
    calls = {
        "d8-pointer": lambda r: hydro.d8_pointer(dem=r),
        "fill": lambda r: hydro.fill_depressions(dem=r, fix_flats=False),
        "d8-accumulation": lambda r: hydro.d8_flow_accum(input=r, out_type="cells", input_is_pointer=True),
        "dinf-accumulation": lambda r: hydro.dinf_flow_accum(input=r, out_type="cells", input_is_pointer=True),
        "basins": lambda r: hydro.basins(d8_pntr=r),
    }
    if op not in calls:
        fail(f"WhiteboxTools has no operation {op} here", 2)
    raster = wbe.read_raster(src)
    out = {}
    seconds = median_seconds(lambda: out.__setitem__("r", calls[op](raster)), repeats)
    wbe.write_raster(out["r"], dst)
    return seconds


def main(argv):
    tools = {"scikit-image": scikit_image, "porespy": porespy, "whitebox": whitebox}
    if len(argv) == 2 and argv[0] == "version" and argv[1] in tools:
        print(tools[argv[1]]()[0])
        return 0
    if len(argv) in (7, 8) and argv[0] == "time" and argv[1] in tools:
        tool, op, src, dst = argv[1:5]
        threads, repeats = int(argv[5]), int(argv[6])
        arg = argv[7] if len(argv) == 8 else ""
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
            os.environ[name] = str(threads)
        if tool == "scikit-image":
            seconds = time_scikit_image(op, src, dst, repeats)
        elif tool == "porespy":
            seconds = time_porespy(op, src, dst, repeats, arg)
        else:
            seconds = time_whitebox(op, src, dst, threads, repeats)
        print(f"{seconds:.9g}")
        return 0
    if len(argv) >= 2 and argv[1] not in tools:
        print(f"no peer named {argv[1]} (there are {', '.join(tools)})")
    else:
        print(__doc__.split("\n\n")[1])
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
