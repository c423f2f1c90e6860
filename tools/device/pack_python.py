#!/usr/bin/env python3
"""Packs the Python package for another CPython (3.12 by default) into .device/python, beside the
programs and libraries that ../shared/device/pack put in .device/, so that the package and the
overhead benchmarks run on the GPU machine, whose Python is 3.12 and which has no compiler:

    ../shared/device/pack build/portacl && python3 tools/device/pack_python.py [--build build] [--check]
    there (carry [".device"]):
      PYTHONPATH=$PWD/.device/python .device/run python3 tools/bench/python_overhead.py --device nvidia \\
          --cxx-lib .device/python/libpython_overhead.so

The extension module is compiled from python/src with the compile commands of the build folder's
own module (its defines, include folders and flags; CMAKE_EXPORT_COMPILE_COMMANDS is switched on in
the folder if it was off, which rebuilds nothing), against that CPython's headers and pybind11 from
PyPI (installed into BUILD/python<VERSION>-venv), and linked against the build folder's libportacl,
the library .device/lib holds. .device/python then holds:
  portacl/                    the package's Python files, the module, and the vendor profiles
  libpython_overhead.so       the C++ side of tools/bench/python_overhead.py (its --cxx-lib)
  libopencl_call_log.so       the OpenCL layer of tools/bench/python_overhead_cl_calls.py (its --layer)
The interpreter is PORTACL_PYTHON or --python, else python<VERSION> on PATH, else pyenv's newest
<VERSION>.x. --check installs NumPy and pytest into that environment and runs python/tests with the
packed module on PORTACL_TEST_DEVICE (default auto).
"""

import argparse
import concurrent.futures
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PYBIND11 = "pybind11==2.13.6"  # supports CPython 3.12 and 3.13, and NumPy 1.x and 2.x


def fail(sentence):
    sys.exit(f"pack_python: {sentence}")


