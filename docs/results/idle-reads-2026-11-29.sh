#!/usr/bin/env bash
# The idle-reads probe (idle-reads-probe-2026-11-29.cu) under ncu: L2
# flushed before every kernel (--cache-control all), clocks left as they
# are, DRAM bytes and the kernel's duration. Run by the device tool from the
# repository root; results under $OUT: idle-reads.csv (ncu's rows),
# idle-reads.err, gpu.txt.
set -u
R=docs/results; O=${OUT:-/tmp}; B=$(mktemp -d)
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader | tee $O/gpu.txt
nvcc -O3 -gencode=arch=compute_90,code=sm_90 -o $B/probe $R/idle-reads-probe-2026-11-29.cu || exit 1
ncu --cache-control all --clock-control none \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    --csv --print-units base $B/probe > $O/idle-reads.csv 2> $O/idle-reads.err
echo "rc=$? $(grep -c dram__bytes_read $O/idle-reads.csv) rows"
grep -E 'dram__bytes_read|dram__bytes_write|gpu__time_duration' $O/idle-reads.csv | awk -F'","' '{print $(NF-2), $(NF)}'
