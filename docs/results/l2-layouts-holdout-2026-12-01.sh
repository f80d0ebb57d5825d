#!/bin/bash
# Held-out points for the line-level L2's layouts (l2-layouts-2026-12-01.md):
# ten shapes no recorded set has, each on the line-level L2 (66 heads or
# more, tensors within the 128 MiB sampled window), most near the L2's size
# where the layouts matter. Chosen and predicted by both models (the 21
# random orders and the allocation order) before this run. Each point in 32
# placements of the buffers, one counter range each.
# Run on the lent H200 from the repository root with the binaries carried in
# build/gpu-carry; writes $OUT/l2-layouts-holdout.{csv,log}.
set -u
. scripts/append-sweep.sh
holdout_gpu_setup build/gpu-carry
run() { compare_placements l2-layouts-holdout 32 1 "$@"; }
start=$SECONDS
run --algo flash1 --dtype fp16 --N 480,544 --d 128 --heads 132 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 960,1152 --d 64 --heads 132 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 576 --d 128 --heads 120 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 640 --d 128 --heads 110 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 704 --d 128 --heads 96 --br 64 --bc 64
run --algo flash1 --dtype fp32 --N 448 --d 64 --heads 132 --br 64 --bc 64
run --algo flash2 --dtype fp16 --N 1024 --d 128 --heads 100 --br 128 --bc 64
run --algo flash2 --dtype fp32 --N 512 --d 64 --heads 132 --br 128 --bc 64
echo "$((SECONDS - start)) s"
