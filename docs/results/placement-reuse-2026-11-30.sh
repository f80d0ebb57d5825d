#!/usr/bin/env bash
# After the fix of 2026-11-30 (cuda/src/measure.cpp holds the earlier
# placements' buffers, so freed pages cannot come back): the measure tests,
# the three flash1 points of rmw-2026-11-30.sh in 32 placements again (the
# 16-head one twice, in two processes), and the twelve flash1 edge points of
# flash1-placements32{,-more}-2026-11-30.sh recorded again in 32 placements,
# one range each, the log listing each placement's DRAM reads.
# Run by the device tool from the repository root, with the binaries carried
# in build/gpu-carry (scripts/gpu-check.sh --prepare-carry). Results under
# $OUT: tests.log, placements-*.json, flash1-placements32-held.{csv,log}.
set -u
O=${OUT:-/tmp}; OUT=$O
. scripts/append-sweep.sh
holdout_gpu_setup build/gpu-carry
start=$SECONDS
build/gpu-carry/fasim_cuda_tests "[measure]" > "$O/tests.log" 2>&1
echo "tests [measure]: exit $? $((SECONDS - start)) s; $(tail -2 "$O/tests.log" | head -1)"
point() { placements_json "$@"; }
point fp32-h16 --algo flash1 --dtype fp32 --N 4096 --d 64 --heads 16 --br 64 --bc 227
point fp32-h16-again --algo flash1 --dtype fp32 --N 4096 --d 64 --heads 16 --br 64 --bc 227
point fp16-h132-bc64 --algo flash1 --dtype fp16 --N 512 --d 128 --heads 132 --br 64 --bc 64
point fp16-h132-bc16 --algo flash1 --dtype fp16 --N 512 --d 128 --heads 132 --br 64 --bc 16
run() { compare_placements flash1-placements32-held 32 1 "$@"; }
start=$SECONDS
run --algo flash1 --dtype fp16 --N 512 --d 128 --heads 132 --br 64 --bc 16,64
run --algo flash1 --dtype fp32 --N 4096 --d 64 --heads 15,16 --br 64 --bc 227
run --algo flash1 --dtype fp16 --N 448,576 --d 128 --heads 132 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 1024 --d 64 --heads 132 --br 64 --bc 64,227
run --algo flash1 --dtype fp32 --N 4096 --d 64 --heads 13,14,17,18 --br 64 --bc 227
echo "edge points: $((SECONDS - start)) s"
