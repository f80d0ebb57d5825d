#!/usr/bin/env bash
# One device call (H200): the L2 stride probe (l2-stride-probe-2026-11-30.cu)
# under ncu, DRAM metrics alone (clocks and caches left as they are), 3
# placements. Writes $OUT/stride.csv (ncu's rows with the probe's PROBE
# lines), stride.err and gpu.txt; l2-stride-2026-11-30.py makes the tables.
# With `subsets` (masks and random halves), `mix` (a run, a random half,
# half and half) or `stream` (a run re-read beside a read-once stream): that
# mode of the probe, to $OUT/stride-MODE.csv and .err.
set -u
R=docs/results; B=$(mktemp -d); OUT=${OUT:-/tmp}
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader | tee "$OUT"/gpu.txt
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o "$B"/stride "$R"/l2-stride-probe-2026-11-30.cu || exit 1
name=stride${1:+-$1}
start=$SECONDS
ncu --cache-control none --clock-control none --kernel-name regex:'read_k|list_k|stream_k' \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base "$B"/stride 3 ${1:-} \
    > "$OUT/$name.csv" 2> "$OUT/$name.err"
echo "$name: rc=$? $((SECONDS - start)) s, $(grep -c PROBE "$OUT/$name.csv") probes"
