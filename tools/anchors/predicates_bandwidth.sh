#!/usr/bin/env bash
# Issue 32, item 3: the predicates' float and mixed rows at 2^24 queries against the copy bandwidth
# the same `portacl bench` measures, on the NVIDIA GPU, for each variant of the [predicates] profile
# keys, in rounds. A variant is a name and [predicates] lines appended to the shipped profile (later
# keys win): pad_points (0: gather the caller's packed 12-byte points; 1: copy the cloud into a
# padded one first, one 16-byte load per gathered point) and work_group. The bytes a row counts per
# query are the floor of one pass (k indices, the k points they name, one sign: 65 for orient3d, 81
# for insphere; docs/engineering/predicates.md), so "% copy" is the bench's own % of its copy peak.
#
# Run from the repository root on the GPU machine with the packed programs in $PACK (default .device):
#   tools/anchors/predicates_bandwidth.sh            # 2 rounds of the variants below
#   ROUNDS=3 VARIANTS="packed=pad_points = 0|padded=pad_points = 1" tools/anchors/predicates_bandwidth.sh
# Writes under $OUT (default ./predicates_bandwidth_out): predicates_bandwidth.txt (the summary, also
# printed), predicates_bandwidth.csv (every row of every run, with its variant and round) and
# predicates_bandwidth.log (the benches' own output, with the per-kernel profile). About 10 s a bench
# on an H100 once the kernels are built (the first bench of each point layout compiles them).
# DEVICE and BASE select another device and its profile (DEVICE=pocl BASE=platforms/pocl.profile).
set -uo pipefail
PACK=${PACK:-.device}
OUT=${OUT:-$PWD/predicates_bandwidth_out}
DEVICE=${DEVICE:-nvidia}
BASE=${BASE:-platforms/nvidia-hopper.profile}
ROUNDS=${ROUNDS:-2}
VARIANTS=${VARIANTS:-"packed=pad_points = 0|padded=pad_points = 1|padded-wg128=pad_points = 1;work_group = 128|padded-wg512=pad_points = 1;work_group = 512"}
[ -x "$PACK/run" ] || { echo "predicates_bandwidth: no $PACK/run here (pack build/portacl with ../shared/device/pack)"; exit 1; }
[ -f "$BASE" ] || { echo "predicates_bandwidth: no profile $BASE (run from the repository root)"; exit 1; }
mkdir -p "$OUT"
export PORTACL_NO_PROGRESS=1 PORTACL_SHOW_BUILD_LOG=1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
log=$OUT/predicates_bandwidth.log
: > "$log"
"$PACK/run" portacl devices --device "$DEVICE" 2>&1 | grep -E "Device|driver|compute units" >> "$log"

