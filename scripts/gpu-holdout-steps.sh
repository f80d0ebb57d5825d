#!/usr/bin/env bash
# Points no recording has, to test cuda-simt's per-step cost out of sample.
#
# simt_step_cycles and simt_row_cycles (sim/include/fasim/timing.hpp) were
# fitted to one tile probe: flash2 fp32, N = 1024, d = 64, 32 heads
# (docs/results/h200-2026-11-22-tile-steps.csv), and to the H200 sweep. These
# shapes change what the probe held fixed: d = 128, flash1 and naive with
# small tiles, tiles that are not powers of two, and N that no tile divides.
# Each `fasim compare --sweep` runs in its own process with RANGES counter
# ranges per point; all rows go to $OUT/holdout-steps.csv.
#
#   RANGES=1 OUT=/tmp/h FASIM=build/bin/fasim scripts/gpu-holdout-steps.sh [--device D.toml]
set -uo pipefail
# shellcheck source=scripts/append-sweep.sh
source "$(dirname "$0")/append-sweep.sh"
holdout_start holdout-steps 1
part --algo flash2 --dtype fp32 --N 2048 --d 128 --heads 16 --br 32 --bc 32 "$@"
part --algo flash2 --dtype fp32 --N 2048 --d 128 --heads 16 --br 64 --bc 16 "$@"
part --algo flash2 --dtype fp32 --N 4096 --d 64 --heads 8 --br 128 --bc 32 "$@"
part --algo flash2 --dtype fp32 --N 1000 --d 64 --heads 32 --br 48 --bc 24 "$@"
part --algo flash2 --dtype fp32 --N 3000 --d 128 --heads 8 --br 32 --bc 48 "$@"
part --algo flash1 --dtype fp32 --N 1024 --d 64 --heads 32 --br 32 --bc 32 "$@"
part --algo flash1 --dtype fp16 --N 2048 --d 64 --heads 16 --br 64 --bc 16 "$@"
part --algo naive --dtype fp32 --N 2048 --d 64 --heads 16 --br 32 --bc 32 "$@"
part --algo naive --dtype fp16 --N 1024 --d 128 --heads 32 --br 16 --bc 64 "$@"
part --algo flash2 --dtype fp32 --N 8192 --d 64 --heads 4 --br 16 --bc 16 "$@"
echo "holdout-steps: $(($(wc -l <"$csv") - 1)) rows, ${SECONDS} s"
