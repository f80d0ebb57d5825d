#!/usr/bin/env bash
# Points no recording has, to test the time model out of sample.
#
# The warp latencies were fitted to the recorded H200 sweep's times
# (docs/results/h200-2026-11-22-sweep.csv), with each kernel's own occupancy
# and reads that wait for DRAM reads in flight. These shapes change what
# those two depend on: tilings the sweep never ran (Br = Bc = 32 or 64 where
# the sweep has 128), few heads (one block per SM or fewer) and many, and
# naive's softmax in two passes. Each `fasim compare --sweep` runs in its own
# process with RANGES counter ranges per point; all rows go to
# $OUT/holdout-time.csv.
#
#   RANGES=1 OUT=/tmp/h FASIM=build/bin/fasim scripts/gpu-holdout-time.sh [--device D.toml]
set -uo pipefail
# shellcheck source=scripts/append-sweep.sh
source "$(dirname "$0")/append-sweep.sh"
holdout_start holdout-time 1
part --algo naive --dtype fp16 --N 2048 --d 128 --heads 16 --br 64 --bc 64 "$@"
part --algo naive --dtype fp32 --N 4096 --d 64 --heads 8 "$@"
part --algo naive --dtype fp16 --N 8192 --d 64 --heads 4 "$@"
part --algo flash1 --dtype fp32 --N 1024 --d 64 --heads 132 --br 64 --bc 64 "$@"
part --algo flash2 --dtype fp32 --N 1024 --d 64 --heads 32 --br 32 --bc 32 "$@"
part --algo flash2 --dtype fp32 --N 2048 --d 128 --heads 4 --br 64 --bc 64 "$@"
part --algo flash2 --dtype fp32 --N 1024 --d 128 --heads 64 --br 64 --bc 64 "$@"
part --algo flash2 --dtype fp16 --N 2048 --d 64 --heads 64 "$@"
part --algo flash2 --dtype bf16 --N 1024 --d 128 --heads 32 "$@"
part --algo flash2 --dtype fp16 --N 8192 --d 128 --heads 4 "$@"
echo "holdout-time: $(($(wc -l <"$csv") - 1)) rows, ${SECONDS} s"
