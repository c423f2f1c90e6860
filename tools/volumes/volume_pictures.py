#!/usr/bin/env python3
"""Pictures for the volume commands (docs/volumes.md), with matplotlib:

  volume_pictures.py box-count R.json OUT.png
      the log-log plot of N(s) from `portacl box-count --json`, the fitted line over its range
      (and the 8-placement mean with its fit when the JSON has them)
  volume_pictures.py mip VOLUME SKELETON OUT.png [--threshold T]
      maximum-intensity projections along z, y and x of the object (grey) with its skeleton (red);
      VOLUME and SKELETON are .npy or TIFF stacks (scikit-image reads the TIFF)
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def load(path):
    if path.endswith(".npy"):
        return np.load(path)
    from skimage import io
    return io.imread(path)


def box_count(json_path, out):
    r = json.load(open(json_path))
    sides = np.array([s["side"] for s in r["sizes"]], float)
    counts = np.array([s["count"] for s in r["sizes"]], float)
    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    keep = counts > 0
    ax.loglog(sides[keep], counts[keep], "o", color="C0", label="N(s), grid at the origin")
    f = r["fit"]
    xs = np.array([f["fit_min"], f["fit_max"]], float)
    ax.loglog(xs, np.exp(f["intercept"]) * xs ** -f["dimension"], "-", color="C0",
              label=f"fit {f['fit_min']}..{f['fit_max']}: D = {f['dimension']:.3f}, R² = {f['r2']:.4f}")
    if "offset_fit" in r:
        mean = np.array([s["offset_mean"] for s in r["sizes"]], float)
        ax.loglog(sides[mean > 0], mean[mean > 0], "s", mfc="none", color="C1", label="mean of 8 grid placements")
        g = r["offset_fit"]
        ax.loglog(xs, np.exp(g["intercept"]) * xs ** -g["dimension"], "--", color="C1",
                  label=f"its fit: D = {g['dimension']:.3f}, R² = {g['r2']:.4f}")
    ax.set_xlabel("box side s (voxels)")
    ax.set_ylabel(f"N(s), {r['count']} boxes")
    ax.set_title(f"box counting of the {r['of']} ({r['object']})", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def mip(volume_path, skeleton_path, out, threshold=None):
    v = load(volume_path)
    obj = v >= threshold if threshold is not None else v != 0
    sk = load(skeleton_path) != 0
    fig, axes = plt.subplots(1, 3, figsize=(11, 4))
    for axis, name, ax in zip(range(3), "zyx", axes):
        o = obj.max(axis=axis).astype(float)
        s = sk.max(axis=axis)
        rgb = np.stack([0.85 - 0.45 * o] * 3, axis=-1)
        rgb[s] = [0.85, 0.05, 0.05]
        ax.imshow(rgb, origin="lower", interpolation="nearest")
        ax.set_title(f"projection along {name}", fontsize=10)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle(f"object (grey, {int(obj.sum())} voxels) and skeleton (red, {int(sk.sum())} voxels), "
                 "maximum-intensity projections", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=90)


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "box-count":
        box_count(args[1], args[2])
    elif len(args) in (4, 6) and args[0] == "mip":
        t = float(args[5]) if len(args) == 6 and args[4] == "--threshold" else None
        mip(args[1], args[2], args[3], t)
    else:
        sys.exit(__doc__)
