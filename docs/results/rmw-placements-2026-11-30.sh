#!/usr/bin/env bash
# The read-modify-write probe near the L2's edge in 8 placements of its
# buffer (rmw-probe-2026-11-30.cu, `./rmw placements 8`): does a plain
# pattern spread over pages as flash1 does? ncu, DRAM metrics alone (clocks
# and caches left as they are). Run by the device tool from the repository
# root; results under $OUT: rmw-placements.csv, rmw-placements.err, gpu.txt.
set -u
R=docs/results; O=${OUT:-/tmp}; B=$(mktemp -d)
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader | tee "$O"/gpu.txt
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o "$B"/rmw "$R"/rmw-probe-2026-11-30.cu || exit 1
start=$SECONDS
ncu --cache-control none --clock-control none --kernel-name-base mangled --kernel-name regex:'ILi1E' \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base "$B"/rmw placements 8 \
    > "$O"/rmw-placements.csv 2> "$O"/rmw-placements.err
echo "rmw placements: rc=$? $((SECONDS - start)) s, $(grep -c PROBE "$O"/rmw-placements.csv) probes"
