#!/bin/bash
# A second held-out test of the block-placement rule (placement-rule-2026-11-28.md):
# the GPU's first-wave order for the cuda-simt kernels' grids larger than the
# SM count, dealing in turn for everything else. Recorded on 2026-11-28
# before fasim took the rule, on shapes no recording had, chosen where the
# rule and dealing in turn predict different write-backs (flash2 fp32 with
# 4 to 24 readers a K/V tile), plus controls where they agree (flash1 fp32
# and naive fp32 with large grids, the tensor-core kernel).
# Three counter ranges a point; simulator beside it (`fasim compare --sweep`).
# Writes $OUT/<gpu>-2026-11-28-placement-rule-holdout.csv. $1: the folder
# scripts/gpu-check.sh --prepare-carry fills (default build/gpu-carry).
set -u
P=${1:-build/gpu-carry}
OUT=${OUT:-out/placement-rule-holdout}
mkdir -p "$OUT" /tmp/fasim-cupti && tar -C /tmp/fasim-cupti -xzf "$P/cupti-libs.tar.gz"
export LD_LIBRARY_PATH=$P:/tmp/fasim-cupti
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H200*) g=h200 ;; *H100*) g=h100 ;; *) g=gpu ;; esac
echo "$gpu, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
dev="docs/results/$g-2026-11-22-measured.toml"
csv="$OUT/$g-2026-11-28-placement-rule-holdout.csv"
rm -f "$csv"
point() {
  "$P/fasim" compare --sweep "$@" --counter-runs 3 --no-numerics --device "$dev" --out /tmp/rule-point.csv || exit 1
  if [ -f "$csv" ]; then tail -n +2 /tmp/rule-point.csv >> "$csv"; else cp /tmp/rule-point.csv "$csv"; fi
}
for s in "48 512" "112 384"; do
  set -- $s
  point --algo flash2 --dtype fp32 --heads "$1" --N "$2" --d 128 --br 64 --bc 64 --blocks-per-sm 1,2
done
for s in "36 1024" "28 1536"; do
  set -- $s
  point --algo flash2 --dtype fp32 --heads "$1" --N "$2" --d 128 --br 64 --bc 64 --blocks-per-sm 1
done
for s in "192 256" "144 512" "56 768"; do
  set -- $s
  point --algo flash2 --dtype fp32 --heads "$1" --N "$2" --d 64 --br 64 --bc 64
done
point --algo flash2 --dtype fp32 --heads 96 --N 768 --d 64 --br 128 --bc 128
point --algo flash1 --dtype fp32 --heads 144 --N 512 --d 64 --br 64 --bc 64
point --algo naive --dtype fp32 --heads 32 --N 1024 --d 128
point --algo flash2 --dtype fp16 --heads 80 --N 768 --d 128 --br 128 --bc 128
echo "wrote $csv: $(($(wc -l < "$csv") - 1)) rows"
grep -E "dram_(read|write)_bytes" "$csv" | cut -d, -f4,5,7,8,9,13,14,15,18
