#!/usr/bin/env bash
# The grain probe (grain-probe-2026-11-29.cu) under ncu, DRAM metrics
# alone (clocks and caches left as they are), and the SM-to-half map of the
# same board (h200-2026-11-22-sm-partition-probe.cu).
# Run by the device tool from the repository root; results under $OUT:
# grain.csv (ncu's rows and the PROBE and BLOCKS lines), grain.err,
# sm-map.txt, gpu.txt.
set -u
R=docs/results; O=${OUT:-/tmp}; B=$(mktemp -d)
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader | tee $O/gpu.txt
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o $B/grain $R/grain-probe-2026-11-29.cu || exit 1
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o $B/smmap $R/h200-2026-11-22-sm-partition-probe.cu || exit 1
{ echo "# $(cat $O/gpu.txt), $(date -u +%F): smmap (h200-2026-11-22-sm-partition-probe.cu)"; $B/smmap; } > $O/sm-map.txt
ncu --cache-control none --clock-control none --kernel-name-base mangled --kernel-name regex:'ILi1E' \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base $B/grain \
    > $O/grain.csv 2> $O/grain.err
echo "rc=$? $(grep -c PROBE $O/grain.csv) probes, $(grep -c '^SM rep' $O/sm-map.txt) SM lines"
grep BLOCKS $O/grain.csv | cut -c1-200
