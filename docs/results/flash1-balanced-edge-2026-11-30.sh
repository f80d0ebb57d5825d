#!/bin/bash
# flash1 with the GPU full (132 heads, one block per SM) near the L2's size:
# does the model's shortfall there follow the number of key blocks (Bc), the
# load (N), or neither? Run on the lent H200 from the repository root with the
# binaries carried in build/gpu-carry; writes $OUT/flash1-balanced-edge.{csv,log}.
set -u
. scripts/append-sweep.sh
holdout_gpu_setup build/gpu-carry
run() { compare_placements flash1-balanced-edge 8 2 "$@"; }
start=$SECONDS
run --algo flash1 --dtype fp16 --N 512 --d 128 --heads 132 --br 64 --bc 16,32
run --algo flash1 --dtype fp16 --N 384,448,576,640 --d 128 --heads 132 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 1024 --d 64 --heads 132 --br 64 --bc 64,128
run --algo flash1 --dtype fp16 --N 512 --d 128 --heads 66,100 --br 64 --bc 64
echo "$((SECONDS - start)) s"
