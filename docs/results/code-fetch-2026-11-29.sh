#!/usr/bin/env bash
# The code-fetch probe (code-fetch-probe-2026-11-29.cu) under ncu: L2
# flushed before every kernel (--cache-control all), clocks left as they
# are, DRAM bytes alone; and the .text size of each kernel of the binary.
# Run by the device tool from the repository root; results under $OUT:
# code-fetch.csv (ncu's rows), code-fetch.err, text-sizes.txt, gpu.txt.
set -u
R=docs/results; O=${OUT:-/tmp}; B=$(mktemp -d)
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader | tee $O/gpu.txt
nvcc -O3 -gencode=arch=compute_90,code=sm_90 -o $B/probe $R/code-fetch-probe-2026-11-29.cu || exit 1
cuobjdump -elf $B/probe | grep -E '^\s*\[?\s*[0-9]+\]?\s+\.text\.' > $O/text-sizes.txt 2>&1 || true
cuobjdump -elf $B/probe | grep -E '\.text\.' | head -20 >> $O/text-sizes.txt
ncu --cache-control all --clock-control none \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum \
    --csv --print-units base $B/probe > $O/code-fetch.csv 2> $O/code-fetch.err
echo "rc=$? $(grep -c dram__bytes_read $O/code-fetch.csv) rows"
grep dram__bytes_read $O/code-fetch.csv | awk -F'","' '{print $5, $(NF)}' | head -20
