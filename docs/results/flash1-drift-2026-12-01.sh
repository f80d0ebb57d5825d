#!/bin/bash
# Do flash1's blocks stay together over the key blocks on the GPU
# (flash1-drift-probe-2026-12-01.cu)? flash1 fp16 and fp32, 132 heads, at
# the issue-4 sweep's two GPU-full flash1 points (N = 512, d = 128, Bc = 64;
# N = 1024, d = 64, Bc = 227) and 66 heads at N = 1024, d = 128, 5 runs each,
# the L2 flushed before each. Run by the device tool from the repository
# root; results in $OUT/flash1-drift.txt. Applies
# flash1-drift-experiment-2026-12-01.patch to this copy of the tree, builds
# the probe against it, and takes the patch out again.
set -euo pipefail
R=docs/results; O=${OUT:-/tmp}; B=$(mktemp -d)
git apply $R/flash1-drift-experiment-2026-12-01.patch
trap 'git apply -R $R/flash1-drift-experiment-2026-12-01.patch' EXIT
nvcc -O2 -std=c++17 -gencode=arch=compute_90,code=sm_90 -I cuda/src -I $R -o $B/f1drift $R/flash1-drift-probe-2026-12-01.cu
g=$(nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader)
{ echo "# $g, $(date -u +%F): f1drift (flash1-drift-probe-2026-12-01.cu)"
  $B/f1drift fp16 512 128 132 64 64 5
  $B/f1drift fp16 1024 64 132 64 227 5
  $B/f1drift fp32 512 128 132 64 64 5
  $B/f1drift fp16 1024 128 66 64 64 5
} > $O/flash1-drift.txt
grep -c '^END' $O/flash1-drift.txt
