"""The C++ sides of the Python benchmarks, compiled into the build folder on first use (g++) and
again when their source changes: the library call of tools/bench/python_overhead.cpp, and the OpenCL
layer of tools/bench/opencl_call_log.cpp. No import of portacl here, so that a packing script can
build them with any interpreter (tools/device/pack_python.py)."""

import os
import re
import subprocess

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def _stale(target, source):
    return not os.path.exists(target) or os.path.getmtime(target) < os.path.getmtime(source)


def build_cxx(build):
    """libpython_overhead.so, against the build folder's libportacl."""
    lib = os.path.abspath(os.path.join(build, "libpython_overhead.so"))
    src = os.path.join(ROOT, "tools", "bench", "python_overhead.cpp")
    if _stale(lib, src):
        subprocess.run(["g++", "-std=c++17", "-O2", "-fPIC", "-shared", "-I" + os.path.join(ROOT, "include"),
                        "-I" + os.path.join(build, "generated", "include"), src, "-L" + build, "-lportacl",
                        "-lportacl_runtime", "-lOpenCL", "-Wl,-rpath," + os.path.abspath(build), "-o", lib], check=True)
    return lib


def build_layer(build, header="/usr/include/CL/cl_icd.h"):
    """libopencl_call_log.so, wrapping every entry point of the ICD loader's dispatch table in `header`."""
    lib = os.path.abspath(os.path.join(build, "libopencl_call_log.so"))
    src = os.path.join(ROOT, "tools", "bench", "opencl_call_log.cpp")
    if not _stale(lib, src):
        return lib
    with open(header) as f:
        table = re.search(r"typedef struct _cl_icd_dispatch \{(.*?)\} cl_icd_dispatch;", f.read(), re.S)
    if not table:
        raise SystemExit(f"{header} has no cl_icd_dispatch table: name the ICD loader's cl_icd.h")
    names = os.path.abspath(os.path.join(build, "opencl_call_log_names.inc"))
    with open(names, "w") as f:
        f.writelines(f"X({m})\n" for m in re.findall(r"cl_api_(\w+)\s+\1\s*;", table.group(1)))
    subprocess.run(["g++", "-std=c++17", "-O2", "-fPIC", "-shared", f'-DOPENCL_CALL_LOG_NAMES="{names}"', src, "-o", lib],
                   check=True)
    return lib
