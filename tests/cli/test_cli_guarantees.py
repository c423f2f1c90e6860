#!/usr/bin/python3
"""The command line as a new user meets it: the guarantees every command keeps.

1. The README's and the user's guides' examples run as written from a fresh clone: every line of a
   README ```sh block that starts with build/portacl, build/kspaceFirstOrder-OpenCL, mkdir or
   scripts/*.py, and every line of a ```sh block in docs/*.md but the set-up steps, runs in a clone
   of the repository (build/ and ../shared/data linked in, as the README's set-up leaves them) and
   exits 0, and every output file it names exists and is not empty (an output folder holds one).
2. Every output path and option is checked before the work: a missing folder, an unsupported
   extension, an output that is one of the inputs (by inode: hard and symbolic links too) are refused
   at once, even when the run would take minutes.
3. Every refusal is one sentence on stderr with a non-zero exit, never a crash.
4. No input is ever overwritten, special files (/dev/null, fifos, /dev/stdout) are written in place.
5. Outputs are complete or absent: a full disk (RLIMIT_FSIZE) leaves the old file or none, and no
   temporary; stale temporaries of dead processes are removed by the next run.
6. k-Wave's command behaves as k-Wave's: a checkpointed stop writes the output so far, elastic input
   is refused, --verbose 0 is silent, -g 0 on a machine without a GPU falls back to the CPU.
7. Out of memory (an address-space limit) ends in success or one sentence, never a crash.
8. Processes started at once on a cold kernel cache all succeed and leave only valid entries.
9. A process bound to some cores (taskset, mpirun's binding) runs PoCL on as many threads as it has
   cores, unless the user set PoCL's count.

usage: test_cli_guarantees.py --build BUILD_DIR --source SOURCE_DIR [--data DATA_DIR] [-k PATTERN]
"""
import argparse
import json
import os
import re
import resource
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest

ARGS = None
# Lines of the library's device notice are not part of an error message.
NOTICE = re.compile(r"^portacl: no GPU found|^No GPU found")


def run(cmd, cwd=None, timeout=600, env=None, preexec=None, stdin=None):
    """Runs cmd (a list), returns (exit status, stdout, stderr without device notices). A command still
    running after `timeout` s fails the test with the stacks of its threads (gdb, where installed),
    so that a hang says where it is."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, preexec_fn=preexec, stdin=stdin, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stacks = "(gdb is not installed)"
        if shutil.which("gdb"):
            stacks = subprocess.run(["gdb", "-p", str(p.pid), "-batch", "-ex", "thread apply all bt 25"],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120).stdout.decode(errors="replace")
        p.kill()
        p.communicate()
        raise AssertionError("%s was still running after %d s; its threads:\n%s" % (shlex.join(cmd), timeout, stacks[-20000:]))
    err = "".join(l + "\n" for l in err.decode(errors="replace").splitlines() if not NOTICE.search(l))
    return p.returncode, out.decode(errors="replace"), err


def portacl(*args, **kw):
    return run([os.path.join(ARGS.build, "portacl"), *map(str, args)], **kw)


def kwave(*args, **kw):
    return run([os.path.join(ARGS.build, "kspaceFirstOrder-OpenCL"), *map(str, args)], **kw)


def data(rel):
    return os.path.join(ARGS.data, rel)


def digest(path):
    with open(path, "rb") as f:
        return f.read()


def full_disk(limit=64 * 1024):
    """preexec_fn: writes past `limit` bytes fail with EFBIG, as a full disk fails them with ENOSPC."""
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def dead_pid():
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


# Every class derived from Scratch is a CTest test of its own (tests/CMakeLists.txt reads them here).
class Scratch(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="portacl_cli_")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def at(self, *names):
        return os.path.join(self.dir, *names)

    def assertRefused(self, result, mention, started=None, within=20.0):
        """Non-zero exit (not a signal), one line on stderr that mentions `mention`, soon."""
        rc, out, err = result
        self.assertGreater(rc, 0, "accepted: " + out + err)
        self.assertLess(rc, 64, "crashed or was killed (status %d): %s" % (rc, err))
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, "not one sentence: %r" % err)
        self.assertIn(mention, lines[0])
        self.assertNotIn("terminate called", err)
        if started is not None:
            self.assertLess(time.monotonic() - started, within, "refused only after the work")

    def assertNoTemporaries(self, folder=None):
        left = [n for n in os.listdir(folder or self.dir) if re.search(r"(\.tmp|\.commit|^\.portacl-commit)\.\d+", n)]
        self.assertEqual(left, [], "temporaries left behind")

    def kwave_input(self, name="in.h5", n=32, nt=12):
        path = self.at(name)
        subprocess.run([sys.executable, os.path.join(ARGS.source, "scripts", "kwave_example_input.py"), path, str(n),
                        "--nt", str(nt)], check=True, stdout=subprocess.DEVNULL)
        return path


# ---- 1. the README's examples, from a fresh clone ----

# The lines a user types after the build: the commands, mkdir, and the example scripts (scripts/*.py).
# The set-up scripts (scripts/*.sh, cmake) are the CI's own steps and the install test's.
RUNNABLE = re.compile(r"^(build/portacl|build/kspaceFirstOrder-OpenCL|mkdir|python3 scripts/\S+\.py|scripts/\S+\.py)\b")
OUTPUT_OPTIONS = {"-o", "--output", "--edges", "--csv", "--png", "--json", "--summary", "--history", "--descriptors"}


def sh_blocks(markdown, runnable=None):
    """Every line of every ```sh block (only those `runnable` matches, when given), in order."""
    lines, block = [], None
    with open(markdown, encoding="utf-8") as f:
        text = f.read().splitlines()
    for raw in text:
        s = raw.strip()
        if s.startswith("```"):
            block = s[3:].strip() if block is None else None
            continue
        if block in ("sh", "bash", "shell", "console") and s and not s.startswith("#"):
            if runnable is None or runnable.match(s):
                lines.append(s)
    return lines


