#!/usr/bin/env bash
# The line-home probe (line-home-probe-2026-11-29.cu) under ncu, DRAM
# metrics alone for its readers kernels (clocks and caches left as they
# are). First the SM-to-half map of the board (h200-2026-11-22-sm-partition-
# probe.cu, whose reference is SM 124); then the probe with SM 124 as its
# reference and, across, the first SM the map puts next to the other half
# (slow_share above 0.25: boards differ, so it is read from this board's map).
# Run by the device tool from the repository root; results under $OUT:
# line-home.csv (ncu's rows and the probe's lines), line-home.err,
# sm-map.txt, gpu.txt.
set -u
R=docs/results; O=${OUT:-/tmp}; B=$(mktemp -d)
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader | tee $O/gpu.txt
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o $B/line-home $R/line-home-probe-2026-11-29.cu || exit 1
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o $B/smmap $R/h200-2026-11-22-sm-partition-probe.cu || exit 1
{ echo "# $(cat $O/gpu.txt), $(date -u +%F): smmap (h200-2026-11-22-sm-partition-probe.cu)"; $B/smmap; } > $O/sm-map.txt
FAR=$(awk '/^SM rep=0/ { split($3, s, "="); split($5, v, "="); if (v[2] > 0.25) { print s[2]; exit } }' $O/sm-map.txt)
echo "far SM: ${FAR:?no SM of the other half in the map}"
ncu --cache-control none --clock-control none --kernel-name-base mangled --kernel-name regex:'ILi1E' \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base $B/line-home 124 $FAR \
    > $O/line-home.csv 2> $O/line-home.err
echo "rc=$? $(grep -c PROBE $O/line-home.csv) probes, $(grep -c '^HOME' $O/line-home.csv) chunks"
grep -E "^(SMS|HIST|SPLIT|SLOW|DONE)" $O/line-home.csv | cut -c1-600
