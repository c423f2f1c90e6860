#!/usr/bin/env bash
# Installs everything PortaCL needs to build and test on a fresh Debian 12 machine. Needs root (or
# sudo) only when a package is missing.
# One list, used by the README's commands and by .ci/run.
#
# OpenCL implementations: PoCL (the reference CPU device), Mesa's rusticl on llvmpipe (a second CPU
# device; the engine enables it with RUSTICL_ENABLE=llvmpipe when that variable is unset), oclgrind
# (a simulator that checks kernels; opt-in, see docs/portability.md) and Intel's OpenCL CPU runtime
# from PyPI, installed into $PORTACL_INTEL_OCL_PREFIX (default /opt/portacl/intel-ocl) and
# registered with the ICD loader by an absolute path in /etc/OpenCL/vendors (its libraries find
# each other through their RUNPATH, so nothing goes on LD_LIBRARY_PATH).
# PORTACL_SKIP_INTEL_OCL=1 leaves Intel's runtime out (a 225 MB download).
set -euo pipefail
packages=(
  build-essential cmake pkg-config
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd clinfo
  mesa-opencl-icd oclgrind
  libclfft-dev libvkfft-dev
  libfftw3-dev  # the FFT backend of CPU devices (PORTACL_WITH_FFTW; fftw3f_threads and fftw3_threads)
  libboost-program-options-dev libhdf5-dev googletest libgtest-dev
  libpng-dev libtiff-dev zlib1g-dev libstb-dev libnetpbm-dev libgdal-dev libnifti2-dev
  gemmi-dev tao-pegtl-dev
  libcgal-dev libtbb-dev  # the mesh workload: CGAL's polygon-soup reader (OBJ, OFF, PLY, STL) and its self-intersection peer (sequential and over TBB)
  python3-numpy python3-h5py python3-opencv python3-matplotlib python3-pip voronota
  python3-skimage  # tests/test_skeleton.cpp: scikit-image's skeletons to compare with
  python3-tifffile python3-nibabel  # tests/test_volume_output.cpp: the readers users have, on our outputs
  python3-venv python3-pytest python3-scipy pybind11-dev python3-pybind11  # the Python package (python/) and its tests
  clang libclang-rt-dev  # scripts/sanitize.sh and scripts/fuzz.sh: ASan, UBSan, libFuzzer
  gdb  # tests/cli/test_cli_guarantees.py: the stacks of a run that hangs, in the failure it reports
  libopenmpi-dev openmpi-bin  # PORTACL_WITH_MPI: batches and k-Wave over the ranks of mpirun (docs/multi_device.md)
  libopenblas-dev  # portacl bench --only gemm on a CPU device: OpenBLAS's SGEMM/DGEMM beside the kernels
  libopencv-imgproc-dev  # portacl bench --only filter on a CPU device: OpenCV's CPU path beside each filter
)
# Root (or sudo) only for what is missing: sets as_root, or ends in one sentence naming what is missing.
need_root() {
  if [ "$(id -u)" = 0 ]; then as_root=(env); elif command -v sudo >/dev/null; then as_root=(sudo env); else
    echo "install-deps: $1 missing and installing it needs root, which this user is not (and sudo is absent)" >&2
    exit 1
  fi
}
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  need_root "the Debian packages ${missing[*]} are"
  echo "install-deps: installing ${missing[*]}"
  "${as_root[@]}" DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${as_root[@]}" DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Intel's OpenCL CPU runtime. pip's --prefix puts the wheels' lib/ folder (libintelocl.so and the