IFS='|' read -r -a variants <<< "$VARIANTS"
for ((round = 1; round <= ROUNDS; ++round)); do
  for v in "${variants[@]}"; do
    name=${v%%=*} lines=${v#*=}
    dir=$scratch/$name
    mkdir -p "$dir"
    # On NVIDIA, ptxas's registers and spills per kernel go to the log (-cl-nv-verbose, shown with the
    # build log when a program is compiled: the first bench of each point layout).
    if [ "$DEVICE" = nvidia ]; then
      sed -E 's/^(options = .*)$/\1 -cl-nv-verbose/' "$BASE" > "$dir/$(basename "$BASE")"
    else
      cp "$BASE" "$dir/$(basename "$BASE")"
    fi
    printf '\n[predicates]\n%s\n' "$(tr ';' '\n' <<< "$lines")" >> "$dir/$(basename "$BASE")"
    # The vector sum (a streaming read of 2^28 floats) once, beside the copy peak every bench measures.
    only=predicates
    [ "$round" = 1 ] && [ "$v" = "${variants[0]}" ] && only=predicates,vector_sum
    start=$SECONDS
    PORTACL_PLATFORMS_DIR="$dir:$PWD/platforms" timeout 120 "$PACK/run" portacl bench --device "$DEVICE" --only "$only" \
      -p float,mixed --no-serial --repeats 9 --profile --json "$scratch/$name-$round.json" > "$scratch/run.txt" 2>&1 < /dev/null
    rc=$?
    { echo "=== $name, round $round: exit $rc after $((SECONDS - start)) s"; cat "$scratch/run.txt"; } >> "$log"
    echo "$name, round $round: exit $rc after $((SECONDS - start)) s"
  done
done

python3 - "$scratch" "$OUT" <<'PY'
import collections, csv, glob, json, os, re, statistics, sys
scratch, out = sys.argv[1], sys.argv[2]
rows, copy, pad = [], collections.defaultdict(list), collections.defaultdict(list)
for path in sorted(glob.glob(os.path.join(scratch, "*.json"))):
    variant, round_ = os.path.basename(path)[:-5].rsplit("-", 1)
    d = json.load(open(path))
    for dev in d["devices"]:
        copy[variant].append(dev["copy_gb_per_s"])
    for r in d["results"]:
        r["variant"], r["round"] = variant, round_
        rows.append(r)
# The padded copy's own device time, from each bench's profile (mean over its calls).
text = open(os.path.join(out, "predicates_bandwidth.log")).read()
for block in text.split("=== ")[1:]:
    name = block.split(",")[0]
    m = re.search(r"^\s*pred_pad_points\s+kernel\s+\d+\s+[\d.]+\s+([\d.]+)", block, re.M)
    if m: pad[name].append(float(m.group(1)))
with open(os.path.join(out, "predicates_bandwidth.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["variant", "round", "workload", "size", "precision", "seconds", "gb_per_s", "percent_of_copy", "note"])
    for r in rows:
        w.writerow([r["variant"], r["round"], r["workload"], r["size"], r["precision"], r["seconds"], r["rate"],
                    r["percent_of_peak"], r["note"]])
lines = ["copy peak (the bench's, GB/s, per run): " +
         "; ".join(f"{v} {', '.join(f'{c:.0f}' for c in cs)}" for v, cs in copy.items())]
# ptxas's report for the predicates' kernels (NVIDIA, -cl-nv-verbose): registers and spills.
regs, kernel, program = [], None, ""
for line in text.splitlines():
    if "build log of" in line:
        program = "double" if "REAL=double" in line else "float"
    m = re.search(r"(?:entry function|Function properties for) '?(\w+)", line)
    if m: kernel = m.group(1)
    if kernel and re.search(r"_pass$|pred_pad_points", kernel) and re.search(r"registers|spill", line):
        regs.append(f"{kernel} ({program} build): {' '.join(line.split())}")
lines.extend(dict.fromkeys(regs))  # each line once, in order
if pad:
    lines.append("pred_pad_points mean device time (ms, per run): " +
                 "; ".join(f"{v} {', '.join(f'{t:.4f}' for t in ts)}" for v, ts in pad.items()))
lines.append(f"{'variant':14s} {'row':22s} {'prec':6s} {'median ms':>10s} {'min ms':>8s} {'GB/s':>7s} {'% copy':>7s}  passes (last run)")
groups = collections.defaultdict(list)
for r in rows:
    if r["seconds"] is not None: groups[(r["variant"], r["workload"], r["precision"])].append(r)
for (variant, workload, precision), rs in groups.items():
    t = statistics.median(r["seconds"] for r in rs) * 1e3
    pct = statistics.median(r["percent_of_peak"] for r in rs)
    gbs = statistics.median(r["rate"] for r in rs)
    passes = re.search(r"last run: ([^;]*)", rs[-1]["note"] or "")
    lines.append(f"{variant:14s} {workload:22s} {precision:6s} {t:10.4f} {min(r['seconds'] for r in rs) * 1e3:8.4f} "
                 f"{gbs:7.0f} {pct:6.1f}%  {passes.group(1) if passes else ''}")
summary = "\n".join(lines)
print(summary)
open(os.path.join(out, "predicates_bandwidth.txt"), "w").write(summary + "\n")
PY
