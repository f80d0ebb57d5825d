#!/bin/bash
# Held-out flash1 points for the early cleaning of rewritten lines
# (lopsided-split-2026-11-28.md): recorded on 2026-11-28 before fasim took
# any such rule, on shapes no recording had, chosen where cleaning rewritten
# O early (the experiment's X_RCLEAN = 0.1) and fasim as committed predict
# DRAM writes 1.5 to 4 times apart; one control where they agree (192 heads,
# N = 512). Each point: the buffers in 4 placements, one counter range in
# each (the counters are the median), simulator beside it.
# Writes $OUT/<gpu>-2026-11-28-rewrite-clean-holdout.csv. $1: the folder
# scripts/gpu-check.sh --prepare-carry fills (default build/gpu-carry).
set -u
P=${1:-build/gpu-carry}
OUT=${OUT:-out/rewrite-clean-holdout}
mkdir -p "$OUT" /tmp/fasim-cupti && tar -C /tmp/fasim-cupti -xzf "$P/cupti-libs.tar.gz"
export LD_LIBRARY_PATH=$P:/tmp/fasim-cupti FASIM=$P/fasim RANGES=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H200*) g=h200 ;; *H100*) g=h100 ;; *) g=gpu ;; esac
echo "$gpu, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
dev="docs/results/$g-2026-11-22-measured.toml"
# shellcheck source=../../scripts/append-sweep.sh
. scripts/append-sweep.sh
holdout_start "$g-2026-11-28-rewrite-clean-holdout" 1
for s in "16 3584" "16 5120" "18 4096" "20 3072"; do  # fp32, d = 64, the paper's tiles
  set -- $s
  part --algo flash1 --dtype fp32 --heads "$1" --N "$2" --d 64 --placements 4 --device "$dev"
done
for s in "fp16 16 3584" "fp16 18 3072" "fp32 20 1536" "fp32 24 1536"; do  # d = 128, 64 x 64
  set -- $s
  part --algo flash1 --dtype "$1" --heads "$2" --N "$3" --d 128 --br 64 --bc 64 --placements 4 --device "$dev"
done
for s in "fp32 96 768 64" "fp32 128 512 64" "fp16 64 1024 128" "fp32 192 512 64"; do  # more blocks than SMs
  set -- $s
  part --algo flash1 --dtype "$1" --heads "$2" --N "$3" --d "$4" --br 64 --bc 64 --placements 4 --device "$dev"
done
echo "wrote $csv: $(($(wc -l < "$csv") - 1)) rows"; cat "$log"
grep -E "dram_(read|write)_bytes" "$csv" | cut -d, -f4,5,7,8,9,13,14,15,16,17
