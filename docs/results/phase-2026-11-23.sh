#!/usr/bin/env bash
# Builds and runs phase-probe-2026-11-23.cu under ncu (DRAM metrics alone,
# one pass, clocks and caches left as they are) on the GPU the device tool
# lends. Output under $OUT: phase.csv (ncu's rows and the probe's lines).
set -u
D=docs/results
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader | tee $OUT/gpu.txt
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o /tmp/phase $D/phase-probe-2026-11-23.cu || exit 1
ncu --cache-control none --clock-control none --kernel-name-base mangled --kernel-name regex:'ILi1E' \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base /tmp/phase > $OUT/phase.csv 2> $OUT/phase.err
echo "rc=$? $(grep -c PROBE $OUT/phase.csv) probes"
