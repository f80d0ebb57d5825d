#!/bin/bash
# The GPU's timeline of flash2 fp32 blocks (block-times-probe-2026-11-23.cu),
# run by the device tool from the repository root; results under $OUT.
# Applies block-times-experiment-2026-11-23.patch to this copy of the tree,
# builds the probe against it, and takes the patch out again.
set -euo pipefail
R=docs/results; O=${OUT:-/tmp}; B=$(mktemp -d)
git apply $R/block-times-experiment-2026-11-23.patch
trap 'git apply -R $R/block-times-experiment-2026-11-23.patch' EXIT
nvcc -O2 -std=c++17 -gencode=arch=compute_90,code=sm_90 -I cuda/src -o $B/blocktimes $R/block-times-probe-2026-11-23.cu
g=$(nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader)
{ echo "# $g, $(date -u +%F): blocktimes (block-times-probe-2026-11-23.cu), fp32"
  for shape in "2048 128 16 64 64" "512 128 64 64 64" "4096 64 16 128 128" "1024 128 64 64 64"; do $B/blocktimes $shape; done
} > $O/block-times.txt
grep -c BLOCK $O/block-times.txt