def readme_examples(readme):
    return sh_blocks(readme, RUNNABLE)


# The user's guides (docs/*.md, not docs/engineering/): every line of their ```sh blocks is an example
# to type after the build, apart from the set-up steps.
GUIDE_SETUP = re.compile(r"^(cmake|bash scripts/|scripts/\S+\.sh|git |sudo |apt)")


def guide_examples(docs):
    found = []
    for name in sorted(os.listdir(docs)):
        if name.endswith(".md"):
            found += [(name, l) for l in sh_blocks(os.path.join(docs, name)) if not GUIDE_SETUP.match(l)]
    return found


def named_outputs(line):
    words = shlex.split(line, comments=True)
    outs = [words[i + 1] for i, w in enumerate(words[:-1]) if w in OUTPUT_OPTIONS]
    if words and words[0] == "build/portacl" and len(words) > 3 and words[1] == "filter" and not words[3].startswith("-"):
        outs.append(words[3])  # filter IN OUT
    return [o for o in outs if o not in ("-",) and not o.startswith("/dev/")]


class ReadmeExamples(Scratch):
    def fresh_clone(self):
        """A clone of the repository with this checkout's README and docs, build/ and ../shared linked in."""
        clone = self.at("portacl")
        if os.path.exists(os.path.join(ARGS.source, ".git")):
            subprocess.run(["git", "clone", "-q", "--no-hardlinks", ARGS.source, clone], check=True)
            # The examples as this checkout has them (the clone holds the last commit).
            shutil.copy(os.path.join(ARGS.source, "README.md"), os.path.join(clone, "README.md"))
            shutil.rmtree(os.path.join(clone, "docs"))
            shutil.copytree(os.path.join(ARGS.source, "docs"), os.path.join(clone, "docs"))
        else:
            shutil.copytree(ARGS.source, clone, ignore=shutil.ignore_patterns("build*", ".git"))
        os.symlink(os.path.abspath(ARGS.build), os.path.join(clone, "build"))
        os.symlink(os.path.dirname(os.path.abspath(ARGS.data)), self.at("shared"))
        return clone

    def run_examples(self, clone, examples):
        env = dict(os.environ)
        env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
        for where, line in examples:
            with self.subTest(example=line, page=where):
                if re.search(r"--device\s+(nvidia|amd|intel)", line):
                    continue  # written for a vendor's GPU
                p = subprocess.run(["bash", "-c", line], cwd=clone, env=env, timeout=900,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                self.assertEqual(p.returncode, 0, "%s: %s\n%s" % (where, line, p.stderr.decode(errors="replace")[-2000:]))
                for out in named_outputs(line):
                    path = os.path.join(clone, out)
                    stem, ext = os.path.splitext(path)
                    if not os.path.exists(path) and os.path.exists(stem + ".1" + ext):
                        path = stem + ".1" + ext  # a multi-model input: one file per model (docs/voronoi.md)
                    if os.path.isdir(path):  # a batch's output folder: it holds the outputs
                        self.assertTrue(any(os.path.getsize(e.path) > 0 for e in os.scandir(path) if e.is_file()),
                                        "%s wrote nothing into %s" % (line, out))
                        continue
                    self.assertTrue(os.path.isfile(path) and os.path.getsize(path) > 0, "%s did not write %s" % (line, out))
        self.assertNoTemporaries(os.path.join(clone, "out")) if os.path.isdir(os.path.join(clone, "out")) else None

    def test_examples_run_as_written_from_a_fresh_clone(self):
        examples = readme_examples(os.path.join(ARGS.source, "README.md"))
        self.assertTrue(examples, "README.md has no runnable ```sh example")
        self.run_examples(self.fresh_clone(), [("README.md", l) for l in examples])

    def test_guide_examples_run_as_written_from_a_fresh_clone(self):
        examples = guide_examples(os.path.join(ARGS.source, "docs"))
        self.assertGreaterEqual(len({page for page, _ in examples}), 4, "the guides lost their ```sh examples")
        self.run_examples(self.fresh_clone(), examples)


# ---- 2-4. outputs checked before the work; refusals; inputs never overwritten ----

class OutputsCheckedFirst(Scratch):
    def test_filter(self):
        img = self.at("in.png")
        shutil.copy(data("images/coins.png"), img)
        before = digest(img)
        self.assertRefused(portacl("filter", img, self.at("nope", "out.png"), "--op", "median:5"), "does not exist")
        self.assertRefused(portacl("filter", img, self.at("out.jpg"), "--op", "median:5"), ".png")
        self.assertRefused(portacl("filter", img, img, "--op", "median:5"), "is the input")
        os.link(img, self.at("hard.png"))
        self.assertRefused(portacl("filter", img, self.at("hard.png"), "--op", "median:5"), "is the input")
        os.symlink(img, self.at("soft.png"))
        self.assertRefused(portacl("filter", self.at("soft.png"), img, "--op", "median:5"), "is the input")
        self.assertEqual(digest(img), before)
        self.assertNoTemporaries()

    def test_lineal_path(self):
        npy = self.at("in.npy")
        shutil.copy(data("microstructure/mcrpy/sandstone_resized.npy"), npy)
        before = digest(npy)
        base = ["lineal-path", npy, "--phase", "1", "--max-length", "8"]
        t0 = time.monotonic()
        self.assertRefused(portacl(*base, "-o", self.at("nope", "L.h5")), "does not exist", t0)
        self.assertRefused(portacl(*base, "-o", self.at("L.jpg")), ".h5")
        self.assertRefused(portacl(*base, "--png", self.at("L.jpg")), ".png")
        self.assertRefused(portacl(*base, "--csv", npy), "is the input")
        self.assertRefused(portacl(*base, "-o", self.at("L.h5"), "--csv", self.at("L.h5")), "both name")
        self.assertEqual(digest(npy), before)
        self.assertEqual(sorted(os.listdir(self.dir)), ["in.npy"])

    def test_reconstruct_refuses_before_a_long_run(self):
        npy = self.at("in.npy")
        shutil.copy(data("microstructure/mcrpy/sandstone_resized.npy"), npy)
        base = ["reconstruct", npy, "--phase", "1", "--max-length", "8", "--steps", "2000000000"]
        t0 = time.monotonic()
        self.assertRefused(portacl(*base, "-o", self.at("nope", "cell.png")), "does not exist", t0)
        t0 = time.monotonic()
        r = portacl(*base, "-o", self.at("cell.jpg"))
        self.assertRefused(r, ".npy", t0)
        self.assertIn(".png", r[2])  # the list of what works names .npy and the image formats
        self.assertRefused(portacl(*base, "-o", self.at("cell.png"), "--history", self.at("nope", "h.csv")), "does not exist", t0)
        self.assertRefused(portacl(*base, "-o", npy), "is the input", t0)
        self.assertEqual(sorted(os.listdir(self.dir)), ["in.npy"])

    def test_voronoi(self):
        pdb = self.at("in.pdb")
        shutil.copy(data("pdb/1A8O.pdb"), pdb)
        before = digest(pdb)
        self.assertRefused(portacl("voronoi", pdb, "-o", self.at("nope", "v.txt")), "does not exist")
        self.assertRefused(portacl("voronoi", pdb, "-o", self.at("v.txt"), "--edges", self.at("nope", "e.txt")), "does not exist")
        self.assertRefused(portacl("voronoi", pdb, "-o", pdb), "is the input")
        self.assertRefused(portacl("voronoi", pdb, "-o", self.at("v.txt"), "--edges", self.at("v.txt")), "both name")
        self.assertRefused(portacl("voronoi", pdb, "-o", self.at("v.txt"), "--summary", self.dir), "is a folder")
        self.assertEqual(digest(pdb), before)
        self.assertEqual(sorted(os.listdir(self.dir)), ["in.pdb"])

    def test_kwave(self):
        inp = self.kwave_input()
        before = digest(inp)
        self.assertRefused(kwave("-i", inp, "-o", inp), "is the input")
        os.link(inp, self.at("hard.h5"))
        self.assertRefused(kwave("-i", inp, "-o", self.at("hard.h5")), "is the input")
        self.assertRefused(kwave("-i", inp, "-o", self.at("nope", "out.h5")), "does not exist")
        self.assertRefused(kwave("-i", inp, "-o", self.at("out.h5"), "--checkpoint_file", inp, "--checkpoint_timesteps", "3"),
                           "is the input")
        self.assertRefused(kwave("-i", inp, "-o", self.at("o.h5"), "--checkpoint_file", self.at("o.h5"),
                                 "--checkpoint_timesteps", "3"), "both name")
        self.assertRefused(kwave("-i", self.at("missing.h5"), "-o", self.at("out.h5")), "does not exist")
        self.assertEqual(digest(inp), before)
        self.assertEqual(sorted(os.listdir(self.dir)), ["hard.h5", "in.h5"])

    def test_volumes(self):
        tif = self.at("in.tif")
        shutil.copy(data("volumes/puma/100_fiberform.tif"), tif)
        before = digest(tif)
        sk = ["skeleton", tif, "--threshold", "90"]
        self.assertRefused(portacl(*sk, "-o", self.at("nope", "s.tif")), "does not exist")
        self.assertRefused(portacl(*sk, "-o", tif), "is the input")
        self.assertRefused(portacl(*sk, "-o", self.at("s.png")), ".tif")
        self.assertRefused(portacl(*sk, "-o", self.at("s.npy"), "--branches", self.at("s.npy")), ".csv")
        self.assertRefused(portacl("skeleton", tif, "--threshold", "256", "-o", self.at("s.npy")), "no voxel is selected")
        self.assertRefused(portacl("skeleton", tif, "--threshold", "0", "-o", self.at("s.npy")), "every voxel")
        self.assertRefused(portacl("box-count", tif, "--threshold", "90", "--json", self.at("nope", "r.json")), "does not exist")
        self.assertRefused(portacl("box-count", tif, "--threshold", "90", "--sizes", "8,4"), "increasing")
        self.assertRefused(portacl("box-count", data("microstructure/mcrpy/sandstone_resized.npy")), "2-D image")
        self.assertEqual(digest(tif), before)
        self.assertEqual(sorted(os.listdir(self.dir)), ["in.tif"])

    def test_trace_is_the_commands_timeline(self):
        trace = self.at("t.json")
        self.assertRefused(portacl("vector-sum", "--trace", self.at("t.txt")), ".json")
        self.assertRefused(portacl("vector-sum", "--trace", self.at("nope", "t.json")), "does not exist")
        rc, _, err = portacl("vector-sum", "--size", "100000", "--trace", trace)
        self.assertEqual(rc, 0, err)
        events = json.load(open(trace))["traceEvents"]
        spans = [e for e in events if e["ph"] == "X"]
        self.assertTrue(any(e["cat"] == "kernel" for e in spans), spans)
        self.assertTrue(any(e["cat"] == "transfer" for e in spans), spans)
        for e in spans:  # enqueued, then submitted, then started: one device clock
            self.assertLessEqual(e["args"]["enqueued_us"], e["args"]["submitted_us"] + 1e-3, e)
            self.assertLessEqual(e["args"]["submitted_us"], e["ts"] + 1e-3, e)
            self.assertGreaterEqual(e["dur"], 0, e)
        p = run([sys.executable, os.path.join(ARGS.source, "tools", "trace_gaps.py"), trace])
        self.assertEqual(p[0], 0, p[2])
        busy = float(re.search(r"([0-9.]+) ms busy", p[1]).group(1))
        self.assertAlmostEqual(busy, sum(e["dur"] for e in spans) / 1e3, delta=0.002)

    def test_bench_checks_its_files_before_measuring(self):
        t0 = time.monotonic()
        self.assertRefused(portacl("bench", "--json", self.at("nope", "r.json")), "does not exist", t0, within=10)
        self.assertRefused(portacl("bench", "--csv", self.dir), "is a folder", t0, within=10)


class EveryCommand(Scratch):
    def commands(self):
        rc, out, _ = portacl("--help")
        self.assertEqual(rc, 0)
        names = re.findall(r"^  ([a-z][a-z0-9-]*) ", out, re.M)
        self.assertGreater(len(names), 8, out)
        return names

    def test_an_unknown_option_is_one_sentence(self):
        for name in self.commands():
            with self.subTest(command=name):
                self.assertRefused(portacl(name, "--no-such-option"), "no-such-option")

    def test_a_missing_input_file_says_it_does_not_exist(self):
        missing = self.at("missing")
        cases = {
            "filter": ["filter", missing + ".png", self.at("out.png"), "--op", "box:3"],
            "lineal-path": ["lineal-path", missing + ".npy", "--phase", "1", "--max-length", "4"],
            "reconstruct": ["reconstruct", missing + ".npy", "--phase", "1", "--max-length", "4", "-o", self.at("c.png")],
            "voronoi": ["voronoi", missing + ".pdb", "-o", self.at("v.txt")],
            "kwave": ["kwave", "-i", missing + ".h5", "-o", self.at("o.h5")],
            "skeleton": ["skeleton", missing + ".tif", "-o", self.at("s.tif")],
            "box-count": ["box-count", missing + ".nii.gz"],
            "mesh-intersect": ["mesh-intersect", missing + ".obj", "-o", self.at("pairs.txt")],
        }
        for name, args in cases.items():
            with self.subTest(command=name):
                rc, out, err = portacl(*args)
                self.assertRefused((rc, out, err), "missing")
                self.assertRegex(err, "does not exist|No such file")
        self.assertEqual(os.listdir(self.dir), [])


class SpecialFiles(Scratch):
    def test_dev_null_stays_a_device(self):
        rc, _, err = portacl("voronoi", data("pdb/1A8O.pdb"), "-o", "/dev/null", "--summary", "/dev/null", "--serial")
        self.assertEqual(rc, 0, err)
        self.assertTrue(stat.S_ISCHR(os.stat("/dev/null").st_mode), "/dev/null was replaced by a regular file")

    def test_dev_stdout_and_a_fifo_are_written_in_place(self):
        rc, out, err = portacl("voronoi", data("pdb/1A8O.pdb"), "-o", "/dev/stdout", "--serial")
        self.assertEqual(rc, 0, err)
        self.assertGreater(len(out.splitlines()), 100)
        fifo = self.at("vertices.fifo")
        os.mkfifo(fifo)
        got = []
        def read():
            with open(fifo, "rb") as f:
                got.append(f.read())
        reader = threading.Thread(target=read)
        reader.start()
        rc, _, err = portacl("voronoi", data("pdb/1A8O.pdb"), "-o", fifo, "--serial")
        reader.join(60)
        self.assertEqual(rc, 0, err)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the fifo was replaced")
        self.assertEqual(got[0].decode(), out)
        self.assertNoTemporaries()


# ---- 5. complete or absent ----

class CompleteOrAbsent(Scratch):
    def check_full_disk(self, cmd, out, keep_old=True, limit=64 * 1024):
        if keep_old:
            with open(out, "wb") as f:
                f.write(b"the previous result\n")
        r = run(cmd, preexec=full_disk(limit))
        self.assertRefused(r, out)
        self.assertNotIn(out + ".tmp", r[2], "the message names the temporary, not the output")
        if keep_old:
            self.assertEqual(digest(out), b"the previous result\n", "the old file was lost")
        else:
            self.assertFalse(os.path.exists(out))
        self.assertNoTemporaries()

    def test_full_disk_filter_bmp(self):
        out = self.at("out.bmp")
        self.check_full_disk([os.path.join(ARGS.build, "portacl"), "filter", data("images/coins.png"), out, "--op", "median:3",
                              "--serial"], out, keep_old=False)

    def test_full_disk_lineal_path_hdf5(self):
        out = self.at("L.h5")
        self.check_full_disk([os.path.join(ARGS.build, "portacl"), "lineal-path", data("microstructure/mcrpy/sandstone_resized.npy"),
                              "--phase", "1", "--max-length", "32", "--serial", "-o", out], out)

    def test_full_disk_voronoi_text_and_edges(self):
        v, e = self.at("v.txt"), self.at("e.txt")
        with open(e, "wb") as f:
            f.write(b"old edges\n")
        self.check_full_disk([os.path.join(ARGS.build, "portacl"), "voronoi", data("pdb/1A8O.pdb"), "-o", v, "--edges", e,
                              "--serial"], v)
        self.assertEqual(digest(e), b"old edges\n", "half a group was committed")

    def test_full_disk_kwave(self):
        inp = self.kwave_input(n=64, nt=4)
        out = self.at("out.h5")
        flags = ["--p_final", "--p_max_all", "--u_final", "--verbose", "0"]
        # A run on the same input first writes the kernel caches. The limit (2 MiB) lets PoCL write its
        # temporary objects (under 1 MiB; LLVM aborts when it cannot) and stops the 5 MiB output.
        rc, _, err = kwave("-i", inp, "-o", out, *flags)
        self.assertEqual(rc, 0, err)
        self.check_full_disk([os.path.join(ARGS.build, "kspaceFirstOrder-OpenCL"), "-i", inp, "-o", out, *flags], out,
                             limit=2 << 20)

    def test_stale_temporaries_are_removed_by_the_next_run(self):
        pid = dead_pid()
        v = self.at("v.txt")
        for name in ("v.txt.tmp.%d" % pid, "v.txt.tmp.%d.2" % pid):
            open(self.at(name), "w").write("torn")
        rc, _, err = portacl("voronoi", data("pdb/1A8O.pdb"), "-o", v, "--serial")
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(os.listdir(self.dir)), ["v.txt"])


