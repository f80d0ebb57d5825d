#!/bin/bash
# The rest of the flash1 edge points in 32 placements of the buffers (one
# range each), after flash1-placements32-2026-11-30.sh showed that the
# median of 8 placements moves by up to 22% there: the GPU full (132 heads)
# by length and key block, and 13 to 18 heads around the 16 of the sweeps.
# Run on the lent H200 from the repository root with the binaries carried in
# build/gpu-carry; writes $OUT/flash1-placements32-more.{csv,log}.
set -u
. scripts/append-sweep.sh
holdout_gpu_setup build/gpu-carry
run() { compare_placements flash1-placements32-more 32 1 "$@"; }
start=$SECONDS
run --algo flash1 --dtype fp16 --N 448,576 --d 128 --heads 132 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 1024 --d 64 --heads 132 --br 64 --bc 64,227
run --algo flash1 --dtype fp32 --N 4096 --d 64 --heads 13,14,17,18 --br 64 --bc 227
echo "$((SECONDS - start)) s"
