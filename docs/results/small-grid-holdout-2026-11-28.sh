#!/bin/bash
# Held-out points for taking the GPUs' own placement of small grids
# (launch-placement-grids-2026-11-25.md) with sharper L2 sets: recorded on
# 2026-11-28 before fasim changed, on shapes no recording had. The flash1
# points are chosen where the candidate model (the GPUs' halves for grids of
# 4 to 24 blocks, 64-way sets, rewritten data cleaned in the last 0.05) and
# fasim as committed predict DRAM bytes 1.2 to 6 times apart; the flash1
# grids larger than the SMs, flash2 and naive points are controls, where
# the two mostly agree. Each point: the buffers in 4 placements, one counter
# range in each (the counters are the median), simulator beside it.
# Writes $OUT/<gpu>-2026-11-28-small-grid-holdout.csv. $1: the folder
# scripts/gpu-check.sh --prepare-carry fills (default build/gpu-carry).
set -u
P=${1:-build/gpu-carry}
OUT=${OUT:-out/small-grid-holdout}
mkdir -p "$OUT" /tmp/fasim-cupti && tar -C /tmp/fasim-cupti -xzf "$P/cupti-libs.tar.gz"
export LD_LIBRARY_PATH=$P:/tmp/fasim-cupti FASIM=$P/fasim RANGES=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H200*) g=h200 ;; *H100*) g=h100 ;; *) g=gpu ;; esac
echo "$gpu, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
dev="docs/results/$g-2026-11-22-measured.toml"
# shellcheck source=../../scripts/append-sweep.sh
. scripts/append-sweep.sh
holdout_start "$g-2026-11-28-small-grid-holdout" 1
for s in "16 4608" "12 5120" "8 6144" "24 2560" "16 3840" "20 3584"; do  # fp32, d = 64, the paper's tiles
  set -- $s
  part --algo flash1 --dtype fp32 --heads "$1" --N "$2" --d 64 --placements 4 --device "$dev"
done
for s in "fp32 16 2560" "fp16 16 3840" "fp16 16 4608" "fp32 12 2560" "fp16 20 3328" "fp32 20 2048" \
         "fp16 24 2304" "fp32 16 3328" "fp16 12 4608" "fp16 8 6144" "fp16 16 3328" "fp32 12 4096"; do  # d = 128, 64 x 64
  set -- $s
  part --algo flash1 --dtype "$1" --heads "$2" --N "$3" --d 128 --br 64 --bc 64 --placements 4 --device "$dev"
done
for s in "fp32 160 512 64" "fp32 112 768 64" "fp16 80 1024 128"; do  # flash1, more blocks than SMs
  set -- $s
  part --algo flash1 --dtype "$1" --heads "$2" --N "$3" --d "$4" --br 64 --bc 64 --placements 4 --device "$dev"
done
for s in "fp32 24 2048 128 64" "fp32 16 6144 64 128" "fp16 48 2048 128 128" "fp32 40 1024 128 64"; do  # flash2
  set -- $s
  part --algo flash2 --dtype "$1" --heads "$2" --N "$3" --d "$4" --br "$5" --bc "$5" --placements 4 --device "$dev"
done
for s in "fp16 16 1280 128" "fp16 12 1280 64"; do  # naive
  set -- $s
  part --algo naive --dtype "$1" --heads "$2" --N "$3" --d "$4" --placements 4 --device "$dev"
done
echo "wrote $csv: $(($(wc -l < "$csv") - 1)) rows"; cat "$log"
grep -E "dram_(read|write)_bytes" "$csv" | cut -d, -f4,5,7,8,9,13,14,15,16,17
