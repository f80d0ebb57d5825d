#!/usr/bin/env bash
# One device call, two questions about flash1 near the L2's size (H200):
# 1. Do written lines move the L2's edge? The read-modify-write probe
#    (rmw-probe-2026-11-30.cu) under ncu, DRAM metrics alone (clocks and
#    caches left as they are), and the SM-to-half map of the same board.
# 2. Which placement of the buffers gives which count? `fasim compare --json`
#    in 32 placements, one range each, at three flash1 points; the 16-head
#    point twice, in two processes, to see if a placement repeats.
# Run by the device tool from the repository root, with the binaries carried
# in build/gpu-carry (scripts/gpu-check.sh --prepare-carry). Results under
# $OUT: rmw.csv (ncu's rows and the probe's PROBE and BLOCKS lines), rmw.err,
# sm-map.txt, gpu.txt, placements-*.json.
set -u
R=docs/results; O=${OUT:-/tmp}; B=$(mktemp -d); OUT=$O
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader | tee "$O"/gpu.txt
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o "$B"/rmw "$R"/rmw-probe-2026-11-30.cu || exit 1
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o "$B"/smmap "$R"/h200-2026-11-22-sm-partition-probe.cu || exit 1
{ echo "# $(cat "$O"/gpu.txt), $(date -u +%F): smmap (h200-2026-11-22-sm-partition-probe.cu)"; "$B"/smmap; } > "$O"/sm-map.txt
start=$SECONDS
ncu --cache-control none --clock-control none --kernel-name-base mangled --kernel-name regex:'ILi1E' \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base "$B"/rmw \
    > "$O"/rmw.csv 2> "$O"/rmw.err
echo "rmw: rc=$? $((SECONDS - start)) s, $(grep -c PROBE "$O"/rmw.csv) probes, $(grep -c '^SM rep' "$O"/sm-map.txt) SM lines"
. scripts/append-sweep.sh
holdout_gpu_setup build/gpu-carry
point() { placements_json "$@"; }
point fp32-h16 --algo flash1 --dtype fp32 --N 4096 --d 64 --heads 16 --br 64 --bc 227
point fp32-h16-again --algo flash1 --dtype fp32 --N 4096 --d 64 --heads 16 --br 64 --bc 227
point fp16-h132-bc64 --algo flash1 --dtype fp16 --N 512 --d 128 --heads 132 --br 64 --bc 64
point fp16-h132-bc16 --algo flash1 --dtype fp16 --N 512 --d 128 --heads 132 --br 64 --bc 16
