#!/usr/bin/env bash
# The recorded sweep's 16 flash1 cells (scripts/gpu-check.sh: fp32 and fp16,
# N = 512 to 4096, 132 heads, Br 64, Bc 227 at d = 64 and 64 at d = 128)
# again, each in 32 placements of the buffers, one range each, every
# placement on pages no other had (measure() holds the earlier ones since
# 2026-11-30, placement-reuse-2026-11-30.md). The sweep s53 took them in 8
# placements of 2 ranges. One d a call, to stay inside one device call:
#   bash docs/results/sweep-flash1-held-2026-11-30.sh 128   (then 64)
# Run on the lent H200 from the repository root with the binaries carried in
# build/gpu-carry; appends to $OUT/sweep-flash1-held.{csv,log}.
set -u
d=${1:?usage: $0 D (64 or 128)}
. scripts/append-sweep.sh
holdout_gpu_setup build/gpu-carry
bc=64; [ "$d" = 64 ] && bc=227
start=$SECONDS
compare_placements sweep-flash1-held 32 1 --algo flash1 --dtype fp32,fp16 --N 512,1024,2048,4096 --d "$d" \
  --heads 132 --br 64 --bc "$bc"
echo "$((SECONDS - start)) s"
