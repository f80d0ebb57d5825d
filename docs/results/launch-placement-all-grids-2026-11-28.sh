#!/bin/bash
# Where the blocks of every grid of 1 to 132 blocks run (one and two blocks
# per SM), and which L2 half each SM sits next to, on one GPU: the full
# small-grid table a placement rule would need (small-grid-placement-2026-11-28.md,
# "Noticed"). The probe and the SM map are the 2026-11-23 ones
# (launch-placement-2026-11-23.md). Run by the device tool from the
# repository root; results under $OUT. Then
# launch-placement-halves-2026-11-28.py turns them into A/B strings.
set -euo pipefail
R=docs/results; O=${OUT:-/tmp}; B=$(mktemp -d)
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o $B/launchplace $R/launch-placement-probe-2026-11-23.cu
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o $B/smmap $R/h200-2026-11-22-sm-partition-probe.cu
g=$(nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader)
{ echo "# $g, $(date -u +%F): smmap (h200-2026-11-22-sm-partition-probe.cu)"; $B/smmap; } > $O/sm-map.txt
shapes=$B/shapes.txt
for grid in $(seq 1 132); do echo "$grid 256 1"; done > $shapes
for grid in 4 12 16 24 48 96; do echo "$grid 256 2"; done >> $shapes
{ echo "# $g, $(date -u +%F): launchplace, every grid of 1 to 132 blocks at 1 per SM, six at 2 per SM"; $B/launchplace < $shapes; } > $O/launch-placement.txt
grep -c PLACE $O/launch-placement.txt; grep -c "^SM rep" $O/sm-map.txt
