#!/usr/bin/env bash
# Builds and runs reuse-probe-2026-11-24.cu under ncu (DRAM metrics alone,
# one pass, clocks and caches left as they are) on the GPU the device tool
# lends. Output under $OUT: gpu.txt, reuse.csv (ncu's rows and the probe's
# PROBE lines), reuse.err; with the argument `pace` or `share`,
# reuse-pace.csv / reuse-share.csv and .err from `./reuse pace` or
# `./reuse share` instead. reuse-table-2026-11-24.py
# reads reuse.csv.
set -u
D=docs/results
name=reuse${1:+-$1}
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader | tee $OUT/gpu.txt
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o /tmp/reuse $D/reuse-probe-2026-11-24.cu || exit 1
ncu --cache-control none --clock-control none --kernel-name-base mangled --kernel-name regex:'ILi1E' \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base /tmp/reuse ${1:-} > $OUT/$name.csv 2> $OUT/$name.err
echo "rc=$? $(grep -c PROBE $OUT/$name.csv) probes"
