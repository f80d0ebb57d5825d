#!/bin/bash
# Occupancy on the GPU with the shipped flag (2026-11-24): flash2 fp32, d = 128,
# 64 x 64 tiles, heads x N = 32768 (4 to 128 heads: 128 to 4 readers of each
# K/V tile), each at one and two blocks per SM (--blocks-per-sm 1,2), three
# counter ranges a point; simulator beside it (`fasim compare --sweep`).
# Writes $OUT/<gpu>-2026-11-24-occupancy.csv and prints the GPU tests'
# [occupancy] case first. $1: the folder scripts/gpu-check.sh --prepare-carry
# fills (default build/gpu-carry).
set -u
P=${1:-build/gpu-carry}
OUT=${OUT:-out/occupancy}
mkdir -p "$OUT" /tmp/fasim-cupti && tar -C /tmp/fasim-cupti -xzf "$P/cupti-libs.tar.gz"
export LD_LIBRARY_PATH=$P:/tmp/fasim-cupti
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H200*) g=h200 ;; *H100*) g=h100 ;; *) g=gpu ;; esac
echo "$gpu, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
"$P/fasim_cuda_tests" "[occupancy]" -s 2>&1 | grep -E "blocks per SM|passed|failed|FAILED" | head -20
csv="$OUT/$g-2026-11-24-occupancy.csv"
rm -f "$csv"
for s in "4 8192" "8 4096" "16 2048" "32 1024" "64 512" "128 256"; do
  set -- $s
  "$P/fasim" compare --sweep --algo flash2 --dtype fp32 --heads "$1" --N "$2" --d 128 --br 64 --bc 64 \
    --blocks-per-sm 1,2 --counter-runs 3 --no-numerics --device "docs/results/$g-2026-11-22-measured.toml" \
    --out /tmp/occ-point.csv || exit 1
  if [ -f "$csv" ]; then tail -n +2 /tmp/occ-point.csv >> "$csv"; else cp /tmp/occ-point.csv "$csv"; fi
done
"$P/fasim" gpu run --algo flash2 --dtype fp32 --heads 16 --N 2048 --d 128 --br 64 --bc 64 --blocks-per-sm 1 \
  --no-numerics | sed -n 1,6p
echo "wrote $csv: $(($(wc -l < "$csv") - 1)) rows"
grep dram_write_bytes "$csv" | cut -d, -f7,8,14,15,18
