#!/usr/bin/python3
"""`portacl voronoi TOPOLOGY.pdb TRAJ.dcd|TRAJ.xtc` against the same frames run as structures.

Writes, with chemfiles' Python API, a DCD and an XTC of 4 frames: the first model of 2JUY (392 atoms,
hydrogens and HETATM records among them, which the default filter leaves out, so that the topology's
record numbers are what places each ball) moved by up to 0.2 A per coordinate. Reads each back with
chemfiles (DCD: float32 coordinates; XTC: 0.001 nm steps), checks they are the written positions in
Angstrom within the format's precision, and writes the decoded positions, with every digit, as an
mmCIF of one model per frame. The trajectory's batch on a set of two PoCL contexts must give, frame
for frame, the bytes of that mmCIF run on one device, and the last frame alone as its own structure
the bytes of that frame. Then the refusals, each one sentence, a non-zero status and no output: a
truncated DCD and XTC, a topology of another atom count, a trajectory with no topology, and chemfiles
missing (PORTACL_CHEMFILES pointing nowhere).

usage: /usr/bin/python3 tests/cli/voronoi_trajectory.py --portacl build/portacl [--device pocl]
         [--chemfiles /opt/portacl/chemfiles/chemfiles/libchemfiles.so]
Exit status 77 (CTest's skip) when chemfiles' Python package or the shared data is missing.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

chemfiles = None


def import_chemfiles(library):
    """chemfiles' Python package from the folder that holds the library the command loads."""
    global chemfiles
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(library))) if library else \
        os.environ.get("PORTACL_CHEMFILES_PREFIX", "/opt/portacl/chemfiles")
    sys.path.insert(0, prefix)
    try:
        import chemfiles as module
    except ImportError:
        return False
    chemfiles = module
    return True


HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("PORTACL_DATA_DIR", os.path.join(HERE, "..", "..", "..", "shared", "data"))
FRAMES = 4
DEVICE = "pocl"
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def first_model_records(pdb):
    """The ATOM/HETATM lines of the first model, and their x, y, z."""
    lines = []
    with open(pdb) as f:
        for line in f:
            if line.startswith("ENDMDL") and lines:
                break
            if line.startswith(("ATOM  ", "HETATM")):
                lines.append(line.rstrip("\n"))
    xyz = np.array([[float(l[30:38]), float(l[38:46]), float(l[46:54])] for l in lines])
    return lines, xyz


def write_trajectory(path, frames):
    with chemfiles.Trajectory(path, "w") as t:
        for xyz in frames:
            f = chemfiles.Frame()
            f.resize(len(xyz))
            f.positions[:] = xyz
            t.write(f)


def read_trajectory(path):
    t = chemfiles.Trajectory(path)
    out = []
    for k in range(t.nsteps):
        frame = t.read_step(k)  # held while its positions are copied: they live in the frame
        out.append(np.array(frame.positions, dtype=np.float64))
    t.close()
    return out


