#!/bin/bash
# Version 4 (flash2-mma) at the tilings the sweeps do not use (2026-11-24):
# SHAPES, DTYPE and NAME (environment) change the shapes, the storage type and
# the file's name (the held-out run: SHAPES="32 2048,8 8192" DTYPE=bf16
# NAME=mma-occupancy-holdout, on an H100).
# with Br = 64 or Bc = 64 it holds two to four blocks per SM, where the
# sweeps' Br = Bc = 128 holds one. Each tiling as it fits and held to one
# block per SM (--blocks-per-sm 1), fp16, 16 heads at N = 4096 and 64 heads
# at N = 1024, three counter ranges a point; simulator beside it (`fasim
# compare --sweep`, cuda-mma model). Prints the GPU tests' [occupancy]
# cases first. Writes $OUT/<gpu>-2026-11-24-mma-occupancy.csv. $1: the
# folder scripts/gpu-check.sh --prepare-carry fills (default build/gpu-carry).
set -u
P=${1:-build/gpu-carry}
OUT=${OUT:-out/occupancy}
mkdir -p "$OUT" /tmp/fasim-cupti && tar -C /tmp/fasim-cupti -xzf "$P/cupti-libs.tar.gz"
export LD_LIBRARY_PATH=$P:/tmp/fasim-cupti
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H200*) g=h200 ;; *H100*) g=h100 ;; *) g=gpu ;; esac
echo "$gpu, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
"$P/fasim_cuda_tests" "[occupancy]" -s 2>&1 | grep -E "blocks per SM|passed|failed|FAILED" | head -20
SHAPES=${SHAPES:-16 4096,64 1024}
DTYPE=${DTYPE:-fp16}
csv="$OUT/$g-2026-11-24-${NAME:-mma-occupancy}.csv"
rm -f "$csv"
for t in "64 64 64" "64 64 128" "128 64 64" "64 128 64" "64 128 128"; do
  set -- $t
  IFS=, read -ra shapes <<< "$SHAPES"
  for shape in "${shapes[@]}"; do
    for cap in "" "--blocks-per-sm 1"; do
      "$P/fasim" compare --sweep --algo flash2 --dtype "$DTYPE" --heads "${shape% *}" --N "${shape#* }" --d "$3" \
        --br "$1" --bc "$2" $cap --counter-runs 3 --device "docs/results/$g-2026-11-22-measured.toml" \
        --out /tmp/mma-point.csv 2>/dev/null || exit 1
      if [ -f "$csv" ]; then tail -n +2 /tmp/mma-point.csv >> "$csv"; else cp /tmp/mma-point.csv "$csv"; fi
    done
  done
done
echo "wrote $csv: $(($(wc -l < "$csv") - 1)) rows"
grep -E "time_s|dram_write" "$csv" | cut -d, -f7-11,13-15,18
