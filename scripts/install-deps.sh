#!/usr/bin/env bash
# Installs everything PortaCL needs to build and test on a fresh Debian 12 machine (run as root).
# One list, used by the README's commands and by .ci/run.
set -euo pipefail
packages=(
  build-essential cmake pkg-config
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd clinfo
  libclfft-dev libvkfft-dev
  libboost-program-options-dev libhdf5-dev googletest libgtest-dev
  libpng-dev libtiff-dev zlib1g-dev libstb-dev libnetpbm-dev
  gemmi-dev tao-pegtl-dev
  python3-numpy python3-h5py python3-opencv voronota
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "install-deps: all dependencies present"
