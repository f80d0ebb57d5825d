#!/bin/bash
# Held-out points for fasim's small-grid order and 64-way sets, taken on
# 2026-11-29 (small-grid-placement-2026-11-28.md, its last section): recorded
# after the change was committed and before anything was chosen on them, on
# shapes no recording had. All flash1 near the L2's size, with 10, 14, 18,
# 22 and 28 heads: grids that sit 9 + 1, 11 + 3, 13 + 5, 15 + 7 and 17 + 11
# next to the two L2 halves, where fasim as it was (8 + 8 style dealing,
# 32-way sets) and as it is predict DRAM bytes 1.3 to 8 times apart. Each
# point: the buffers in 4 placements, one counter range in each (the
# counters are the median), simulator beside it.
# Writes $OUT/<gpu>-2026-11-29-small-grid-fill-holdout.csv and .log. $1: the
# folder scripts/gpu-check.sh --prepare-carry fills (default build/gpu-carry).
set -u
P=${1:-build/gpu-carry}
OUT=${OUT:-out/small-grid-fill-holdout}
mkdir -p "$OUT" /tmp/fasim-cupti && tar -C /tmp/fasim-cupti -xzf "$P/cupti-libs.tar.gz"
export LD_LIBRARY_PATH=$P:/tmp/fasim-cupti FASIM=$P/fasim RANGES=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H200*) g=h200 ;; *H100*) g=h100 ;; *) g=gpu ;; esac
echo "$gpu, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
dev="docs/results/$g-2026-11-22-measured.toml"
# shellcheck source=../../scripts/append-sweep.sh
. scripts/append-sweep.sh
holdout_start "$g-2026-11-29-small-grid-fill-holdout" 1
for s in "10 5632" "10 6400" "14 4608" "18 3584" "28 2304"; do  # fp32, d = 64, the paper's tiles
  set -- $s
  part --algo flash1 --dtype fp32 --heads "$1" --N "$2" --d 64 --placements 4 --device "$dev"
done
for s in "fp32 10 2816" "fp16 10 5632" "fp16 10 6400" "fp32 14 2304" "fp16 14 4608" "fp32 14 2560" \
         "fp16 18 3584" "fp32 18 2048" "fp16 18 4096" "fp32 22 1536" "fp16 22 3328" "fp16 28 2304" \
         "fp32 28 1280"; do  # d = 128, 64 x 64
  set -- $s
  part --algo flash1 --dtype "$1" --heads "$2" --N "$3" --d 128 --br 64 --bc 64 --placements 4 --device "$dev"
done
echo "wrote $csv: $(($(wc -l < "$csv") - 1)) rows"; cat "$log"
grep -E "dram_(read|write)_bytes" "$csv" | cut -d, -f4,5,7,8,9,13,14,15,16,17
