#!/bin/bash
# A test of fasim's runs of 11 SMs per L2 half (sm-runs-2026-11-24.md),
# recorded after the rule was chosen (2026-11-24). Shapes no recording had,
# chosen where placement matters:
#  - flash1 (one block per head) with 8, 12, 20 and 24 heads near the L2's
#    size: 8 + 0, 11 + 1, 11 + 9 and 13 + 11 blocks per half in the model;
#  - flash2 fp32, d = 64, 64 x 64, 16 MiB tensors, 8 to 128 heads (each K/V
#    tile read by 128 to 8 consecutive blocks), at one and two blocks per SM;
#  - version 4 (fp16, d = 64, 128 x 128), 16 MiB tensors, 32 and 128 heads.
# Three counter ranges a point; simulator beside it (`fasim compare --sweep`).
# Writes $OUT/<gpu>-2026-11-24-sm-runs-holdout.csv. $1: the folder
# scripts/gpu-check.sh --prepare-carry fills (default build/gpu-carry).
set -u
P=${1:-build/gpu-carry}
OUT=${OUT:-out/sm-runs}
mkdir -p "$OUT" /tmp/fasim-cupti && tar -C /tmp/fasim-cupti -xzf "$P/cupti-libs.tar.gz"
export LD_LIBRARY_PATH=$P:/tmp/fasim-cupti
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H200*) g=h200 ;; *H100*) g=h100 ;; *) g=gpu ;; esac
echo "$gpu, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
dev="docs/results/$g-2026-11-22-measured.toml"
csv="$OUT/$g-2026-11-24-sm-runs-holdout.csv"
rm -f "$csv"
point() {
  "$P/fasim" compare --sweep "$@" --counter-runs 3 --no-numerics --device "$dev" --out /tmp/runs-point.csv || exit 1
  if [ -f "$csv" ]; then tail -n +2 /tmp/runs-point.csv >> "$csv"; else cp /tmp/runs-point.csv "$csv"; fi
}
point --algo flash1 --dtype fp16 --heads 8,12,20,24 --N 4096 --d 128 --br 64 --bc 64
point --algo flash1 --dtype fp32 --heads 8,12,24 --N 4096 --d 64
for s in "8 8192" "32 2048" "128 512"; do
  set -- $s
  point --algo flash2 --dtype fp32 --heads "$1" --N "$2" --d 64 --br 64 --bc 64 --blocks-per-sm 1,2
done
point --algo flash2 --dtype fp16 --heads 32 --N 4096 --d 64 --br 128 --bc 128
point --algo flash2 --dtype fp16 --heads 128 --N 1024 --d 64 --br 128 --bc 128
echo "wrote $csv: $(($(wc -l < "$csv") - 1)) rows"
grep -E "dram_(read|write)_bytes" "$csv" | cut -d, -f4,5,7,8,9,13,14,15,18
