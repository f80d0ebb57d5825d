#!/bin/bash
# The readers table of occupancy-writes-2026-11-24.md for the tensor-core
# kernel (version 4, fp16, d = 128, Br = Bc = 64): heads x N = 65536 (16 MiB
# a tensor, as fp32's 32768) at 8, 32 and 128 heads (128, 32 and 8 readers of
# each K/V tile), each held to 1, 2 and 3 blocks per SM (3 fit), three counter ranges a point; simulator beside
# it (`fasim compare --sweep`). Does fp16 write back less with more blocks per
# SM and fewer readers, as fp32 does? Writes $OUT/<gpu>-2026-11-24-mma-readers.csv.
# $1: the folder scripts/gpu-check.sh --prepare-carry fills (default build/gpu-carry).
set -u
P=${1:-build/gpu-carry}
OUT=${OUT:-out/occupancy}
mkdir -p "$OUT" /tmp/fasim-cupti && tar -C /tmp/fasim-cupti -xzf "$P/cupti-libs.tar.gz"
export LD_LIBRARY_PATH=$P:/tmp/fasim-cupti
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H200*) g=h200 ;; *H100*) g=h100 ;; *) g=gpu ;; esac
echo "$gpu, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
csv="$OUT/$g-2026-11-24-mma-readers.csv"
rm -f "$csv"
for s in "8 8192" "32 2048" "128 512"; do
  set -- $s
  "$P/fasim" compare --sweep --algo flash2 --dtype fp16 --heads "$1" --N "$2" --d 128 --br 64 --bc 64 \
    --blocks-per-sm 1,2,3 --counter-runs 3 --device "docs/results/$g-2026-11-22-measured.toml" \
    --out /tmp/mma-readers.csv 2>/dev/null || exit 1
  if [ -f "$csv" ]; then tail -n +2 /tmp/mma-readers.csv >> "$csv"; else cp /tmp/mma-readers.csv "$csv"; fi
done
echo "wrote $csv: $(($(wc -l < "$csv") - 1)) rows"
grep -E "dram_write|time_s" "$csv" | cut -d, -f7,8,13-15,18
