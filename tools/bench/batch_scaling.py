#!/usr/bin/env python3
"""The scaling table of a batch over device sets and MPI ranks (docs/multi_device.md): items per
second of one batch command on each device set, its speed-up over the first row, and the efficiency
(speed-up divided by the hardware the row spans).

Each entry of --sets is [Rx]SPEC[=U]: R MPI ranks (mpirun -n R; default one process), the --device
SPEC of each, and U, the hardware units the row spans (GPUs, or whole CPUs; default 1). Examples:
  --sets "0:0=1;0:0,0:1=2;gpu=4;2xauto=2;4xauto=4"   one to four GPUs, in one process and one rank per GPU
  --sets "pocl;pocl/2;pocl*2;pocl,intel;2xpocl"       the CPU implementations of one machine (U = 1)

Workloads (the batch is made in a scratch folder):
  voronoi  the 24-model NMR ensemble 2JUY repeated --repeat times (24 x repeat frames), mixed precision
  filter   --images random 8-bit images of --side^2 pixels, median:5 then sobel; --format png
           (deflate: the host's encoding and decoding can outweigh the devices' work) or pgm
           (uncompressed: the devices' work and the copies to and from them)
  lineal   --images random two-phase PNG images of --side^2 pixels (0/1, a third of them 1; at most
           32 distinct, the rest links to them, as for the filter), the
           lineal path of phase 1 up to --max-length (the batch where a slow member's first item
           once held a GPU set: compare "gpu" with "gpu,pocl")

Each row runs --runs times and keeps the median of the batch's own seconds (the command's report:
the batch alone up to its last output written, without start-up and input reading). The busy column
divides the members' busy time of that run (the report's phases; under mpirun rank 0's): waiting for
the device, host work, reading and writing, locks and kernel builds; a row whose device share is low
is limited by the host, not by the devices. The last column is how busy the host threads that write
behind the devices were over the batch (near 100 %: they, not the devices, limit it)."""
import argparse
import os
import random
import re
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib


def write_png(path, width, height, pixels):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + pixels[y * width:(y + 1) * width] for y in range(height))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b""))


def make_ensemble(source, repeat, path):
    """The MODEL ... ENDMDL blocks of `source`, repeated, renumbered."""
    text = open(source).read().splitlines()
    models, current = [], None
    for line in text:
        if line.startswith("MODEL"):
            current = []
        elif line.startswith("ENDMDL"):
            models.append(current)
            current = None
        elif current is not None:
            current.append(line)
    with open(path, "w") as out:
        n = 0
        for _ in range(repeat):
            for m in models:
                n += 1
                out.write("MODEL     %4d\n" % n)
                out.write("\n".join(m) + "\nENDMDL\n")
        out.write("END\n")
    return n


def folder_bytes(folder):
    total = 0
    for root, _, files in os.walk(folder):
        for f in files:
            try:
                total += os.stat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def filesystem_of(path):
    """The type of the file system `path` lies on ("ext4", "tmpfs"), from /proc/mounts."""
    best, kind = "", "unknown"
    real = os.path.realpath(path)
    try:
        for line in open("/proc/mounts"):
            fields = line.split()
            if len(fields) > 2 and (real == fields[1] or real.startswith(fields[1].rstrip("/") + "/")) and len(fields[1]) > len(best):
                best, kind = fields[1], fields[2]
    except OSError:
        pass
    return kind


def parse_entry(entry):
    m = re.fullmatch(r"(?:(\d+)x)?(.+?)(?:=(\d+(?:\.\d+)?))?", entry.strip())
    if not m:
        raise SystemExit(f"batch_scaling: '{entry}' is not [Rx]SPEC[=U]")
    return int(m.group(1) or 1), m.group(2), float(m.group(3) or 1)


def batch_seconds(stderr):
    """The batch's seconds up to its last output written. Builds whose Voronoi wrote frames on a thread per member left its last
    frames out of the batch's line ("the last frames written in S s"): they are added back."""
    m = re.search(r"(\d+) items in ([0-9.]+) s", stderr)
    if not m:
        raise RuntimeError("no batch report in the command's output:\n" + stderr)
    tail = re.search(r"the last frames written in ([0-9.]+) s", stderr)
    return int(m.group(1)), float(m.group(2)) + (float(tail.group(1)) if tail else 0.0)


