#!/bin/bash
# flash1 with the GPU full (132 heads, one block per SM, one wave) and the
# lopsided 16-head edge scanned by heads: run on the lent H200 from the
# repository root with the binaries carried in build/gpu-carry.
# Writes $OUT/flash1-full-grid.{csv,log} and $OUT/flash1-edge-heads.{csv,log}.
set -u
. scripts/append-sweep.sh
holdout_gpu_setup build/gpu-carry
FLASH1_PLACEMENTS=${FLASH1_PLACEMENTS:-8}
run() { compare_placements "$1" "$FLASH1_PLACEMENTS" 2 "${@:2}"; }  # run NAME ARGS...
start=$SECONDS
run flash1-full-grid --algo flash1 --dtype fp32,fp16 --N 512,1024,2048,4096 --d 64 --heads 132 --br 64 --bc 227
run flash1-full-grid --algo flash1 --dtype fp32,fp16 --N 512,1024,2048,4096 --d 128 --heads 132 --br 64 --bc 64
echo "full grid: $((SECONDS - start)) s"
start=$SECONDS
run flash1-edge-heads --algo flash1 --dtype fp32 --N 4096 --d 64 --heads 13,14,15,17,18,20 --br 64 --bc 227
echo "edge scan: $((SECONDS - start)) s"