# ---- 6. k-Wave's command line as k-Wave's ----

class KWaveAsKWave(Scratch):
    def read(self, path, name):
        import h5py
        with h5py.File(path, "r") as f:
            return f[name][()]

    def test_checkpointed_stop_writes_the_output_so_far_and_resumes_to_the_same_result(self):
        import numpy as np
        inp = self.kwave_input(nt=12)
        straight, out, cp = self.at("straight.h5"), self.at("out.h5"), self.at("cp.h5")
        rc, _, err = kwave("-i", inp, "-o", straight, "--p_raw", "--p_final", "--verbose", "0")
        self.assertEqual(rc, 0, err)
        rc, _, err = kwave("-i", inp, "-o", out, "--p_raw", "--p_final", "--checkpoint_file", cp, "--checkpoint_timesteps", "5",
                           "--verbose", "0")
        self.assertEqual(rc, 0, err)
        self.assertTrue(os.path.exists(cp), "no checkpoint")
        self.assertTrue(os.path.exists(out), "a checkpointed stop wrote no output file")
        self.assertEqual(int(np.ravel(self.read(out, "t_index"))[0]), 5)
        self.assertEqual(self.read(out, "p").shape[1], 5)  # the five samples recorded so far
        rc, _, err = kwave("-i", inp, "-o", out, "--p_raw", "--p_final", "--checkpoint_file", cp, "--checkpoint_timesteps", "100",
                           "--verbose", "0")
        self.assertEqual(rc, 0, err)
        self.assertFalse(os.path.exists(cp), "the finished run left its checkpoint")
        self.assertEqual(int(np.ravel(self.read(out, "t_index"))[0]), 12)
        np.testing.assert_allclose(self.read(out, "p"), self.read(straight, "p"), rtol=0, atol=1e-3 * np.abs(self.read(straight, "p")).max())
        np.testing.assert_allclose(self.read(out, "p_final"), self.read(straight, "p_final"), rtol=0,
                                   atol=1e-3 * np.abs(self.read(straight, "p_final")).max())
        self.assertNoTemporaries()

    def test_refusals_of_bad_inputs(self):
        import h5py
        inp = self.kwave_input()
        elastic = self.at("elastic.h5")
        shutil.copy(inp, elastic)
        with h5py.File(elastic, "a") as f:
            f.create_dataset("elastic_flag", data=[[[1]]], dtype="u8")
        self.assertRefused(kwave("-i", elastic, "-o", self.at("o.h5")), "elastic")
        versionless = self.at("versionless.h5")
        shutil.copy(inp, versionless)
        with h5py.File(versionless, "a") as f:
            del f.attrs["major_version"]
        self.assertRefused(kwave("-i", versionless, "-o", self.at("o.h5")), "major_version")
        self.assertFalse(os.path.exists(self.at("o.h5")))

    def test_verbose_0_is_silent(self):
        inp = self.kwave_input(nt=4)
        rc, out, err = run([os.path.join(ARGS.build, "kspaceFirstOrder-OpenCL"), "-i", inp, "-o", self.at("o.h5"), "--verbose", "0"])
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "")
        p = subprocess.run([os.path.join(ARGS.build, "kspaceFirstOrder-OpenCL"), "-i", inp, "-o", self.at("o.h5"), "--verbose", "0"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.stderr, b"", "--verbose 0 printed on stderr")

    def test_g0_without_a_gpu_falls_back_once(self):
        rc, out, _ = portacl("devices")
        if re.search(r"\bGPU\b", out):
            self.skipTest("this machine has a GPU")
        inp = self.kwave_input(nt=4)
        rc, out, err = kwave("-i", inp, "-o", self.at("o.h5"), "-g", "0")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.count("No GPU found"), 1, out)


