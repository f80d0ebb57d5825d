#!/bin/bash
# Held-out points for the line-level L2 (sim/include/fasim/l2_lines.hpp,
# l2-lines-2026-12-01.md): shapes no recorded set has, each with at least 66
# heads and tensors that fit the 128 MiB sampled window, so fasim predicts
# them with the line-level L2. Each point is measured in 32 placements of the
# buffers, one counter range each (the GPU's DRAM bytes move with the pages
# it gives the buffers), as the flash1 edge points were.
# Run on the lent H200 from the repository root with the binaries carried in
# build/gpu-carry; writes $OUT/l2-lines-holdout.{csv,log}.
set -u
. scripts/append-sweep.sh
holdout_gpu_setup build/gpu-carry
run() { compare_placements l2-lines-holdout 32 1 "$@"; }
start=$SECONDS
run --algo flash1 --dtype fp16 --N 768 --d 64 --heads 132 --br 64 --bc 64,227
run --algo flash1 --dtype fp16 --N 896 --d 64 --heads 132 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 768 --d 128 --heads 100 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 640 --d 128 --heads 120 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 1024 --d 128 --heads 72 --br 64 --bc 64
run --algo flash1 --dtype fp32 --N 384 --d 64 --heads 132 --br 64 --bc 64
run --algo flash1 --dtype fp32 --N 512 --d 64 --heads 112 --br 64 --bc 64
run --algo flash1 --dtype fp32 --N 768 --d 64 --heads 80 --br 64 --bc 64
run --algo flash2 --dtype fp16 --N 1280 --d 64 --heads 80 --br 128 --bc 128
run --algo flash2 --dtype fp32 --N 768 --d 64 --heads 100 --br 128 --bc 64
echo "$((SECONDS - start)) s"
