#!/usr/bin/env bash
# Installs the Python package (`pip install .`) into a virtual environment in the build folder and
# runs its pytest tests (python/tests) on PORTACL_TEST_DEVICE (default auto).
#
#   bash scripts/python-package.sh [BUILD_DIR]     (default $PORTACL_BUILD_DIR, else build/)
#
# pip builds through the given CMake build folder, so only the extension module is compiled on top
# of what is built there. The environment sees Debian's NumPy, OpenCV, SciPy, scikit-image and
# pytest (scripts/install-deps.sh installs them); pip adds scikit-build-core, and gemmi and Biopython
# (structures the Voronoi tests read) from PyPI. Its
# interpreter is Debian's python3, the one those packages belong to.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-${PORTACL_BUILD_DIR:-build}}
venv="$build/python-venv"
if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
"$venv/bin/python" -c "import scikit_build_core, gemmi, Bio" 2>/dev/null ||
  "$venv/bin/pip" install -q --disable-pip-version-check "scikit-build-core>=0.10" gemmi==0.7.5 biopython==1.88
# Build isolation would give scikit-build-core a new environment each time, which makes it clear the
# build folder's cache; the folder's generator is kept.
generator=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
CMAKE_GENERATOR="${generator:-Unix Makefiles}" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
  "$venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation \
  --config-settings=build-dir="$build" .
case $build in /*) cli=$build/portacl ;; *) cli=$PWD/$build/portacl ;; esac
PORTACL_CLI="$cli" "$venv/bin/python" -m pytest -q python/tests