# ---- 7. out of memory ----

class OutOfMemory(Scratch):
    def test_every_address_space_limit_ends_in_success_or_one_sentence(self):
        # Under ulimit -v the CPU device's buffers, the host's vectors and the runtime's own mappings
        # run out at different points of the run; PoCL aborts when a buffer's memory cannot be had,
        # so a run that cannot fit must be refused before its buffers exist.
        # A PoCL worker thread that cannot get memory may leave its command unfinished: the
        # engine's watchdog (PORTACL_DEVICE_TIMEOUT) and its compiler timeout turn such a wait into
        # one sentence. A run that outlives both is a hang of its own, reported with its threads' stacks.
        env = dict(os.environ, PORTACL_DEVICE_TIMEOUT="120", PORTACL_BUILD_TIMEOUT="120")
        results = []
        for gib in (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0):
            limit = int(gib * (1 << 30))
            def apply(limit=limit):
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            rc, out, err = portacl("vector-sum", "--size", "40000000", env=env, preexec=apply, timeout=400)
            results.append((gib, rc, (err.splitlines() or [""])[0][:90]))
            with self.subTest(limit_gib=gib):
                if rc != 0:
                    self.assertRefused((rc, out, err), "")
        # The sweep reaches both ends: a limit too small for the run, and one it fits in.
        self.assertTrue(any(r[1] != 0 for r in results) and any(r[1] == 0 for r in results), results)
        print(results, file=sys.stderr)


