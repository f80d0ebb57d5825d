#!/usr/bin/env bash
# The recorded sweep's 60 points (scripts/gpu-check.sh step_compare) with the
# counters in 8 placements of the buffers (fasim compare --placements 8), one
# range each; the CSV's measured is their median, measured_min/max their range.
# Two calls, PART=a (flash2) and PART=b (flash1, naive); OUT set by the device
# tool. Joined into h200-2026-11-23-placements8.csv (read in
# h200-2026-11-23-flash1-placement.md). Run again on an H100 with
# DEVICE_TOML=docs/results/h100-2026-11-22-measured.toml (PART=b took 306 s,
# PART=a 138 s): h100-2026-11-23-placements8.csv.
set -u
C=build/gpu-carry
mkdir -p /tmp/fc && tar -C /tmp/fc -xzf $C/cupti-libs.tar.gz
export LD_LIBRARY_PATH=$PWD/$C:/tmp/fc:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64
F=$C/fasim
CSV=$OUT/placements-${PART}.csv
T=${DEVICE_TOML:-docs/results/h200-2026-11-22-measured.toml}
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader
sweep() {
  local part=$OUT/part.csv
  $F compare --sweep --no-numerics --counter-runs 1 --placements 8 --device $T --out $part "$@" >> $OUT/log-${PART}.txt 2>&1
  [ -f $part ] || return
  if [ -f $CSV ]; then tail -n +2 $part >> $CSV; else cat $part > $CSV; fi
  rm -f $part
}
start=$SECONDS
if [ "$PART" = a ]; then
  for n in 512 1024 2048 4096 8192 16384; do sweep --algo flash2 --dtype fp16 --N "$n" --d 64,128 --heads $((65536 / n)); done
  sweep --algo flash2 --dtype fp32 --N 512,1024,2048,4096,8192,16384 --d 64 --heads 16
  sweep --algo flash2 --dtype fp32 --N 512,1024,2048,4096,8192,16384 --d 128 --heads 16 --br 64 --bc 64
else
  sweep --algo flash1 --dtype fp32,fp16 --N 512,1024,2048,4096 --d 64 --heads 16
  sweep --algo flash1 --dtype fp32,fp16 --N 512,1024,2048,4096 --d 128 --heads 16 --br 64 --bc 64
  sweep --algo naive --dtype fp32,fp16 --N 512,1024,2048,4096,8192,16384 --d 64,128 --heads 16
fi
echo "part $PART: $((SECONDS - start)) s, $(wc -l < $CSV) rows"
