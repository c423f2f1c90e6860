#!/usr/bin/env bash
# Sweeps VkFFT's own knobs ([fft] vkfft_* keys of the vendor profile) on the NVIDIA GPU: one generated
# profile folder per variant (the shipped nvidia-hopper.profile with an [fft] section appended), each
# timing `portacl bench --only fft` (256^3 R2C + C2R, float) and, with KWAVE=1, the k-Wave time step.
# Run from the repository root with the packed programs in $PACK (default leadpack):
#   tools/anchors/fft_sweep.sh            # about 10 s per variant
set -u
PACK=${PACK:-leadpack}
export PORTACL_NO_PROGRESS=1
base=platforms/nvidia-hopper.profile
[ -x "$PACK/run" ] || { echo "fft_sweep: no $PACK/run here (set PACK to the packed programs)"; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
variants=(
    "default:"
    "coalesced64:vkfft_coalesced_memory=64"
    "coalesced128:vkfft_coalesced_memory=128"
    "threads64:vkfft_aim_threads=64"
    "threads256:vkfft_aim_threads=256"
    "boost2:vkfft_register_boost=2"
    "boost4:vkfft_register_boost=4"
    "bandwidth2:vkfft_bandwidth_boost=2"
    "lut:vkfft_use_lut=1"
)
for v in "${variants[@]}"; do
    name=${v%%:*} keys=${v#*:}
    dir=$scratch/$name
    mkdir -p "$dir"
    { cat "$base"; echo; echo "[fft]"; for kv in ${keys//,/ }; do echo "${kv%%=*} = ${kv#*=}"; done; } > "$dir/nvidia-hopper.profile"
    only=fft; [ "${KWAVE:-0}" = 1 ] && only=fft,kwave
    PORTACL_PLATFORMS_DIR=$dir timeout 90 "$PACK/run" portacl bench --device nvidia --only $only --no-serial \
        --repeats 5 -p float < /dev/null 2>&1 | grep -iE "r2c\+c2r vkfft|kwave/.*256" | sed -E "s/^/$name: /; s/ +/ /g"
done
