#!/bin/bash
# shellcheck disable=SC2154  # g, dev, csv, log: set by append-sweep.sh's functions
# Held-out points for the oldest-first rule (block-times-2026-11-29.md):
# recorded after fasim began serving the oldest block on an SM first, on
# shapes no recording had. flash2 fp32 at two blocks per SM (d = 128, 64 x
# 64 tiles) over 6 to 12 waves, where the rule moves the timeline, and two
# d = 64 shapes with 64 x 64 tiles. 5 counter ranges a point (the median).
# Writes $OUT/<gpu>-2026-11-29-oldest-first-holdout.csv and .log. $1: the
# folder scripts/gpu-check.sh --prepare-carry fills (default build/gpu-carry).
set -u
OUT=${OUT:-out/oldest-first-holdout}
# shellcheck source=scripts/append-sweep.sh
. scripts/append-sweep.sh
holdout_gpu_setup "${1:-build/gpu-carry}"
holdout_start "$g-2026-11-29-oldest-first-holdout" 5
for hn in 24:4096 12:8192 6:16384 8:12288 20:6144 32:3072 48:2048 10:10240 16:12288 16:6144; do
  part --algo flash2 --dtype fp32 --heads "${hn%:*}" --N "${hn#*:}" --d 128 --br 64 --bc 64 --device "$dev"
done
part --algo flash2 --dtype fp32 --heads 16 --N 8192 --d 64 --br 64 --bc 64 --device "$dev"
part --algo flash2 --dtype fp32 --heads 32 --N 4096 --d 64 --br 64 --bc 64 --device "$dev"
echo "wrote $csv: $(($(wc -l < "$csv") - 1)) rows"; cat "$log"
grep -E "dram_(read|write)_bytes|time_s" "$csv" | cut -d, -f4,5,7,8,9,13,14,15,16,17
