#!/usr/bin/env bash
# The lopsided probes (h200-2026-11-23-lopsided-probe.cu: 16 blocks placed as
# flash1's, 12 next to one L2 half and 4 next to the other) counted again with
# the L2 fabric metrics beside the DRAM ones (2026-11-24): does the loaded
# half lose its copies of far data (sectors asked across the fabric) or its
# home data (DRAM reads)? Application replay, so that every metric pass sees
# the same sequence from the same flushed start; caches and clocks left alone.
# Run from the repository root on a GPU machine with nvcc and ncu.
set -u
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o /tmp/lopsided docs/results/h200-2026-11-23-lopsided-probe.cu || exit 1
/tmp/lopsided | grep -E '^(SMS|BLOCKS)'
m=dram__bytes_read.sum,dram__bytes_write.sum
for x in ltcfabric_op_read ltcfabric_op_write ltcfabric_lookup_miss tex_op_read_lookup_miss tex_op_read; do
  m+=",lts__t_sectors_srcunit_$x.sum"
done
LC_ALL=C ncu --replay-mode application --cache-control none --clock-control none --kernel-name-base mangled \
  --kernel-name regex:'ILi1E' --metrics "$m" --csv --print-units base /tmp/lopsided 2>&1 |
  grep -E '^"[0-9]' | awk -F'","' '{print $1, $(NF-2), $NF}' | tr -d '"'
