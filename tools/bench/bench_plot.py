#!/usr/bin/env python3
"""Draws `portacl bench --csv` results as a picture: one row per workload case (workload, size,
precision), one bar per device, in panels of device time (log scale), percent of that device's
measured peak, and, when the bench had a --baseline, the speed-up over the baseline device.
Writes the PNG and the SVG: bench_plot.py results.csv bench.png  ->  bench.png and bench.svg.
`portacl bench --plot FILE.png` runs it on the bench's own rows."""
import csv
import math
import os
import sys


def number(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return math.nan
    return v


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: bench_plot.py RESULTS.csv OUT.png|OUT.svg (both are written)\n")
        return 2
    source, out = argv[1], argv[2]
    stem, ext = os.path.splitext(out)
    if ext.lower() not in (".png", ".svg"):
        sys.stderr.write(f"bench_plot: the plot's name must end in .png or .svg, not '{ext}'\n")
        return 2
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(source, newline="") as f:
        rows = [r for r in csv.DictReader(f) if math.isfinite(number(r.get("seconds")))]
    if not rows:
        sys.stderr.write(f"bench_plot: {source} has no timed row to draw\n")
        return 1
    devices = list(dict.fromkeys(r["device"] for r in rows))
    cases = list(dict.fromkeys((r["workload"], r["size"], r["precision"]) for r in rows))
    value = {(r["device"], r["workload"], r["size"], r["precision"]): r for r in rows}
    baseline = next((r.get("baseline", "") for r in rows if r.get("baseline")), "")
    panels = [("device time (ms, log scale)", lambda r: 1e3 * number(r["seconds"]), True),
              ("percent of the device's measured peak (log scale)", lambda r: number(r["percent_of_peak"]), True)]
    if baseline:
        panels.append((f"speed-up over {baseline} (log scale)", lambda r: number(r.get("baseline_ratio")), True))

    height = 1.2 + 0.22 * len(cases) * max(1, len(devices)) ** 0.5
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels) + 3.5, height), sharey=True, squeeze=False)
    bar = 0.8 / len(devices)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    labels = [f"{w}  {s}  {p}" for (w, s, p) in cases]
    for ax, (title, get, log) in zip(axes[0], panels):
        for d, dev in enumerate(devices):
            ys, xs = [], []
            for i, (w, s, p) in enumerate(cases):
                r = value.get((dev, w, s, p))
                v = get(r) if r else math.nan
                if math.isfinite(v) and (v > 0 or not log):
                    ys.append(i - 0.4 + bar * (d + 0.5))
                    xs.append(v)
            ax.barh(ys, xs, height=bar, color=colours[d % len(colours)], label=dev)
        if log:
            ax.set_xscale("log")
        if "speed-up" in title:
            ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_title(title, fontsize=10)
        ax.grid(axis="x", which="both", alpha=0.3)
        ax.set_ylim(len(cases) - 0.5, -0.5)
    axes[0][0].set_yticks(range(len(cases)))
    axes[0][0].set_yticklabels(labels, fontsize=8)
    axes[0][-1].legend(loc="lower right", fontsize=8)
    fig.suptitle("portacl bench", fontsize=11)
    fig.tight_layout()
    for path in (stem + ".png", stem + ".svg"):
        tmp = path + ".tmp" + os.path.splitext(path)[1]
        fig.savefig(tmp, dpi=110)
        os.replace(tmp, path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
