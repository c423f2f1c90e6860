#!/usr/bin/env bash
# Checks the README's two set-up scripts the way a newcomer meets them:
#  - scripts/install-deps.sh calls neither sudo nor apt-get when every package is present, and a
#    non-root user without sudo gets one sentence and exit 1 (not 127) when a package is missing;
#  - scripts/bench.sh then scripts/test.sh on one build folder leaves the test suites configured
#    (bench.sh once cached PORTACL_BUILD_TESTS=OFF there, and test.sh then ran no test).
# The compilers are not run: `cmake --build` is replaced by a stand-in that writes a fake portacl.
# usage: check_setup_scripts.sh SOURCE_DIR SCRATCH_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
scratch=$2
rm -rf "$scratch"
mkdir -p "$scratch/bin"
fail() { echo "check_setup_scripts: $*" >&2; exit 1; }

# A PATH of stand-ins: a non-root `id`, and sudo and apt-get that record being called.
stubs=$scratch/bin
cat > "$stubs/id" <<'S'
#!/bin/sh
[ "$1" = -u ] && { echo 1000; exit 0; }
exec /usr/bin/id "$@"
S
for tool in sudo apt-get; do
  printf '#!/bin/sh\necho "%s $*" >> "%s/called"\nexit 1\n' "$tool" "$scratch" > "$stubs/$tool"
done
chmod +x "$stubs"/*

# 1. Everything present (the suite runs after install-deps.sh): no sudo, no apt-get, exit 0.
PATH="$stubs:$PATH" bash "$src/scripts/install-deps.sh" > "$scratch/out1" 2>&1 || fail "install-deps.sh failed with every package present: $(cat "$scratch/out1")"
[ ! -e "$scratch/called" ] || fail "install-deps.sh called $(cat "$scratch/called") although every package is present"

# 2. A package missing, not root, no sudo: one sentence and exit 1.
nosudo=$scratch/nosudo
mkdir -p "$nosudo"
for t in bash grep cat env; do ln -sf "$(command -v $t)" "$nosudo/$t"; done
cp "$stubs/id" "$nosudo/id"
printf '#!/bin/sh\nexit 1\n' > "$nosudo/dpkg-query"
chmod +x "$nosudo/dpkg-query"
set +e
PATH="$nosudo" bash "$src/scripts/install-deps.sh" > "$scratch/out2" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "install-deps.sh without root or sudo exited $rc (want 1): $(cat "$scratch/out2")"
grep -q "needs root" "$scratch/out2" || fail "install-deps.sh without root or sudo did not say why: $(cat "$scratch/out2")"
[ "$(wc -l < "$scratch/out2")" = 1 ] || fail "install-deps.sh without root or sudo printed more than one line: $(cat "$scratch/out2")"

# 3. bench.sh, then test.sh, on one build folder: the suites stay configured.
real_cmake=$(command -v cmake)
cat > "$stubs/cmake" <<S
#!/bin/sh
if [ "\$1" = --build ]; then printf '#!/bin/sh\nexit 0\n' > "\$2/portacl"; chmod +x "\$2/portacl"; exit 0; fi
exec "$real_cmake" "\$@" > /dev/null
S
real_ctest=$(command -v ctest)
cat > "$stubs/ctest" <<S
#!/bin/sh
exec "$real_ctest" --test-dir "$scratch/build" -N
S
chmod +x "$stubs/cmake" "$stubs/ctest"
rm -f "$scratch/called"
export PORTACL_BUILD_DIR=$scratch/build
export PORTACL_SKIP_PYTHON=1  # pip cannot build through the stand-in cmake; the suite runs the package's tests
PATH="$stubs:$PATH" bash "$src/scripts/bench.sh" --quick > "$scratch/bench.out" 2>&1 || fail "bench.sh failed: $(tail -5 "$scratch/bench.out")"
PATH="$stubs:$PATH" bash "$src/scripts/test.sh" > "$scratch/test.out" 2>&1 || fail "test.sh failed: $(tail -5 "$scratch/test.out")"
[ ! -e "$scratch/called" ] || fail "the scripts called $(cat "$scratch/called") although every package is present"
total=$(sed -n 's/^Total Tests: *//p' "$scratch/test.out" | head -n 1)  # test.sh runs ctest twice (gating, then the other implementations)
[ -n "$total" ] && [ "$total" -gt 0 ] || fail "test.sh after bench.sh finds no test ($(tail -2 "$scratch/test.out"))"
grep -q '^PORTACL_BUILD_TESTS:BOOL=ON' "$scratch/build/CMakeCache.txt" || fail "the build folder has the suites off"
# And the other order: test.sh first, then bench.sh keeps the suites.
PATH="$stubs:$PATH" bash "$src/scripts/bench.sh" --quick > "$scratch/bench2.out" 2>&1 || fail "bench.sh after test.sh failed: $(tail -5 "$scratch/bench2.out")"
grep -q '^PORTACL_BUILD_TESTS:BOOL=ON' "$scratch/build/CMakeCache.txt" || fail "bench.sh after test.sh turned the suites off"
rm -rf "$scratch"
echo "check_setup_scripts: install-deps.sh, bench.sh and test.sh behave"
