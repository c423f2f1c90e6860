#!/usr/bin/env bash
# Times `portacl voronoi` on the NVIDIA GPU for 1A8O, 2XHE and 4UN3 under a few splits of the edge
# searches ([voronoi] tunables through their PORTACL_VORONOI_* overrides, on top of the shipped
# profile), in float, mixed and double. One line per (variant, structure, precision): the wall time of
# the whole diagram in one process run three times in one context (first: includes loading or
# building the kernels; warm: the best of the other two), waves, searches phase 2 redid, and whether
# the vertex file equals the first variant's (and, for float and double, mixed's). Then the host
# phases of the last run (PORTACL_VORONOI_TIMES=1).
#
# Run from the repository root on the GPU machine, with the packed programs in $PACK (default
# leadpack) and the structures in $PORTACL_DATA_DIR/pdb:
#   tools/anchors/voronoi_sweep.sh              # every variant
#   tools/anchors/voronoi_sweep.sh L8 L32       # only these
# About 1 s per line (context, 3 runs; 4UN3 more), 54 lines: under 2 minutes in all.
set -u
PACK=${PACK:-leadpack}
if [ -z "${PORTACL_DATA_DIR:-}" ]; then
  for d in shared/data ../shared/data; do [ -d "$d/pdb" ] && PORTACL_DATA_DIR=$d && break; done
fi
[ -x "$PACK/run" ] || { echo "voronoi_sweep: no $PACK/run here (set PACK to the packed programs)"; exit 1; }
[ -d "${PORTACL_DATA_DIR:-}/pdb" ] || { echo "voronoi_sweep: no pdb folder (set PORTACL_DATA_DIR)"; exit 1; }
export PORTACL_NO_PROGRESS=1 PORTACL_VORONOI_TIMES=1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# name and PORTACL_VORONOI_* settings (none: the shipped profile's [voronoi]).
variants=(
  "profile:"
  "L1:LANES=1 FLAGGED_LANES=1"
  "L8:LANES=8 GROUP=64 FLAGGED_LANES=64"
  "L32:LANES=32 GROUP=64 FLAGGED_LANES=64"
  "L16-G128:LANES=16 GROUP=128 FLAGGED_LANES=128 WIDE_GROUP=128"
  "L16-wide2048:LANES=16 GROUP=64 FLAGGED_LANES=64 WIDE_CANDIDATES=2048"
)

$PACK/run portacl devices --device nvidia 2>&1 | grep -E "Device|compute cap" | head -2
inputs=${VORONOI_SWEEP_INPUTS:-pdb/1A8O.pdb pdb/2XHE.pdb pdb/4UN3.cif}
refname=""  # the first variant run: every other's files are compared with its

for v in "${variants[@]}"; do
  name=${v%%:*}
  settings=${v#*:}
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  envs=()
  for kv in $settings; do envs+=("PORTACL_VORONOI_$kv"); done
  for input in $inputs; do
    s=$(basename "$input"); s=${s%%.*}
    for p in mixed float double; do
      out=$scratch/$name.$s.$p.txt log=$scratch/log
      env ${envs[@]+"${envs[@]}"} timeout 60 $PACK/run portacl voronoi "$PORTACL_DATA_DIR/$input" -o "$out" --device nvidia \
        --precision $p --repeats 3 > "$log" 2>&1 < /dev/null
      rc=$?
      if [ $rc -ne 0 ] || [ ! -f "$out" ]; then
        echo "$name $s $p: exit status $rc: $(tail -2 "$log" | tr '\n' ' ')"
        continue
      fi
      read -r first warm < <(awk '/^runs_seconds/ {b = $3; for (i = 4; i <= NF; ++i) if ($i < b) b = $i; print $2, b}' "$log")
      summary=$(grep -E "^balls " "$log" | tail -1)
      waves=$(awk '{for (i = 1; i < NF; ++i) if ($i == "waves") print $(i + 1)}' <<< "$summary")
      phase2=$(awk '{for (i = 1; i < NF; ++i) if ($i == "phase2_edges") print $(i + 1)}' <<< "$summary")
      redone=$(awk '{for (i = 1; i < NF; ++i) if ($i == "redone_on_host") print $(i + 1)}' <<< "$summary")
      vertices=$(awk '{for (i = 1; i < NF; ++i) if ($i == "vertices") print $(i + 1)}' <<< "$summary")
      # The same vertex file as the first variant run (same structure and precision), and as mixed.
      [ -n "$refname" ] || refname=$name
      same="same as $refname"
      cmp -s "$out" "$scratch/$refname.$s.$p.txt" || same="DIFFERS from $refname"
      if [ "$p" != mixed ]; then
        if cmp -s "$out" "$scratch/$name.$s.mixed.txt"; then same="$same, = mixed"; else same="$same, DIFFERS from mixed"; fi
      fi
      printf '%-13s %-5s %-6s first %7.1f ms  warm %7.1f ms  %2s waves  phase2 %6s  redone %s  %s vertices (%s)\n' \
        "$name" "$s" "$p" "$(awk -v x="$first" 'BEGIN {print 1e3 * x}')" "$(awk -v x="$warm" 'BEGIN {print 1e3 * x}')" \
        "$waves" "$phase2" "$redone" "$vertices" "$same"
      grep -E "^voronoi times" "$log" | tail -1 | sed -E "s/^voronoi times/    host/"
    done
  done
done
