#!/usr/bin/env bash
# Points the recorded sweep does not have, to test the L2 model out of sample.
#
# The L2 model's constants were chosen on the recorded H200 sweeps (ways on
# docs/results/h200-2026-11-21-sweep-start-dirty.csv, the clean share on
# h200-2026-11-22-sweep.csv) and the probes beside them. These shapes differ
# from the sweeps' in heads, N or dtype, and nearly fill or overflow the L2,
# where DRAM writes depend most on the model. Each `fasim compare --sweep`
# runs in its own process with RANGES counter ranges per point; all rows go
# to $OUT/holdout.csv.
#
#   RANGES=3 OUT=/tmp/h FASIM=build/bin/fasim scripts/gpu-holdout.sh [--device D.toml]
set -uo pipefail
# shellcheck source=scripts/append-sweep.sh
source "$(dirname "$0")/append-sweep.sh"
holdout_start holdout 3
part --algo flash2 --dtype fp16 --N 4096 --d 128 --heads 24,32 "$@"
part --algo flash2 --dtype fp16 --N 2048 --d 128 --heads 48 "$@"
part --algo flash2 --dtype fp16 --N 4096 --d 64 --heads 32,48 "$@"
part --algo flash2 --dtype bf16 --N 4096 --d 128 --heads 24 "$@"
part --algo flash2 --dtype fp32 --N 4096 --d 64 --heads 24 "$@"
part --algo flash2 --dtype fp32 --N 2048 --d 128 --heads 32 --br 64 --bc 64 "$@"
part --algo flash2 --dtype fp32 --N 3072 --d 128 --heads 16 --br 64 --bc 64 "$@"
part --algo flash1 --dtype fp32 --N 3072 --d 64 --heads 16 --br 64 --bc 227 "$@"
part --algo naive --dtype fp32 --N 768 --d 64 --heads 16 "$@"
part --algo naive --dtype fp16 --N 768 --d 128 --heads 16 "$@"
echo "holdout: $(($(wc -l <"$csv") - 1)) rows, ${SECONDS} s"
