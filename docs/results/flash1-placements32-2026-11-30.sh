#!/bin/bash
# Four flash1 points near the L2's size, each in 32 placements of the buffers
# (one range each): is the GPU's spread over physical pages as wide with the
# GPU full (132 heads, both L2 halves loaded alike) as with 15 or 16 heads
# (one half loaded far more)? And does the median of 32 placements sit where
# the median of 8 did? Run on the lent H200 from the repository root with the
# binaries carried in build/gpu-carry; writes $OUT/flash1-placements32.{csv,log}.
set -u
. scripts/append-sweep.sh
holdout_gpu_setup build/gpu-carry
run() { compare_placements flash1-placements32 32 1 "$@"; }
start=$SECONDS
run --algo flash1 --dtype fp16 --N 512 --d 128 --heads 132 --br 64 --bc 16,64
run --algo flash1 --dtype fp32 --N 4096 --d 64 --heads 15,16 --br 64 --bc 227
echo "$((SECONDS - start)) s"