# compiler and TBB libraries beside it) under the prefix whichever Python runs pip.
intel_version=2026.2.0
intel_prefix=${PORTACL_INTEL_OCL_PREFIX:-/opt/portacl/intel-ocl}
intel_icd=/etc/OpenCL/vendors/intel-cpu.icd
if [ "${PORTACL_SKIP_INTEL_OCL:-0}" != 1 ]; then
  if [ ! -f "$intel_prefix/lib/libintelocl.so" ] ||
     [ "$(cat "$intel_prefix/VERSION" 2>/dev/null)" != "$intel_version" ]; then
    need_root "Intel's OpenCL CPU runtime $intel_version is"
    echo "install-deps: installing Intel's OpenCL CPU runtime $intel_version into $intel_prefix"
    "${as_root[@]}" rm -rf "$intel_prefix"
    "${as_root[@]}" PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q --no-cache-dir --disable-pip-version-check \
      --no-warn-script-location --root-user-action=ignore --ignore-installed --prefix "$intel_prefix" \
      "intel-opencl-rt==$intel_version" "intel-cmplr-lib-rt==$intel_version"
    test -f "$intel_prefix/lib/libintelocl.so"
    echo "$intel_version" | "${as_root[@]}" tee "$intel_prefix/VERSION" >/dev/null
  fi
  if [ "$(cat "$intel_icd" 2>/dev/null)" != "$intel_prefix/lib/libintelocl.so" ]; then
    need_root "the ICD registration of Intel's OpenCL CPU runtime is"
    "${as_root[@]}" mkdir -p /etc/OpenCL/vendors
    echo "$intel_prefix/lib/libintelocl.so" | "${as_root[@]}" tee "$intel_icd" >/dev/null
  fi
fi
# WhiteboxTools, as the whitebox-workflows wheel (its library inside it: nothing is downloaded when it
# runs), into $PORTACL_WHITEBOX_PREFIX (default /opt/portacl/whitebox): the drainage comparison
# (tools/anchors/whitebox_drainage.py, CTest's DrainageAgainstWhitebox). PORTACL_SKIP_WHITEBOX=1
# leaves it out (a 22 MB download).
whitebox_version=2.0.6
whitebox_prefix=${PORTACL_WHITEBOX_PREFIX:-/opt/portacl/whitebox}
if [ "${PORTACL_SKIP_WHITEBOX:-0}" != 1 ] && [ "$(cat "$whitebox_prefix/VERSION" 2>/dev/null)" != "$whitebox_version" ]; then
  need_root "WhiteboxTools (whitebox-workflows $whitebox_version) is"
  echo "install-deps: installing WhiteboxTools (whitebox-workflows $whitebox_version) into $whitebox_prefix"
  "${as_root[@]}" rm -rf "$whitebox_prefix"
  "${as_root[@]}" PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q --no-cache-dir --disable-pip-version-check \
    --root-user-action=ignore --no-deps --target "$whitebox_prefix" "whitebox-workflows==$whitebox_version"
  echo "$whitebox_version" | "${as_root[@]}" tee "$whitebox_prefix/VERSION" >/dev/null
fi
# chemfiles, as its wheel (its C library, libchemfiles.so, inside it), into $PORTACL_CHEMFILES_PREFIX
# (default /opt/portacl/chemfiles): `portacl voronoi TOPOLOGY TRAJ.xtc|TRAJ.dcd` loads the library at
# run time (configured as PORTACL_CHEMFILES_LIBRARY, or $PORTACL_CHEMFILES), and the trajectory test
# writes its DCD and XTC through the Python package (tests/cli/voronoi_trajectory.py).
# PORTACL_SKIP_CHEMFILES=1 leaves it out.
chemfiles_version=0.10.4
chemfiles_prefix=${PORTACL_CHEMFILES_PREFIX:-/opt/portacl/chemfiles}
if [ "${PORTACL_SKIP_CHEMFILES:-0}" != 1 ] && [ "$(cat "$chemfiles_prefix/VERSION" 2>/dev/null)" != "$chemfiles_version" ]; then
  need_root "chemfiles $chemfiles_version is"
  echo "install-deps: installing chemfiles $chemfiles_version into $chemfiles_prefix"
  "${as_root[@]}" rm -rf "$chemfiles_prefix"
  "${as_root[@]}" PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q --no-cache-dir --disable-pip-version-check \
    --root-user-action=ignore --no-deps --target "$chemfiles_prefix" "chemfiles==$chemfiles_version"
  test -f "$chemfiles_prefix/chemfiles/libchemfiles.so"
  echo "$chemfiles_version" | "${as_root[@]}" tee "$chemfiles_prefix/VERSION" >/dev/null
fi
echo "install-deps: all dependencies present"
