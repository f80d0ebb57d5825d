#!/usr/bin/env bash
# How much do the GPU's DRAM bytes change from one process to the next?
#
# Runs the points of the recorded sweep whose data nearly fills the L2 (or
# overflows it a little) PROCESSES times, each time in a fresh `fasim compare
# --sweep` process, with --counter-runs ranges in each. Within one process the
# buffers keep their physical pages; a new process gets new ones, and the L2
# hashes physical addresses. One CSV per process: $OUT/repeat-K.csv.
#
#   PROCESSES=4 RANGES=3 OUT=/tmp/r FASIM=build/bin/fasim scripts/gpu-repeat.sh [--device D.toml]
set -uo pipefail
: "${OUT:?set OUT to a folder}"
: "${FASIM:?set FASIM to the fasim binary}"
PROCESSES=${PROCESSES:-4}
RANGES=${RANGES:-3}
source "$(dirname "$0")/append-sweep.sh"
mkdir -p "$OUT"
for k in $(seq 1 "$PROCESSES"); do
  csv="$OUT/repeat-$k.csv"
  rm -f "$csv"
  part() { append_sweep "$csv" "$OUT/repeat.log" "$@"; }
  part --algo flash1 --dtype fp32,fp16 --N 1024,2048,4096 --d 64 --heads 16 "$@"
  part --algo flash1 --dtype fp32,fp16 --N 1024,2048,4096 --d 128 --heads 16 --br 64 --bc 64 "$@"
  part --algo flash2 --dtype fp16 --N 4096 --d 64,128 --heads 16 "$@"
  part --algo flash2 --dtype fp32 --N 2048,4096,8192 --d 64 --heads 16 "$@"
  part --algo flash2 --dtype fp32 --N 1024,2048,4096,8192 --d 128 --heads 16 --br 64 --bc 64 "$@"
  part --algo naive --dtype fp32,fp16 --N 512,1024 --d 64,128 --heads 16 "$@"
  echo "process $k: $(($(wc -l <"$csv") - 1)) rows, ${SECONDS} s so far"
done
