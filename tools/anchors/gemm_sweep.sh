#!/usr/bin/env bash
# Times the register-blocked GEMM variants of tools/anchors/gemm_variants.txt at 4096^3 on the NVIDIA
# GPU, one `portacl bench` per variant through a generated profile folder (PORTACL_PLATFORMS_DIR), and
# cuBLAS in the same run. Prints one line per variant: its rate, the registers and spills NVIDIA's
# compiler reports (-cl-nv-verbose), and a WRONG RESULT note if the bench's exact check failed.
#
# Run from the repository root on the GPU machine, with the packed programs in $PACK (default leadpack):
#   tools/anchors/gemm_sweep.sh              # every variant
#   tools/anchors/gemm_sweep.sh f-u16 d-k8   # only these
# Each variant: a context, the peaks, one compile, 2 warm-ups and 5 timed runs (a few seconds on a GPU).
set -u
PACK=${PACK:-leadpack}
variants=tools/anchors/gemm_variants.txt
base=platforms/nvidia-hopper.profile
[ -x "$PACK/run" ] || { echo "gemm_sweep: no $PACK/run here (set PACK to the packed programs)"; exit 1; }
export PORTACL_NO_PROGRESS=1 PORTACL_GEMM_KERNELS=register-blocked PORTACL_SHOW_BUILD_LOG=1 PORTACL_NO_CACHE=1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The GPU and the facts that bound the tiles (local memory per work-group).
$PACK/run portacl devices --device nvidia 2>&1 | grep -E "Device|local memory|max work-group|compute cap"
timeout 60 python3 - <<'PY' 2>&1 | sed 's/^/anchor: /'
import cupy as cp
n = 4096
for dtype, name in ((cp.float32, "SGEMM"), (cp.float64, "DGEMM")):
    a, b = cp.random.rand(n, n).astype(dtype), cp.random.rand(n, n).astype(dtype)
    for _ in range(3): a @ b
    s, e, ms = cp.cuda.Event(), cp.cuda.Event(), []
    for _ in range(7):
        s.record(); a @ b; e.record(); e.synchronize(); ms.append(cp.cuda.get_elapsed_time(s, e))
    m = sorted(ms)[3]
    print(f"cuBLAS {name} {n}^3: {m:.3f} ms, {2 * n**3 / m / 1e9:.1f} TFLOP/s")
PY

# One bench of the register-blocked kernel with the profile in folder $2; prints "$1: <result line(s)>".
bench() { # label folder precisions
  local log=$scratch/log
  PORTACL_PLATFORMS_DIR=$2 timeout 90 $PACK/run portacl bench --device nvidia --only gemm --no-serial \
    --repeats 5 -p "$3" > "$log" 2>&1 < /dev/null
  local rc=$?
  grep -E "gemm/register-blocked|not run" "$log" | sed -E "s/^/$1: /; s/ +/ /g"
  # With -cl-nv-verbose, ptxas reports registers and spills per kernel of the program (one compile
  # per precision); keep the register-blocked kernel's, or every such line if the format differs.
  local regs
  regs=$(awk '/entry function|Function properties for/ {mine = /gemm_register_blocked/}
              mine && /registers|spill/ {gsub(/ +/, " "); printf "%s; ", $0}' "$log")
  [ -n "$regs" ] || regs=$(grep -iE "registers|spill" "$log" | grep -v "^build log" | head -6 | tr -s ' ' | tr '\n' ';')
  [ -z "$regs" ] || echo "$1: compiler: $regs"
  [ $rc -eq 0 ] || { echo "$1: exit status $rc, last lines:"; tail -3 "$log" | sed "s/^/$1:   /"; }
}

# The shipped profile as it is (float and double), then each variant: the shipped profile with its
# [gemm] section replaced by the variant's keys and -cl-nv-verbose added to the build options.
mkdir -p "$scratch/shipped"
sed -E 's/^(options = .*)$/\1 -cl-nv-verbose/' "$base" > "$scratch/shipped/nvidia-hopper.profile"
bench shipped "$scratch/shipped" float,double

grep -vE '^\s*(#|$)' "$variants" | while read -r name precision keys; do
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  dir=$scratch/$name
  mkdir -p "$dir"
  awk '/^\[/{skip = ($0 == "[gemm]")} !skip' "$scratch/shipped/nvidia-hopper.profile" > "$dir/nvidia-hopper.profile"
  { echo "[gemm]"; for kv in $keys; do echo "${kv%%=*} = ${kv#*=}"; done; } >> "$dir/nvidia-hopper.profile"
  bench "$name" "$dir" "$precision"
done