def busy_shares(stderr):
    """The report's "the members' busy time: read 1 %, host 9 %, device 88 %, ..." (under mpirun
    rank 0's "this rank's busy time") as a dict."""
    m = re.search(r"(?:the members'|this rank's) busy time: ([^;\n]*)", stderr)
    if not m:
        return {}
    return {k: float(v) for k, v in re.findall(r"(\w+) ([0-9.]+) %", m.group(1))}


def writers_busy(stderr):
    """The writers' busy share ("outputs written on N host threads behind the devices, busy P %"), or None."""
    m = re.search(r"behind the devices, busy ([0-9.]+) %", stderr)
    return float(m.group(1)) if m else None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--portacl", default="build/portacl")
    p.add_argument("--workload", choices=["voronoi", "filter", "lineal"], default="voronoi")
    p.add_argument("--sets", required=True, help="entries [Rx]SPEC[=U] separated by ';'")
    p.add_argument("--repeat", type=int, default=10, help="voronoi: copies of the 24 models")
    p.add_argument("--images", type=int, default=32, help="filter: images in the batch")
    p.add_argument("--side", type=int, default=1024, help="filter: image side in pixels")
    p.add_argument("--format", choices=["png", "pgm"], default="png", help="filter: the images' file format")
    p.add_argument("--max-length", type=int, default=32, help="lineal: the longest segment")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--data", default=os.environ.get("PORTACL_DATA_DIR", os.path.join(os.path.dirname(__file__), "../../../shared/data")))
    # Unbound: Open MPI binds each rank of a job of two ranks or fewer to one core, which starves
    # the host threads that feed a rank's devices.
    p.add_argument("--mpirun", default="mpirun --oversubscribe --bind-to none")
    p.add_argument("--verbose", action="store_true", help="print each run's batch report (per member and phase) on stderr")
    p.add_argument("--scratch", default=None, help="the folder for the batch's inputs and outputs (default: the system's temporary "
                   "folder; /dev/shm takes the disk out of the measurement)")
    p.add_argument("--no-warmup", action="store_true", help="skip the untimed first run of the first row (it builds the kernels "
                   "into the cache on a fresh machine)")
    args = p.parse_args()
    args.portacl = shlex.split(args.portacl)  # ".device/run portacl" on the GPU machines

    scratch = tempfile.mkdtemp(prefix="portacl-scaling-", dir=args.scratch)
    try:
        return measure(args, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def measure(args, scratch):
    if args.workload == "voronoi":
        source = os.path.join(args.data, "pdb/nmr_neopetrosiamide_2JUY.pdb")
        if not os.path.exists(source):
            raise SystemExit(f"batch_scaling: {source} is missing (set --data or PORTACL_DATA_DIR)")
        ensemble = os.path.join(scratch, "ensemble.pdb")
        items = make_ensemble(source, args.repeat, ensemble)
        out = os.path.join(scratch, "out")
        os.mkdir(out)
        command = ["voronoi", ensemble, "-o", os.path.join(out, "v.txt")]
        what = f"Voronoi vertices of 2JUY's 24 models x {args.repeat} = {items} frames (mixed precision)"
    elif args.workload == "lineal":
        images = os.path.join(scratch, "in")
        out = os.path.join(scratch, "out")
        os.mkdir(images)
        os.mkdir(out)
        rng = random.Random(7)
        # At most 32 distinct images, the rest links to them (as for the filter), each computed and
        # written under its own name.
        distinct = min(args.images, 32)
        for i in range(args.images):
            path = os.path.join(images, f"m{i:04d}.png")
            if i < distinct:
                pixels = bytes(1 if b < 85 else 0 for b in rng.randbytes(args.side * args.side))
                write_png(path, args.side, args.side, pixels)
            else:
                os.link(os.path.join(images, f"m{i % distinct:04d}.png"), path)
        command = ["lineal-path", images, "--phase", "1", "--max-length", str(args.max_length), "-o", out, "--format", "npy"]
        items = args.images
        what = f"lineal path (phase 1, up to {args.max_length}) of {items} random two-phase images of {args.side}x{args.side}"
    else:
        images = os.path.join(scratch, "in")
        out = os.path.join(scratch, "out")
        os.mkdir(images)
        os.mkdir(out)
        # At most 32 distinct images; the rest are links to them (a 1000-image stack of 4096^2 would
        # otherwise take a long time to make), each filtered and written under its own name.
        rng = random.Random(5)
        distinct = min(args.images, 32)
        for i in range(args.images):
            path = os.path.join(images, f"img{i:04d}.{args.format}")
            if i < distinct:
                pixels = rng.randbytes(args.side * args.side)
                if args.format == "png":
                    write_png(path, args.side, args.side, pixels)
                else:
                    with open(path, "wb") as f:
                        f.write(b"P5\n%d %d\n255\n" % (args.side, args.side) + pixels)
            else:
                os.link(os.path.join(images, f"img{i % distinct:04d}.{args.format}"), path)
        command = ["filter", images, "-o", out, "--op", "median:5", "--op", "sobel"]
        items = args.images
        what = f"filter median:5 + sobel over {items} random 8-bit {args.format.upper()} images of {args.side}x{args.side}"

    # A run's outputs, as temporaries beside the last run's until they are renamed over them.
    need = 2.2 * {"voronoi": items * 110e3, "filter": items * args.side ** 2 * 1.05, "lineal": items * 1e5}[args.workload]
    free = shutil.disk_usage(scratch).free
    if free < need:
        raise SystemExit(f"batch_scaling: {os.path.dirname(scratch)} has {free / 1e9:.1f} GB free and the runs need about "
                         f"{need / 1e9:.1f} GB: give --scratch a folder with room")
    entries = [e for e in args.sets.split(";") if e.strip()]

    def run(entry):
        ranks, spec, _ = parse_entry(entry)
        launch = (shlex.split(args.mpirun) + ["-n", str(ranks)]) if ranks > 1 else []
        # Every run starts with nothing of the runs before it waiting to be written back to the disk.
        t0 = time.monotonic()
        os.sync()
        if time.monotonic() - t0 > 1:
            sys.stderr.write(f"batch_scaling: waited {time.monotonic() - t0:.1f} s for the disk's writeback before --device {spec}\n")
        r = subprocess.run(launch + args.portacl + command + ["--device", spec], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"batch_scaling: {' '.join(launch + args.portacl + command)} --device {spec} failed:\n{r.stderr}")
        if args.verbose:
            sys.stderr.write(f"--device {spec} ranks {ranks}:\n{r.stderr}\n")
        return r.stderr

    if not args.no_warmup:
        run(entries[0])  # the kernels built into the cache, the inputs read once
    # Each row is printed as soon as it is measured (a run cut short by a time limit keeps its rows).
    rows = []
    for entry in entries:
        ranks, spec, units = parse_entry(entry)
        times, shares, writers = [], [], []
        for _ in range(args.runs):
            stderr = run(entry)
            n, s = batch_seconds(stderr)
            times.append(s)
            shares.append(busy_shares(stderr))
            writers.append(writers_busy(stderr))
        seconds = statistics.median(times)
        # The median run's division of the members' busy time.
        median = times.index(seconds) if seconds in times else 0
        rows.append((entry.strip(), ranks, spec, units, n, seconds, n / seconds, shares[median], writers[median]))
        if len(rows) == 1:
            written = folder_bytes(out)  # every run writes the same outputs
            print(f"{what}; median of {args.runs} runs of the batch's own time; {written / 1e6:.0f} MB of outputs a run, "
                  f"written to {filesystem_of(out)} ({os.path.dirname(os.path.dirname(out))})")
            print()
            print("| run | ranks | --device | hardware units | items | seconds | items/s | speed-up | efficiency | output MB/s | busy: device / host / read+write / locks+builds | writers busy |")
            print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
            base = rows[0][6] / rows[0][3]
        entry, ranks, spec, units, n, seconds, rate, share, writer = rows[-1]
        speed = rate / rows[0][6]
        busy = "-" if not share else (f"{share.get('device', 0):.0f} / {share.get('host', 0):.0f} / "
                                      f"{share.get('read', 0) + share.get('write', 0):.0f} / {share.get('locks', 0) + share.get('builds', 0):.0f} %")
        behind = "-" if writer is None else f"{writer:.0f} %"
        print(f"| `{entry}` | {ranks} | `{spec}` | {units:g} | {n} | {seconds:.3f} | {rate:.2f} | {speed:.2f} | {100 * rate / (base * units):.0f} % | "
              f"{written / 1e6 / seconds:.0f} | {busy} | {behind} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