# ---- 8. a cold kernel cache under load ----

class ColdCache(Scratch):
    def test_processes_started_at_once_all_succeed_and_leave_valid_entries(self):
        env = dict(os.environ, PORTACL_CACHE_DIR=self.at("cache"))
        env.pop("PORTACL_NO_CACHE", None)
        cmd = [os.path.join(ARGS.build, "portacl"), "vector-sum", "--size", "4096"]
        procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(4)]
        for p in procs:
            _, err = p.communicate(timeout=600)
            self.assertEqual(p.returncode, 0, err.decode(errors="replace"))
        entries = []
        for root, _, files in os.walk(self.at("cache")):
            entries += [os.path.join(root, f) for f in files]
        self.assertTrue(entries, "nothing was cached")
        for e in entries:
            self.assertTrue(e.endswith(".bin"), "left in the cache: " + e)
            self.assertTrue(valid_cache_entry(e), "corrupt cache entry " + e)


# ---- 9. the cores a process may use ----

def pocl_compute_units(devices_output):
    """The compute units of each PoCL device `portacl devices` lists."""
    units, in_pocl = [], False
    for line in devices_output.splitlines():
        if line.startswith("Platform "):
            in_pocl = "Portable Computing Language" in line
        m = re.match(r"\s+compute units\s+(\d+)", line)
        if m and in_pocl:
            units.append(int(m.group(1)))
    return units