def write_cif(path, records, frames):
    """One model per frame, the records' labels and the frames' positions with every digit."""
    cols = ["group_PDB", "id", "type_symbol", "label_atom_id", "label_alt_id", "label_comp_id", "label_asym_id",
            "label_seq_id", "pdbx_PDB_ins_code", "Cartn_x", "Cartn_y", "Cartn_z", "pdbx_PDB_model_num"]
    out = ["data_trajectory", "loop_"] + ["_atom_site." + c for c in cols]
    for m, xyz in enumerate(frames):
        for line, (x, y, z) in zip(records, xyz):
            field = lambda a, b: line[a:b].strip() or "."
            out.append(" ".join([line[0:6].strip(), field(6, 11), field(76, 78), field(12, 16), field(16, 17),
                                 field(17, 20), field(20, 22), field(22, 26), field(26, 27) if line[26:27].strip() else "?",
                                 repr(float(x)), repr(float(y)), repr(float(z)), str(m + 1)]))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def run(portacl, args, env=None):
    e = dict(os.environ, PORTACL_NO_PROGRESS="1")
    e.update(env or {})
    return subprocess.run([portacl, "voronoi"] + args, capture_output=True, text=True, env=e)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--portacl", required=True)
    ap.add_argument("--device", default="pocl")
    ap.add_argument("--chemfiles", help="the libchemfiles.so the command was configured with (its package is imported from beside it)")
    a = ap.parse_args()
    global DEVICE
    DEVICE = a.device
    if not import_chemfiles(a.chemfiles):
        print("chemfiles is not installed (bash scripts/install-deps.sh installs it into /opt/portacl/chemfiles)")
        return 77
    pdb = os.path.join(DATA, "pdb", "nmr_neopetrosiamide_2JUY.pdb")
    if not os.path.exists(pdb):
        print("needs the shared data: %s is missing" % pdb)
        return 77
    work = tempfile.mkdtemp(prefix="portacl_trajectory_")
    try:
        records, base = first_model_records(pdb)
        top = os.path.join(work, "top.pdb")
        with open(top, "w") as f:
            f.write("\n".join(records) + "\nEND\n")
        rng = np.random.default_rng(29)
        written = [base + rng.uniform(-0.2, 0.2, base.shape) for _ in range(FRAMES)]
        device_set = "%s*2" % a.device
        # precision of the format's decoded positions, in Angstrom (XTC: 0.001 nm steps)
        for ext, tolerance in (("dcd", 1e-4), ("xtc", 0.0051)):
            traj = os.path.join(work, "t." + ext)
            write_trajectory(traj, written)
            decoded = read_trajectory(traj)
            check(len(decoded) == FRAMES, "%s: chemfiles reads %d frames back" % (ext, len(decoded)))
            err = max(np.abs(d - w).max() for d, w in zip(decoded, written))
            check(err <= tolerance, "%s: decoded positions within %g A of those written (Angstrom), off by %g" % (ext, tolerance, err))
            cif = os.path.join(work, ext + "_models.cif")
            write_cif(cif, records, decoded)
            alone = os.path.join(work, ext + "_alone.cif")
            write_cif(alone, records, decoded[-1:])
            for d in ("batch", "models", "alone"):
                os.makedirs(os.path.join(work, ext, d))
            out = lambda d, name: os.path.join(work, ext, d, name)
            r = run(a.portacl, [top, traj, "-o", out("batch", "v.txt"), "--edges", out("batch", "e.txt"), "--device", device_set])
            check(r.returncode == 0, "%s: the trajectory's batch runs: %s" % (ext, r.stderr))
            check("%d items" % FRAMES in r.stderr, "%s: the batch has %d items: %s" % (ext, FRAMES, r.stderr))
            r = run(a.portacl, [cif, "-o", out("models", "v.txt"), "--edges", out("models", "e.txt"), "--device", a.device])
            check(r.returncode == 0, "%s: the models' run: %s" % (ext, r.stderr))
            r = run(a.portacl, [alone, "-o", out("alone", "v.txt"), "--device", a.device])
            check(r.returncode == 0, "%s: the last frame alone: %s" % (ext, r.stderr))
            for k in range(1, FRAMES + 1):
                for kind in ("v", "e"):
                    name = "%s.%d.txt" % (kind, k)
                    batch = read(out("batch", name))
                    check(len(batch) > 1000, "%s: %s has vertices" % (ext, name))
                    check(batch == read(out("models", name)), "%s: %s of the trajectory equals that model's" % (ext, name))
            check(read(out("batch", "v.%d.txt" % FRAMES)) == read(out("alone", "v.txt")),
                  "%s: the last frame equals the same coordinates run alone" % ext)
            # A file cut inside its last frame.
            cut = os.path.join(work, "cut." + ext)
            with open(cut, "wb") as f:
                f.write(read(traj)[: os.path.getsize(traj) - 200])
            refused(a.portacl, [top, cut, "-o", os.path.join(work, "cut", "v.txt")], "truncated", "%s cut short" % ext)
        # A topology of one atom fewer.
        short = os.path.join(work, "short.pdb")
        with open(short, "w") as f:
            f.write("\n".join(records[:-1]) + "\nEND\n")
        refused(a.portacl, [short, os.path.join(work, "t.dcd"), "-o", os.path.join(work, "short", "v.txt")],
                "atoms, but the topology", "a topology of another atom count")
        refused(a.portacl, [os.path.join(work, "t.xtc"), "-o", os.path.join(work, "first", "v.txt")],
                "give its topology first", "a trajectory without its topology")
        refused(a.portacl, [top, os.path.join(work, "t.xtc"), "-o", os.path.join(work, "none", "v.txt")],
                "install-deps.sh", "chemfiles missing", {"PORTACL_CHEMFILES": os.path.join(work, "nowhere")})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("%d checks failed" % len(failures))
        return 1
    print("voronoi over DCD and XTC trajectories: every frame equals its own structure's run")
    return 0


def refused(portacl, args, phrase, what, env=None):
    os.makedirs(os.path.dirname(args[args.index("-o") + 1]), exist_ok=True)
    r = run(portacl, args + ["--device", DEVICE], env)
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    check(r.returncode != 0, "%s: refused with a non-zero status" % what)
    check(len(lines) == 1 and phrase in lines[0], "%s: one sentence saying '%s': %r" % (what, phrase, r.stderr))
    left = glob.glob(os.path.join(os.path.dirname(args[args.index("-o") + 1]), "*"))
    check(not left, "%s: no output left (%s)" % (what, left))


if __name__ == "__main__":
    sys.exit(main())