def run(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def python_facts(python):
    """The interpreter's version, header folder and module suffix; None if it does not run (a pyenv
    shim of a version not selected)."""
    code = ("import json, sys, sysconfig; print(json.dumps({'version': '%d.%d' % sys.version_info[:2], "
            "'include': sysconfig.get_paths()['include'], 'suffix': sysconfig.get_config_var('EXT_SUFFIX')}))")
    try:
        r = subprocess.run([python, "-c", code], capture_output=True, text=True)
    except OSError:
        return None
    return json.loads(r.stdout) if r.returncode == 0 else None


def find_python(wanted, given):
    """The interpreter given, else python<wanted> on PATH, else pyenv's newest <wanted>.x."""
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    pyenv = sorted(glob.glob(os.path.join(root, "versions", f"{wanted}.*", "bin", f"python{wanted}")),
                   key=lambda p: [int(x) for x in re.findall(r"\d+", p.split("/versions/")[1].split("/")[0])])
    candidates = [given] if given else [c for c in [shutil.which(f"python{wanted}")] + pyenv[::-1] if c]
    for c in candidates:
        facts = python_facts(c)
        if facts:
            return c, facts
    fail(f"no CPython {wanted} that runs found ({', '.join(candidates) or f'python{wanted} on PATH or pyenv'}); "
         "name one with --python or PORTACL_PYTHON")


def module_commands(build):
    """The compile commands of the build folder's extension module (python/src/*.cpp)."""
    db = os.path.join(build, "compile_commands.json")
    if not os.path.exists(db):
        run(["cmake", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", build], stdout=subprocess.DEVNULL)
    with open(db) as f:
        entries = json.load(f)
    src = os.path.join(ROOT, "python", "src") + os.sep
    ours = [e for e in entries if os.path.abspath(os.path.join(e["directory"], e["file"])).startswith(src)]
    if not ours:
        fail(f"{build} does not build the Python module; configure it with -DPORTACL_WITH_PYTHON=ON "
             "(scripts/python-package.sh does)")
    return ours


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--version", default="3.12", help="the CPython minor version to build for (default 3.12)")
    ap.add_argument("--python", default=os.environ.get("PORTACL_PYTHON", ""), help="that CPython's interpreter")
    ap.add_argument("--dest", default=os.path.join(ROOT, ".device", "python"))
    ap.add_argument("--check", action="store_true", help="run python/tests with the packed module here")
    opt = ap.parse_args()
    build = os.path.abspath(opt.build)
    lib = os.path.join(build, "libportacl.so")
    if not os.path.exists(lib):
        fail(f"{build} holds no libportacl.so; build the shared library there first (cmake --build {opt.build})")
    python, facts = find_python(opt.version, opt.python)
    if facts["version"] != opt.version:
        fail(f"{python} is CPython {facts['version']}, not {opt.version}")
    if not os.path.exists(os.path.join(facts["include"], "Python.h")):
        fail(f"{python} has no headers ({facts['include']}/Python.h is missing)")
    device_lib = os.path.join(ROOT, ".device", "lib", "libportacl.so.0")
    if os.path.exists(device_lib) and open(device_lib, "rb").read() != open(lib + ".0", "rb").read():
        fail(f".device/lib holds another libportacl than {build}; pack both from one build "
             f"(../shared/device/pack {opt.build}/portacl)")

    # pybind11 from PyPI in an environment of that interpreter
    venv = os.path.join(build, f"python{opt.version}-venv")
    vpy = os.path.join(venv, "bin", "python")
    if not os.path.exists(vpy):
        run([python, "-m", "venv", venv])
    probe = "import pybind11, sys; sys.exit(pybind11.__version__ != '%s')" % PYBIND11.split("==")[1]
    if subprocess.run([vpy, "-c", probe], capture_output=True).returncode != 0:
        run([vpy, "-m", "pip", "install", "-q", "--disable-pip-version-check", PYBIND11])
    pybind11_include = subprocess.run([vpy, "-c", "import pybind11; print(pybind11.get_include())"], check=True,
                                      capture_output=True, text=True).stdout.strip()

    # the module's sources, compiled as the build folder compiles them, for that interpreter
    objects_dir = os.path.join(build, f"python{opt.version}-module")
    os.makedirs(objects_dir, exist_ok=True)
    objects, jobs = [], []
    # any header the module may include, and the library itself (a rebuilt library may have changed
    # what the module must call)
    depends = [os.path.realpath(lib)] + [p for pattern in ("python/src/*.hpp", "include/**/*.hpp", "host/**/*.hpp")
                                         for p in glob.glob(os.path.join(ROOT, pattern), recursive=True)]
    depends += glob.glob(os.path.join(build, "generated", "include", "**", "*.hpp"), recursive=True)
    for e in module_commands(build):
        args = shlex.split(e["command"]) if "command" in e else list(e["arguments"])
        out = os.path.join(objects_dir, os.path.basename(e["file"]) + ".o")
        fixed, skip = [], False
        for i, a in enumerate(args):
            if skip:
                skip = False
                continue
            if a == "-o":
                fixed += ["-o", out]
                skip = True
            elif a in ("-isystem", "-I") and i + 1 < len(args) and re.search(r"/python3\.\d+", args[i + 1]):
                fixed += [a, facts["include"]]
                skip = True
            elif re.match(r"-I.*/python3\.\d+", a):
                fixed.append("-I" + facts["include"])
            else:
                fixed.append(a)
        # pybind11 from PyPI before any other copy (Debian's in /usr/include)
        fixed[1:1] = ["-isystem", pybind11_include]
        src = os.path.abspath(os.path.join(e["directory"], e["file"]))
        if not os.path.exists(out) or any(os.path.getmtime(p) > os.path.getmtime(out) for p in [src] + depends):
            jobs.append((fixed, e["directory"], src))
        objects.append(out)

    def compile_one(job):
        print(f"pack_python: compiling {os.path.relpath(job[2], ROOT)}", flush=True)
        run(job[0], cwd=job[1])

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:  # the build machine's 2 cores
        list(pool.map(compile_one, jobs))
    module = os.path.join(objects_dir, "_portacl" + facts["suffix"])
    run(["c++", "-shared", "-fPIC", "-o", module] + objects +
        ["-L" + build, "-lportacl", "-lportacl_runtime", "-lOpenCL", "-Wl,-rpath,$ORIGIN"])

    # the package: Python files, the module, the vendor profiles; the benchmarks' C++ sides
    pkg = os.path.join(opt.dest, "portacl")
    shutil.rmtree(opt.dest, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "python", "portacl"), pkg, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    shutil.copy2(module, pkg)
    shutil.copytree(os.path.join(ROOT, "platforms"), os.path.join(pkg, "platforms"))
    sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
    import cxx_sides
    shutil.copy2(cxx_sides.build_cxx(build), opt.dest)
    shutil.copy2(cxx_sides.build_layer(build), opt.dest)
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(opt.dest) for f in fs)
    print(f"pack_python: {os.path.relpath(opt.dest, ROOT)} holds the package for CPython {opt.version} "
          f"({size / 2**20:.1f} MiB)")

    if opt.check:
        if subprocess.run([vpy, "-c", "import numpy, pytest"], capture_output=True).returncode != 0:
            run([vpy, "-m", "pip", "install", "-q", "--disable-pip-version-check", "numpy", "pytest"])
        env = dict(os.environ, PYTHONPATH=opt.dest, PORTACL_CLI=os.path.join(build, "portacl"),
                   LD_LIBRARY_PATH=build + (":" + os.environ["LD_LIBRARY_PATH"] if "LD_LIBRARY_PATH" in os.environ else ""))
        return subprocess.run([vpy, "-m", "pytest", "-q", "-p", "no:cacheprovider", os.path.join(ROOT, "python", "tests")],
                              env=env, cwd=ROOT).returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
