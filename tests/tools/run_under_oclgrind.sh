#!/usr/bin/env bash
# Runs a program under oclgrind with its API checks and data-race detection besides its own checks
# (out-of-bounds accesses, barrier divergence), every report going to LOG. Fails when oclgrind
# reported anything (even if the program passed); exits 77 (CTest's skip) when oclgrind is not
# installed. Not --uninitialized: in oclgrind 21.10 that plugin reports initialised memory after a
# host write at an offset and in a buffer made in a released one's place (tools/oclgrind/ has a
# reproducer of each; docs/portability.md).
# Kernels are built with -cl-opt-disable, so that the checks are on the statements as written (and
# so that --uninitialized, run by hand, does not meet LLVM's `freeze`, which it cannot follow).
# usage: run_under_oclgrind.sh LOG PROGRAM [ARGS...]
set -u
log=$1
shift
if ! command -v oclgrind >/dev/null; then
  echo "oclgrind is not installed: skipped"
  exit 77
fi
mkdir -p "$(dirname "$log")"
rm -f "$log"
oclgrind --build-options -cl-opt-disable --check-api --data-races --log "$log" "$@"
rc=$?
if [ -s "$log" ]; then
  echo "oclgrind reported $(grep -c '^[A-Z]' "$log") problems ($log); the first ones:"
  head -n 80 "$log"
  exit 1
fi
exit $rc
