#!/usr/bin/python3
"""Pictures of a k-Wave output file (written by `portacl kwave` / kspaceFirstOrder-OpenCL, or by
k-Wave's own solvers): PREFIX_sensor.png, the recorded pressure `p` as an image (time across, sensor
point down); PREFIX_p_max.png, the maximum pressure: `p_max_all` over the grid (its middle z slice in
3-D) with the sensor points' `p_max` on top when the input file is given, else `p_max` per sensor
point; PREFIX_p_final.png, the final pressure field (middle z slice in 3-D). Each picture is made only
when its dataset is in the file.

usage: /usr/bin/python3 tools/plot/kwave_output.py OUTPUT.h5 PREFIX [--input INPUT.h5]
(needs Debian's python3-h5py, python3-numpy and python3-matplotlib)
"""
import argparse
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def scalar(f, name, default=None):
    return f[name][()].reshape(-1)[0] if name in f else default


def middle_slice(field):
    """A (Nz, Ny, Nx) field's middle z slice, or the 2-D field itself (Nz = 1)."""
    return field[field.shape[0] // 2] if field.shape[0] > 1 else field[0]


def save(fig, path):
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=110, bbox_inches="tight")
    plt.close(fig)
    os.replace(tmp, path)
    print(path)


def grid_image(ax, field, dx, dy, title, cmap, symmetric):
    ny, nx = field.shape
    extent = [0, nx * dx * 1e3, 0, ny * dy * 1e3]
    lim = np.abs(field).max() or 1.0
    im = ax.imshow(field, origin="lower", extent=extent, cmap=cmap,
                   vmin=-lim if symmetric else 0, vmax=lim, interpolation="nearest")
    ax.set_xlabel("x [mm]")
    ax.set_ylabel("y [mm]")
    ax.set_title(title)
    return im


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("output", help="k-Wave output file (HDF5)")
    ap.add_argument("prefix", help="pictures are PREFIX_sensor.png, PREFIX_p_max.png, PREFIX_p_final.png")
    ap.add_argument("--input", help="the simulation's input file (for the sensor points' positions)")
    a = ap.parse_args()
    for path in [a.output] + ([a.input] if a.input else []):
        if not os.path.isfile(path):
            sys.exit(f"kwave_output.py: '{path}' does not exist")
    folder = os.path.dirname(a.prefix) or "."
    if not os.path.isdir(folder):
        sys.exit(f"kwave_output.py: the folder '{folder}' of the prefix does not exist")

    with h5py.File(a.output, "r") as f:
        if not any(k in f for k in ("p", "p_max", "p_max_all", "p_final")):
            sys.exit(f"kwave_output.py: '{a.output}' holds none of p, p_max, p_max_all, p_final")
        dt = float(scalar(f, "dt", 1.0))
        dx, dy = float(scalar(f, "dx", 1.0)), float(scalar(f, "dy", 1.0))
        start = int(scalar(f, "p_start_time_index", 1))

        if "p" in f:
            p = f["p"][()].reshape(-1, f["p"].shape[-1])  # (time, sensor point)
            t0 = (start - 1) * dt * 1e6
            fig, ax = plt.subplots(figsize=(7, 4))
            lim = np.abs(p).max() or 1.0
            im = ax.imshow(p.T, aspect="auto", origin="upper", cmap="RdBu_r", vmin=-lim, vmax=lim,
                           extent=[t0, t0 + p.shape[0] * dt * 1e6, p.shape[1] - 0.5, -0.5], interpolation="nearest")
            ax.set_xlabel("time [µs]")
            ax.set_ylabel("sensor point")
            ax.set_title("recorded pressure p")
            fig.colorbar(im, ax=ax, label="pressure [Pa]")
            save(fig, a.prefix + "_sensor.png")

        mask = None
        if a.input:
            with h5py.File(a.input, "r") as fi:
                if "sensor_mask_index" in fi:
                    nz, ny, nx = (int(scalar(fi, k)) for k in ("Nz", "Ny", "Nx"))
                    idx = fi["sensor_mask_index"][()].reshape(-1).astype(np.int64) - 1  # MATLAB order, 1-based
                    mask = np.unravel_index(idx, (nx, ny, nz), order="F")  # (x, y, z) of each sensor point

        if "p_max_all" in f or "p_max" in f:
            fig, ax = plt.subplots(figsize=(6, 5))
            vmax = max(float(f[k][()].max()) for k in ("p_max_all", "p_max") if k in f) or 1.0
            if "p_max_all" in f:
                im = grid_image(ax, middle_slice(f["p_max_all"][()]), dx, dy, "maximum pressure", "viridis", False)
                im.set_clim(0, vmax)
                fig.colorbar(im, ax=ax, label="pressure [Pa]")
            if "p_max" in f:
                pmax = f["p_max"][()].reshape(-1)
                if mask is not None and len(mask[0]) == len(pmax):
                    x, y, z = mask
                    sc = ax.scatter((x + 0.5) * dx * 1e3, (y + 0.5) * dy * 1e3, c=pmax, cmap="viridis",
                                    edgecolors="white", s=40, vmin=0, vmax=vmax)
                    if "p_max_all" not in f:
                        ax.set_xlabel("x [mm]")
                        ax.set_ylabel("y [mm]")
                        ax.set_aspect("equal")
                        ax.set_title("maximum pressure at the sensor points (all z)")
                        fig.colorbar(sc, ax=ax, label="pressure [Pa]")
                elif "p_max_all" not in f:
                    ax.plot(np.arange(len(pmax)), pmax, "o-")
                    ax.set_xlabel("sensor point")
                    ax.set_ylabel("maximum pressure [Pa]")
                    ax.set_title("p_max")
            save(fig, a.prefix + "_p_max.png")

        if "p_final" in f:
            fig, ax = plt.subplots(figsize=(6, 5))
            im = grid_image(ax, middle_slice(f["p_final"][()]), dx, dy, "final pressure", "RdBu_r", True)
            fig.colorbar(im, ax=ax, label="pressure [Pa]")
            save(fig, a.prefix + "_p_final.png")


if __name__ == "__main__":
    main()
