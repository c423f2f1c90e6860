#!/usr/bin/python3
"""WhiteboxTools beside `portacl drainage` on one DEM: D8 pointers and D8 flow accumulation (cells),
each tool's own pointers compared cell for cell, and the accumulation of WhiteboxTools' pointers by
both tools compared cell for cell (the same pointers must give the same counts); D∞ angles and
accumulation (cells) of each tool, compared within 0.001 degrees and 1e-5 relative. WhiteboxTools runs
through the `whitebox_workflows` wheel (its library ships inside it: nothing is downloaded at run
time; scripts/install-deps.sh installs it into /opt/portacl/whitebox, or $PORTACL_WHITEBOX_PREFIX).

Times: WhiteboxTools' tool calls alone (the DEM already in memory, no file written), on all cores;
`portacl drainage` as a whole process (reading the DEM, the device's start and the kernel cache,
writing the outputs), and the sum of its kernels' times (--profile: directions, upstream counts,
the levels of the accumulation, the cycle check). The median of --repeats runs.

usage: /usr/bin/python3 tools/anchors/whitebox_drainage.py --portacl build/portacl [--dem DEM.tif]
         [--synthetic N] [--device pocl] [--repeats 3] [--work DIR] [--check]
       /usr/bin/python3 tools/anchors/whitebox_drainage.py --portacl build/portacl --pipeline --synthetic N
         [--threshold 1000] [--device gpu]
--dem defaults to WhiteboxTools' own test DEM in the shared data (dem/whitebox/DEM.tif).
--synthetic N writes the bench's DEM (a bowl draining to its corner cut by 12 radial valleys,
z = r (1 + 0.15 sin 12θ), 10 m cells) as an N x N GeoTIFF and uses it instead of --dem.
Exit status 1 when the accumulations of the same pointers differ anywhere, and with --check also
when a pointer or an accumulation of each tool's own pointers differs, or (on square cells) fewer than
99.9 % of the D∞ angles or 99 % of the D∞ accumulations agree within those tolerances (where two
facets fall equally steeply either tool may take either); 77 (CTest's skip) when
whitebox_workflows or the DEM is missing."""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.environ.get("PORTACL_WHITEBOX_PREFIX", "/opt/portacl/whitebox"))
try:
    import whitebox_workflows as wbw
except ImportError:
    print("whitebox_workflows is not installed (bash scripts/install-deps.sh installs it)")
    sys.exit(77)

# WhiteboxTools' pointer codes, as --encoding whitebox reads them.
WHITEBOX_CODES = {0, 1, 2, 4, 8, 16, 32, 64, 128}


def write_bowl(path, n, roughness=0.0):
    """A GeoTIFF (Float32, 10 m cells, origin at 0, 10 n) written with tifffile and the three GeoTIFF
    tags that place it; `roughness` metres of uniform noise (seed 1) make depressions to fill."""
    import tifffile
    r, c = np.mgrid[0:n, 0:n].astype(np.float64)
    z = (np.hypot(r, c) * (1 + 0.15 * np.sin(12 * np.arctan2(r, c)))).astype(np.float32)
    if roughness > 0:
        z += np.random.default_rng(1).uniform(0, roughness, z.shape).astype(np.float32)
    geo = [(33550, "d", 3, (10.0, 10.0, 0.0), False),                        # ModelPixelScale
           (33922, "d", 6, (0.0, 0.0, 0.0, 0.0, 10.0 * n, 0.0), False),      # ModelTiepoint
           (34735, "H", 12, (1, 1, 0, 2, 1024, 0, 1, 1, 1025, 0, 1, 1), False)]  # projected, pixel is area
    tifffile.imwrite(path, z, extratags=geo)


def median_seconds(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--portacl", required=True)
    data_dir = os.environ.get("PORTACL_DATA_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/data")
    ap.add_argument("--dem", default=os.path.join(data_dir, "dem/whitebox/DEM.tif"))
    ap.add_argument("--synthetic", type=int, default=0)
    ap.add_argument("--device", default="pocl")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--work", default="")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--pipeline", action="store_true",
                    help="time the whole pipeline instead (fill with flats, D8, accumulation, streams, basins) "
                         "on the --synthetic bowl roughened by 4 m of noise")
    ap.add_argument("--threshold", type=int, default=1000)
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="portacl-whitebox-")
    os.makedirs(work, exist_ok=True)
    try:
        return pipeline(a, work) if a.pipeline else compare(a, work)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)


