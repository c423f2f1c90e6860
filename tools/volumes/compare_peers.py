#!/usr/bin/env python3
"""portacl's volume commands against the tools users have, on the same volumes in the same run.

  compare_peers.py volume OUT.npy (blobs SIDE [SEED BLOB_SIZE FRACTION] | puma [THRESHOLD] | tiled SRC.npy K)
      a test volume as uint8 0/1: scikit-image's binary_blobs (seed 1, blob size 0.1, volume
      fraction 0.3 unless given), the PuMA FiberForm micro-CT at a threshold (default 90), or K x K x K
      copies of SRC (a 1024^3 volume from a 512^3 one in seconds, where binary_blobs takes minutes)
  compare_peers.py boxcount VOLUME.npy [--portacl BIN] [--device D] [--repeats R]
      porespy's metrics.boxcount (its default sizes) against `portacl box-count --count mixed
      --sizes <the same sizes>`: the counts must be equal; both times
  compare_peers.py thinning VOLUME.npy [--portacl BIN] [--device D] [--itk-threads N]
      ITK's BinaryThinningImageFilter3D (itk-thickness3d; left out where it is not installed) and
      scikit-image's skeletonize against `portacl skeleton`: differing voxels between each pair; the
      three times, and scikit-image's time over portacl's (whole command, device time)
  compare_peers.py graph VOLUME.npy [--portacl BIN] [--device D]
      skan's branch summary of portacl's skeleton against `portacl skeleton --branches`: end points,
      branches by type and their lengths, and why they differ where they do

Each prints one Markdown table row (and details on stderr) and exits 1 when a result that must be
equal is not. The peers come from PyPI (porespy, itk, itk-thickness3d, skan, scikit-image):
`python3 -m venv peers && peers/bin/pip install porespy itk itk-thickness3d skan scikit-image`,
then run this script with that venv's python. docs/volumes.md records the results.

Times: the peers' calls alone (the volume already in memory; ITK's first call, which loads its
wrapping, is made on a small volume first); portacl's whole command (reading the file, the
device's context and kernel build, the work, writing) and the device time it prints.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def make_volume(args):
    if args.kind == "blobs":
        from skimage.data import binary_blobs
        side = int(args.params[0])
        seed = int(args.params[1]) if len(args.params) > 1 else 1
        size = float(args.params[2]) if len(args.params) > 2 else 0.1
        frac = float(args.params[3]) if len(args.params) > 3 else 0.3
        try:
            v = binary_blobs(side, size, n_dim=3, volume_fraction=frac, rng=seed)
        except TypeError:
            v = binary_blobs(side, size, n_dim=3, volume_fraction=frac, seed=seed)
    elif args.kind == "tiled":
        k = int(args.params[1])
        v = np.tile(np.load(args.params[0]), (k, k, k))
    else:
        import tifffile
        threshold = float(args.params[0]) if args.params else 90
        v = tifffile.imread(os.path.join(ROOT, "..", "shared", "data", "volumes", "puma", "100_fiberform.tif")) >= threshold
    v = np.ascontiguousarray(v).astype(np.uint8)
    np.save(args.out, v)
    print(f"{args.out}: {v.shape}, {int(v.sum())} object voxels")


def run_portacl(args, *extra):
    cmd = [args.portacl, *extra]
    if args.device:
        cmd += ["--device", args.device]
    start = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {p.stderr.strip()}")
    m = re.search(r"\(([0-9.e+-]+) s of device time\)", p.stdout)
    return p.stdout, wall, float(m.group(1)) if m else float("nan")


def best_of(repeats, fn):
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return result, best


def import_porespy():
    # porespy imports pyvista (and through it VTK, over 100 MB, for drawing and STL export), cc3d (for
    # labelling) and edt (distance transforms, looked up once at its start) as it starts; boxcount
    # uses none of them. Where one is missing (the GPU machine, which gets its Python packages
    # carried), an empty module stands in for it, whose functions refuse to run.
    import importlib.util
    import types

    def absent(*_args, **_kwargs):
        raise RuntimeError("a stand-in module: the package is not installed")

    for name in ("pyvista", "cc3d", "edt"):
        if importlib.util.find_spec(name) is None:
            sys.modules[name] = module = types.ModuleType(name)
            module.edt = absent
            print(f"{name} is missing: an empty module stands in for it (porespy's boxcount does not use it)",
                  file=sys.stderr)
    import porespy
    return porespy


def boxcount(args):
    porespy = import_porespy()
    porespy.settings.tqdm["disable"] = True
    v = np.load(args.volume) != 0
    res, t_peer = best_of(args.repeats, lambda: porespy.metrics.boxcount(v))
    sizes = [int(s) for s in res.size]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        runs = [run_portacl(args, "box-count", args.volume, "--count", "mixed", "--sizes", ",".join(map(str, sizes)),
                            "--json", out) for _ in range(args.repeats)]
        r = json.load(open(out))
    ours = [s["count"] for s in r["sizes"]]
    theirs = [int(c) for c in res.count]
    wall = min(w for _, w, _ in runs)
    dev = min(d for _, _, d in runs)
    same = ours == theirs
    print(f"sizes {sizes}\nporespy {theirs}\nportacl {ours}", file=sys.stderr)
    print(f"| {os.path.basename(args.volume)} {v.shape[0]}x{v.shape[1]}x{v.shape[2]} | {len(sizes)} sides, {sizes[0]} to {sizes[-1]} | "
          f"{'equal' if same else 'DIFFER'} | {t_peer:.3f} s | {wall:.3f} s / {dev * 1e3:.2f} ms | "
          f"{t_peer / wall:.1f}x / {t_peer / dev:.0f}x | {r['device']} |")
    return 0 if same else 1


def itk_thin(v, threads):
    import itk
    if threads:
        itk.MultiThreaderBase.SetGlobalDefaultNumberOfThreads(threads)
    warm = itk.BinaryThinningImageFilter3D.New(itk.image_from_array(np.zeros((3, 3, 3), np.uint8)))
    warm.Update()  # loads ITK's wrapping outside the timed call

    def run():
        f = itk.BinaryThinningImageFilter3D.New(itk.image_from_array(v))
        f.Update()
        return itk.array_from_image(f.GetOutput()) != 0
    return best_of(1, run)


def skimage_thin(v):
    try:
        from skimage.morphology import skeletonize_3d as skeletonize
    except ImportError:
        from skimage.morphology import skeletonize
    return best_of(1, lambda: skeletonize(v) != 0)


def thinning(args):
    import skimage
    v = (np.load(args.volume) != 0).astype(np.uint8)
    try:
        import itk
        itk_sk, t_itk = itk_thin(v, args.itk_threads)
        itk_version = f"ITK {itk.Version.GetITKVersion()}"
    except ImportError:  # ITK is a 1.5 GB install: the GPU machine does without it
        print("ITK is not installed: its columns are left empty", file=sys.stderr)
        itk_sk, t_itk, itk_version = None, float("nan"), "ITK not installed"
    sk_sk, t_sk = skimage_thin(v)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "s.npy")
        run_portacl(args, "skeleton", args.volume, "-o", out)  # the first run on a device builds the kernels
        _, wall, dev = run_portacl(args, "skeleton", args.volume, "-o", out)
        ours = np.load(out) != 0
    d_sk = int((ours != sk_sk).sum())
    if itk_sk is not None:
        d_itk, d_peers = int((ours != itk_sk).sum()), int((itk_sk != sk_sk).sum())
        itk_cells = f"{int(itk_sk.sum())} / {d_itk} | {int(sk_sk.sum())} / {d_sk} | {d_peers} | {t_itk:.2f} s ({itk_version})"
    else:
        d_itk = 0
        itk_cells = f"- | {int(sk_sk.sum())} / {d_sk} | - | ({itk_version})"
    print(f"| {os.path.basename(args.volume)} {v.shape[0]}x{v.shape[1]}x{v.shape[2]} | {int(ours.sum())} | {itk_cells} | "
          f"{t_sk:.2f} s (scikit-image {skimage.__version__}) | {wall:.2f} s / {dev * 1e3:.1f} ms | "
          f"{t_sk / wall:.1f}x / {t_sk / dev:.0f}x |")
    return 0 if d_itk == 0 and d_sk == 0 else 1


def graph(args):
    import pandas as pd
    from scipy import ndimage
    from skan import Skeleton, summarize
    with tempfile.TemporaryDirectory() as tmp:
        out, csv = os.path.join(tmp, "s.npy"), os.path.join(tmp, "b.csv")
        run_portacl(args, "skeleton", args.volume, "-o", out, "--branches", csv)
        sk = np.load(out) != 0
        ours = pd.read_csv(csv)
    skel = Skeleton(sk)
    summary = summarize(skel, separator="_")
    # Degrees in the skeleton itself (26 neighbours). skan keeps every voxel of degree 3 or more as a
    # node of its own, joined to its neighbours of degree 3 or more by their minimum spanning tree,
    # and recounts degrees on that graph; portacl makes each 26-connected cluster of such voxels one
    # junction. Cutting skan's paths at every voxel of degree 3 or more, and dropping the pieces that
    # are a single step between two of them (inside a junction), must give portacl's branches.
    degree = ndimage.convolve(sk.astype(int), np.ones((3, 3, 3), int), mode="constant") - 1
    degree[~sk] = 0
    junction = degree >= 3
    _, n_clusters = ndimage.label(junction, structure=np.ones((3, 3, 3)))

    def pieces(coords):
        cycle = len(coords) > 2 and (coords[0] == coords[-1]).all()
        cuts = [k for k in range(len(coords)) if junction[tuple(coords[k])]]
        if cycle and not cuts:
            steps = np.sqrt((np.diff(coords, axis=0) ** 2).sum(axis=1))
            return [(3, len(coords) - 1, float(steps.sum()))]
        if cycle:  # rotate the ring to start and end at a junction voxel
            k = cuts[0]
            coords = np.concatenate([coords[k:-1], coords[:k + 1]])
            cuts = [j for j in range(len(coords)) if junction[tuple(coords[j])]]
        bounds = sorted(set([0, len(coords) - 1] + cuts))
        out = []
        for s0, s1 in zip(bounds[:-1], bounds[1:]):
            seg = coords[s0:s1 + 1]
            ends_j = int(junction[tuple(seg[0])]) + int(junction[tuple(seg[-1])])
            if len(seg) == 2 and ends_j == 2:
                continue  # a step inside a junction
            steps = np.sqrt((np.diff(seg, axis=0) ** 2).sum(axis=1))
            out.append((ends_j, len(seg), float(steps.sum())))
        return out

    skan_cut = [p for i in range(skel.n_paths) for p in pieces(skel.path_coordinates(i).astype(int))]
    ours_rows = [(int(t), int(n), float(l)) for t, n, l in zip(ours["type"], ours["voxels"], ours["length"])]
    # The same branches: type, voxels and length (to the CSV's 10 digits), one for one.
    a, b = sorted(ours_rows), sorted(skan_cut)
    equal = len(a) == len(b) and all(x[:2] == y[:2] and abs(x[2] - y[2]) <= 1e-7 * max(1.0, y[2]) for x, y in zip(a, b))
    if not equal:
        print(f"first differences: {[(x, y) for x, y in zip(a, b) if x[:2] != y[:2] or abs(x[2] - y[2]) > 1e-6][:5]}", file=sys.stderr)
    by_type = lambda types: "/".join(str(sum(1 for t in types if t == k)) for k in range(4))
    ours_total = sum(l for _, _, l in ours_rows)
    print(f"portacl: {len(ours_rows)} branches by type {by_type([r[0] for r in ours_rows])}, total {ours_total:.4f}\n"
          f"skan: {len(summary)} paths by type {by_type(summary['branch_type'])}, total {summary['branch_distance'].sum():.4f};"
          f" cut at junction voxels: {len(skan_cut)} by type {by_type([r[0] for r in skan_cut])},"
          f" total {sum(l for _, _, l in skan_cut):.4f}", file=sys.stderr)
    print(f"| {os.path.basename(args.volume)} | {int(sk.sum())} | {int((degree == 1).sum())} | {n_clusters} ({int(junction.sum())} voxels) | "
          f"{len(ours_rows)} ({by_type([r[0] for r in ours_rows])}), {ours_total:.2f} | "
          f"{len(summary)} ({by_type(summary['branch_type'])}), {summary['branch_distance'].sum():.2f} | "
          f"{'equal' if equal else 'DIFFER'} |")
    return 0 if equal else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("volume")
    p.add_argument("out")
    p.add_argument("kind", choices=["blobs", "puma", "tiled"])
    p.add_argument("params", nargs="*")
    for name in ("boxcount", "thinning", "graph"):
        p = sub.add_parser(name)
        p.add_argument("volume")
        p.add_argument("--portacl", default=os.path.join(ROOT, "build", "portacl"))
        p.add_argument("--device", default="")
        if name == "boxcount":
            p.add_argument("--repeats", type=int, default=2)
        if name == "thinning":
            p.add_argument("--itk-threads", type=int, default=0)
    args = ap.parse_args()
    if args.cmd == "volume":
        return make_volume(args)
    return {"boxcount": boxcount, "thinning": thinning, "graph": graph}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