class CoresOfTheProcess(Scratch):
    def test_pocl_runs_as_many_threads_as_the_process_has_cores(self):
        if not shutil.which("taskset") or len(os.sched_getaffinity(0)) < 2:
            self.skipTest("needs taskset and two cores")
        first = min(os.sched_getaffinity(0))
        env = {k: v for k, v in os.environ.items() if k not in ("POCL_MAX_PTHREAD_COUNT", "POCL_CPU_MAX_CU_COUNT")}
        code, out, err = run([os.path.join(ARGS.build, "portacl"), "devices"], env=env)
        self.assertEqual(code, 0, err)
        if not pocl_compute_units(out):
            self.skipTest("no PoCL device")
        self.assertTrue(all(u >= 2 for u in pocl_compute_units(out)), out)
        code, out, err = run(["taskset", "-c", str(first), os.path.join(ARGS.build, "portacl"), "devices"], env=env)
        self.assertEqual(code, 0, err)
        self.assertEqual(set(pocl_compute_units(out)), {1}, out)
        # The user's own count wins.
        code, out, err = run(["taskset", "-c", str(first), os.path.join(ARGS.build, "portacl"), "devices"],
                             env=dict(env, POCL_MAX_PTHREAD_COUNT="2", POCL_CPU_MAX_CU_COUNT="2"))
        self.assertEqual(code, 0, err)
        self.assertEqual(set(pocl_compute_units(out)), {2}, out)