def compare(a, work):
    dem_path = a.dem
    wbe = wbw.WbEnvironment()
    if a.synthetic:
        dem_path = os.path.join(work, f"bowl{a.synthetic}.tif")
        write_bowl(dem_path, a.synthetic)
    if not os.path.isfile(dem_path):
        print(f"no DEM at {dem_path} (the shared data: PORTACL_DATA_DIR)")
        return 77

    routing = wbe.hydrology.flow_routing
    dem = wbe.read_raster(dem_path)
    grid = {}
    wb_pointer_s = median_seconds(lambda: grid.__setitem__("p", routing.d8_pointer(dem=dem)), a.repeats)
    wb_acc_s = median_seconds(lambda: grid.__setitem__("a", routing.d8_flow_accum(input=grid["p"], out_type="cells",
                                                                                   input_is_pointer=True)), a.repeats)
    wb_pointer_path = os.path.join(work, "wb_d8.tif")
    wbe.write_raster(grid["p"], wb_pointer_path)
    wb_pointer = grid["p"].to_numpy()
    wb_acc = grid["a"].to_numpy()
    heights = dem.to_numpy()
    data = ~np.isnan(heights) & (heights != dem.metadata().nodata)

    env = dict(os.environ, PORTACL_NO_PROGRESS="1")
    ours_d8, ours_acc, ours_from_wb = (os.path.join(work, f) for f in ("pc_d8.tif", "pc_acc.tif", "pc_acc_of_wb_d8.tif"))
    both = [a.portacl, "drainage", dem_path, "--directions", ours_d8, "--encoding", "whitebox", "--accumulation", ours_acc,
            "--device", a.device]
    subprocess.run(both, check=True, env=env, stdout=subprocess.DEVNULL)  # the kernel cache warm
    ours_s = median_seconds(lambda: subprocess.run(both, check=True, env=env, stdout=subprocess.DEVNULL), a.repeats)
    # The device's share: every kernel's time in the profile of one more run.
    profile = subprocess.run(both + ["--profile"], check=True, env=env, capture_output=True, text=True).stderr
    kernels_s = sum(float(f[3]) for f in (line.split() for line in profile.splitlines()) if len(f) >= 6 and f[1] == "kernel") / 1e3
    subprocess.run([a.portacl, "drainage", "--pointers", wb_pointer_path, "--encoding", "whitebox", "--accumulation",
                    ours_from_wb, "--device", a.device], check=True, env=env, stdout=subprocess.DEVNULL)

    pc_pointer = wbe.read_raster(ours_d8).to_numpy()
    pc_acc = wbe.read_raster(ours_acc).to_numpy()
    pc_of_wb = wbe.read_raster(ours_from_wb).to_numpy()
    cells = int(data.sum())
    codes = set(np.unique(wb_pointer[data]).astype(int).tolist())
    if not codes <= WHITEBOX_CODES:
        print(f"WhiteboxTools wrote codes {sorted(codes - WHITEBOX_CODES)} that are not D8 codes")
        return 1
    same_pointer = int((wb_pointer[data] == pc_pointer[data]).sum())
    same_acc_own = int((wb_acc[data] == pc_acc[data]).sum())
    same_acc_of_wb = int((wb_acc[data] == pc_of_wb[data]).sum())
    rows, cols = data.shape
    print(f"DEM {dem_path}: {rows}x{cols}, {cells} cells with data; device {a.device}; WhiteboxTools "
          f"{wbe.version()} on {os.cpu_count()} cores")
    print(f"D8 pointers equal: {same_pointer} of {cells}")
    print(f"accumulation of each tool's own pointers equal: {same_acc_own} of {cells}")
    print(f"accumulation of WhiteboxTools' pointers equal: {same_acc_of_wb} of {cells} "
          f"(largest {int(wb_acc[data].max())})")
    print(f"WhiteboxTools d8_pointer {wb_pointer_s * 1e3:.1f} ms, d8_flow_accum {wb_acc_s * 1e3:.1f} ms, "
          f"together {(wb_pointer_s + wb_acc_s) * 1e3:.1f} ms")
    print(f"portacl drainage --directions --accumulation: the whole process {ours_s * 1e3:.1f} ms "
          f"({(wb_pointer_s + wb_acc_s) / ours_s:.2f}x WhiteboxTools' speed), its kernels {kernels_s * 1e3:.1f} ms "
          f"({(wb_pointer_s + wb_acc_s) / kernels_s:.2f}x)")
    # D∞: WhiteboxTools' angle is an azimuth in degrees (clockwise from north), ours radians
    # counter-clockwise from east; both accumulations in cells.
    ours_ang, ours_dinf = (os.path.join(work, f) for f in ("pc_dinf_angle.tif", "pc_dinf_acc.tif"))
    wb_dinf_s = median_seconds(lambda: grid.__setitem__("dp", routing.dinf_pointer(dem=dem)), a.repeats)
    wb_dinf_acc_s = median_seconds(lambda: grid.__setitem__("da", routing.dinf_flow_accum(input=dem, out_type="cells")), a.repeats)
    dinf = [a.portacl, "drainage", dem_path, "--method", "dinf", "--directions", ours_ang, "--accumulation", ours_dinf,
            "--device", a.device]
    subprocess.run(dinf, check=True, env=env, stdout=subprocess.DEVNULL)
    ours_dinf_s = median_seconds(lambda: subprocess.run(dinf, check=True, env=env, stdout=subprocess.DEVNULL), a.repeats)
    wb_az, wb_da = grid["dp"].to_numpy(), grid["da"].to_numpy()
    pc_az = np.mod(90 - np.degrees(wbe.read_raster(ours_ang).to_numpy()), 360)
    pc_da = wbe.read_raster(ours_dinf).to_numpy()
    both_flow = data & (wb_az >= 0) & (wbe.read_raster(ours_ang).to_numpy() >= 0)
    angle_diff = np.abs((pc_az - wb_az + 180) % 360 - 180)
    rel = np.abs(pc_da - wb_da) / np.maximum(1, np.abs(wb_da))
    square = abs(dem.metadata().resolution_x - dem.metadata().resolution_y) <= 1e-9 * dem.metadata().resolution_x
    print(f"D-infinity angles within 0.001 degrees: {int((angle_diff[both_flow] <= 1e-3).sum())} of {int(both_flow.sum())} cells "
          f"with flow in both (largest difference {angle_diff[both_flow].max():.2g} degrees); accumulation within 1e-5 relative: "
          f"{int((rel[data] <= 1e-5).sum())} of {cells} (largest difference {rel[data].max():.2g})"
          + ("" if square else "; the cells are not square, where WhiteboxTools' D-infinity angles differ: not checked"))
    print(f"WhiteboxTools dinf_pointer {wb_dinf_s * 1e3:.1f} ms, dinf_flow_accum (from the DEM) {wb_dinf_acc_s * 1e3:.1f} ms; "
          f"portacl drainage --method dinf --directions --accumulation, the whole process {ours_dinf_s * 1e3:.1f} ms")
    failed = False
    # Two facets that fall equally steeply (the bowl's symmetric valleys) may go either way in either
    # tool, and the accumulations below such a cell differ with it: D∞ is held to 99.9 % of the angles
    # and 99 % of the accumulations.
    angles_close = (angle_diff[both_flow] <= 1e-3).mean()
    sums_close = (rel[data] <= 1e-5).mean()
    if a.check and square and (angles_close < 0.999 or sums_close < 0.99):
        print(f"the D-infinity angles agree at {angles_close:.4%} of the cells (want 99.9 %), the accumulations "
              f"at {sums_close:.4%} (want 99 %)")
        failed = True
    for what, equal, a_, b_ in (("the accumulations of the same pointers", same_acc_of_wb, wb_acc, pc_of_wb),
                                ("the pointers", same_pointer if a.check else cells, wb_pointer, pc_pointer),
                                ("the accumulations of each tool's pointers", same_acc_own if a.check else cells, wb_acc, pc_acc)):
        if equal != cells:
            row, col = np.argwhere(data & (a_ != b_))[0]
            print(f"{what} differ first at row {row}, column {col}: WhiteboxTools {a_[row, col]}, PortaCL {b_[row, col]}")
            failed = True
    return 1 if failed else 0


