#!/bin/bash
# Where the blocks of small grids (8 to 24 blocks: flash1 with 8 to 24 heads,
# one block per head) run, and which L2 half each SM sits next to, on one GPU.
# Run by the device tool from the repository root; results under $OUT.
# The probe and the SM map are the 2026-11-23 ones (launch-placement-2026-11-23.md).
set -euo pipefail
R=docs/results; O=${OUT:-/tmp}; B=$(mktemp -d)
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o $B/launchplace $R/launch-placement-probe-2026-11-23.cu
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o $B/smmap $R/h200-2026-11-22-sm-partition-probe.cu
g=$(nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader)
{ echo "# $g, $(date -u +%F): smmap (h200-2026-11-22-sm-partition-probe.cu)"; $B/smmap; } > $O/sm-map.txt
shapes=$B/shapes.txt
for grid in 4 8 12 16 20 24 32 48 64 132; do for per in 1 2; do echo "$grid 256 $per"; done; done > $shapes
{ echo "# $g, $(date -u +%F): launchplace, grids of 4 to 132 blocks at 1 and 2 per SM"; $B/launchplace < $shapes; } > $O/launch-placement.txt
grep -c PLACE $O/launch-placement.txt; grep -c "^SM rep" $O/sm-map.txt
