#!/usr/bin/env bash
# Runs a program under oclgrind with its API checks, data-race detection and uninitialised-value
# tracking, every report going to LOG. Fails when oclgrind reported anything (even if the program
# passed); exits 77 (CTest's skip) when oclgrind is not installed.
# Kernels are built with -cl-opt-disable: Debian's oclgrind 21.10 cannot follow LLVM's `freeze`
# instruction, which its optimizer emits (a fatal error in the uninitialised-value plugin, and the
# kernel's results are lost), and unoptimized code keeps the checks on the statements as written.
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
oclgrind --build-options -cl-opt-disable --check-api --data-races --uninitialized --log "$log" "$@"
rc=$?
if [ -s "$log" ]; then
  echo "oclgrind reported $(grep -c '^[A-Z]' "$log") problems ($log); the first ones:"
  head -n 80 "$log"
  exit 1
fi
exit $rc