def pipeline(a, work):
    """WhiteboxTools' hydrology pipeline (fill_depressions with its flat fix, d8_pointer, d8_flow_accum,
    extract_streams, basins; rasters kept in memory) against one `portacl drainage` process doing the
    same steps and writing every grid; the stream cell counts of both printed side by side."""
    if not a.synthetic:
        print("--pipeline needs --synthetic N")
        return 2
    wbe = wbw.WbEnvironment()
    dem_path = os.path.join(work, f"rough{a.synthetic}.tif")
    write_bowl(dem_path, a.synthetic, roughness=4.0)
    dem = wbe.read_raster(dem_path)
    hydro, g, steps = wbe.hydrology, {}, {}

    def step(name, fn):
        t0 = time.perf_counter()
        g[name] = fn()
        steps[name] = time.perf_counter() - t0

    step("fill", lambda: hydro.fill_depressions(dem=dem, fix_flats=True))
    step("d8", lambda: hydro.d8_pointer(dem=g["fill"]))
    step("accumulation", lambda: hydro.d8_flow_accum(input=g["d8"], out_type="cells", input_is_pointer=True))
    step("streams", lambda: wbe.streams.extract_streams(flow_accumulation=g["accumulation"], threshold=a.threshold,
                                                        zero_background=True))
    step("basins", lambda: hydro.basins(d8_pntr=g["d8"]))
    wb_total = sum(steps.values())
    wb_streams = int((g["streams"].to_numpy() > 0).sum())
    env = dict(os.environ, PORTACL_NO_PROGRESS="1")
    out = {k: os.path.join(work, f"pc_{k}.tif") for k in ("filled", "d8", "acc", "streams", "basins")}
    ours = [a.portacl, "drainage", dem_path, "--filled", out["filled"], "--flats", "--directions", out["d8"],
            "--accumulation", out["acc"], "--streams", out["streams"], "--threshold", str(a.threshold),
            "--watersheds", out["basins"], "--device", a.device]
    subprocess.run(ours, check=True, env=env, stdout=subprocess.DEVNULL)  # the kernel cache warm
    ours_s = median_seconds(lambda: subprocess.run(ours, check=True, env=env, stdout=subprocess.DEVNULL), a.repeats)
    profile = subprocess.run(ours + ["--profile"], check=True, env=env, capture_output=True, text=True).stderr
    kernels_s = sum(float(f[3]) for f in (line.split() for line in profile.splitlines()) if len(f) >= 6 and f[1] == "kernel") / 1e3
    pc_streams = int((wbe.read_raster(out["streams"]).to_numpy() == 1).sum())
    n = a.synthetic
    print(f"{n}x{n} bowl roughened by 4 m ({n * n} cells); WhiteboxTools {wbe.version()} on {os.cpu_count()} cores; "
          f"portacl on {a.device}")
    print("WhiteboxTools: " + ", ".join(f"{k} {v:.2f} s" for k, v in steps.items()) + f"; together {wb_total:.2f} s; "
          f"{wb_streams} stream cells at threshold {a.threshold}")
    print(f"portacl drainage (fill, flats, D8, accumulation, streams, watersheds; reading and writing every grid): "
          f"the whole process {ours_s:.2f} s ({wb_total / ours_s:.1f}x WhiteboxTools' speed), its kernels "
          f"{kernels_s * 1e3:.1f} ms ({wb_total / kernels_s:.2f}x); {pc_streams} stream cells")
    if "Stages" in profile:  # where the whole process's time went, from the --profile run
        print(profile[profile.index("Stages"):].rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
