#!/usr/bin/env bash
# Times filter operations under several tuning variants side by side on the NVIDIA GPU, in rounds
# (per-launch differences under about 10 % need several rounds to show). A variant is a name and
# [filter] lines appended to the repo's nvidia-hopper.profile (later keys override), separated by ';':
#   PACK=.device tools/anchors/filter_variants.sh --rounds 2 \
#     --variant "lanes=strip_gradient_lanes = 1" --variant "dots=strip_gradient_lanes = 0" -- --op sobel --op scharr
# Prints `portacl filter --bench`'s table for each variant and round, each line prefixed by the
# variant's name and the round. Options after -- go to `portacl filter --bench` (default size 4096).
set -euo pipefail
PACK=${PACK:-.device}
export PORTACL_NO_PROGRESS=1
BASE=platforms/nvidia-hopper.profile
rounds=1
variants=()
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --variant) variants+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "filter_variants: unknown option $1 (see the header)" >&2; exit 2 ;;
  esac
done
[ ${#variants[@]} -gt 0 ] || { echo "filter_variants: give at least one --variant NAME=LINES" >&2; exit 2; }
for ((round = 1; round <= rounds; ++round)); do
  for v in "${variants[@]}"; do
    name=${v%%=*} lines=${v#*=}
    dir=$(mktemp -d)
    cp "$BASE" "$dir/nvidia-hopper.profile"
    printf '\n[filter]\n%s\n' "$(tr ';' '\n' <<< "$lines")" >> "$dir/nvidia-hopper.profile"
    PORTACL_PLATFORMS_DIR="$dir:$PWD/platforms" "$PACK/run" portacl filter --bench --device nvidia --bench-sizes 4096 "$@" 2>&1 |
      sed "s/^/$name r$round | /"
    rm -rf "$dir"
  done
done
