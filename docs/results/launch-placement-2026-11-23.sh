#!/bin/bash
# Where every thread block of the recorded sweeps' launches runs, and which
# L2 half each SM sits next to, on one GPU (run by the device tool from the
# repository root; results under $OUT). launch-placement-shapes-2026-11-23.txt
# lists "grid threads blocks_per_sm" for every kernel of every recorded point
# (fasim run --json, time.kernels, with the H100's measured device file).
set -euo pipefail
R=docs/results; O=${OUT:-/tmp}; B=$(mktemp -d)
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o $B/launchplace $R/launch-placement-probe-2026-11-23.cu
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o $B/smmap $R/h200-2026-11-22-sm-partition-probe.cu
g=$(nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader)
{ echo "# $g, $(date -u +%F): smmap (h200-2026-11-22-sm-partition-probe.cu)"; $B/smmap; } > $O/sm-map.txt
{ echo "# $g, $(date -u +%F): launchplace < launch-placement-shapes-2026-11-23.txt"; $B/launchplace < $R/launch-placement-shapes-2026-11-23.txt; } > $O/launch-placement.txt
grep -c PLACE $O/launch-placement.txt; grep -c "^SM rep" $O/sm-map.txt