def fnv1a64(data):
    h = 1469598103934665603  # the seed program_cache.hpp uses
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def valid_cache_entry(path):
    """The entry's payload matches its recorded length and FNV-1a checksum (program_cache.cpp's format)."""
    raw = open(path, "rb").read()
    first = raw.index(b"\n")
    pos = first + 1
    nl = raw.index(b"\n", pos)
    key_len = int(raw[pos:nl])
    pos = nl + 1 + key_len
    nl = raw.index(b"\n", pos)
    payload_len = int(raw[pos:nl])
    pos = nl + 1
    nl = raw.index(b"\n", pos)
    checksum = raw[pos:nl].decode()
    payload = raw[nl + 1:]
    return len(payload) == payload_len and int(checksum, 16) == fnv1a64(payload)


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--data", default=None)
    ap.add_argument("-k", dest="pattern", action="append", default=[])
    ARGS, rest = ap.parse_known_args()
    if ARGS.data is None:
        ARGS.data = os.environ.get("PORTACL_DATA_DIR") or os.path.join(ARGS.source, "..", "shared", "data")
    ARGS.data = os.path.abspath(ARGS.data)
    argv = [sys.argv[0], "-v"] + sum((["-k", p] for p in ARGS.pattern), []) + rest
    unittest.main(argv=argv)


if __name__ == "__main__":
    main()
