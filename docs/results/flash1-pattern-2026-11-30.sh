#!/usr/bin/env bash
# One device call (H200): does flash1's own access pattern, with no
# arithmetic, miss as flash1 does near the L2's edge, and does one kernel for
# all passes (blocks free to drift) miss more than a kernel a pass?
# 1. flash1-pattern-probe-2026-11-30.cu under ncu, DRAM metrics alone
#    (clocks and caches left as they are), 4 placements;
# 2. flash1 itself at the two points, `fasim compare --json` in 32
#    placements of one range each (the same board, for comparison).
# With `variants`, instead: the probe's variants (flash1's pattern changed
# one way at a time) in 6 placements, and no fasim; with `edge`, flash1's
# pattern at N = 384 to 640 and R132 at 36 to 48 MiB, in 4 placements;
# with `grid`, 16 heads against 132, in 4 placements; with `shift`, O, K
# and V moved within their pages, in 4 placements; with `split`, 16 heads
# split 16/0 to 0/16 over the L2 halves (this board's SM map first); with
# `many`, more blocks or more streamed a pass, even over the halves (the
# SM map first), in 4 placements; with `bits`, each head's half chosen by
# a bit of its number (the SM map first), in 4 placements; with `layout`,
# K and V laid out by key block against flash1's layout, in 4 placements;
# with `parts`, flash1's pattern without l and m, or without V, in 4;
# with `lm`, l and m read only or a head's on its own 4 KiB, in 4; with
# `grain`, 2 or 4 bytes a thread instead of 16, in 6, and flash1 itself
# (fp16 and fp32) at N = 512, d = 128 in 32 placements.
# Run by the device tool from the repository root with the binaries carried
# in build/gpu-carry (scripts/gpu-check.sh --prepare-carry). Everything goes
# to $OUT/f1p.tgz: f1p.csv, f1p-variants.csv, f1p-edge.csv, f1p-grid.csv,
# f1p-shift.csv, f1p-split.csv, f1p-many.csv, f1p-bits.csv, f1p-layout.csv, f1p-parts.csv, f1p-lm.csv or f1p-grain.csv (ncu's rows with the probe's PROBE, SKEW and
# BLOCKS lines), its .err, gpu.txt, placements-*.json, sm-map.txt.
set -u
R=docs/results; B=$(mktemp -d); FINAL=${OUT:-/tmp}; OUT=$(mktemp -d)
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader | tee "$OUT"/gpu.txt
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o "$B"/f1p "$R"/flash1-pattern-probe-2026-11-30.cu || exit 1
probe() {  # probe NAME ARGS...: the probe under ncu, to $OUT/NAME.csv
  local name=$1 start=$SECONDS
  shift
  ncu --cache-control none --clock-control none --kernel-name-base mangled --kernel-name regex:'ILi1E' \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base "$B"/f1p "$@" \
      > "$OUT/$name.csv" 2> "$OUT/$name.err"
  echo "$name: rc=$? $((SECONDS - start)) s, $(grep -c PROBE "$OUT/$name.csv") probes"
}
if [ "${1:-}" = variants ]; then
  probe f1p-variants 6 variants
elif [ "${1:-}" = edge ]; then
  probe f1p-edge 4 edge
elif [ "${1:-}" = grid ]; then
  probe f1p-grid 4 grid
elif [ "${1:-}" = shift ]; then
  probe f1p-shift 4 shift
elif [ "${1:-}" = lm ]; then
  probe f1p-lm 4 lm
elif [ "${1:-}" = grain ]; then
  probe f1p-grain 6 grain
  . scripts/append-sweep.sh
  holdout_gpu_setup build/gpu-carry
  placements_json fp16-h132-n512-d128 --algo flash1 --dtype fp16 --N 512 --d 128 --heads 132 --br 64 --bc 64
  placements_json fp32-h132-n512-d128 --algo flash1 --dtype fp32 --N 512 --d 128 --heads 132 --br 64 --bc 64
elif [ "${1:-}" = parts ]; then
  probe f1p-parts 4 parts
elif [ "${1:-}" = layout ]; then
  probe f1p-layout 4 layout
elif [ "${1:-}" = split ] || [ "${1:-}" = many ] || [ "${1:-}" = bits ]; then
  nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o "$B"/smmap "$R"/h200-2026-11-22-sm-partition-probe.cu || exit 1
  "$B"/smmap > "$OUT"/sm-map.txt
  probe "f1p-$1" 4 "$1" "$OUT"/sm-map.txt
else
  probe f1p 4
  . scripts/append-sweep.sh
  holdout_gpu_setup build/gpu-carry
  placements_json fp16-h132-n512-d128 --algo flash1 --dtype fp16 --N 512 --d 128 --heads 132 --br 64 --bc 64
  placements_json fp16-h132-n1024-d64 --algo flash1 --dtype fp16 --N 1024 --d 64 --heads 132 --br 64 --bc 227
fi
tar -C "$OUT" -czf "$FINAL"/f1p.tgz . && cp "$OUT"/gpu.txt "$FINAL"/
