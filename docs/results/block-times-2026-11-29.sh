#!/bin/bash
# The GPU's timeline of flash2 fp32 blocks over many waves
# (block-times-probe-2026-11-23.cu, 16 heads, d = 128, 64 x 64 tiles,
# N = 2048 .. 16384: 2 to 16 waves at 2 blocks per SM), run by the device
# tool from the repository root; results under $OUT. Applies
# block-times-experiment-2026-11-29.patch to this copy of the tree, builds
# the probe against it, and takes the patch out again.
set -euo pipefail
R=docs/results; O=${OUT:-/tmp}; B=$(mktemp -d)
git apply $R/block-times-experiment-2026-11-29.patch
trap 'git apply -R $R/block-times-experiment-2026-11-29.patch' EXIT
nvcc -O2 -std=c++17 -gencode=arch=compute_90,code=sm_90 -I cuda/src -o $B/blocktimes $R/block-times-probe-2026-11-23.cu
g=$(nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader)
{ echo "# $g, $(date -u +%F): blocktimes (block-times-probe-2026-11-23.cu), fp32"
  for n in 2048 4096 8192 16384; do $B/blocktimes $n 128 16 64 64; done
} > $O/block-times.txt
grep -c BLOCK $O/block-times.txt
