#!/bin/bash
# The GPU's timeline of the tensor-core kernel's blocks (version 4, fp16, 16
# heads, N = 16384) at tilings that hold 2, 3 and 4 blocks per SM
# (block-times-mma-probe-2026-11-29.cu), run by the device tool from the
# repository root; results under $OUT. Applies
# block-times-experiment-2026-11-29.patch and
# block-times-mma-experiment-2026-11-29.patch to this copy of the tree,
# builds the probe against them, and takes them out again.
set -euo pipefail
R=docs/results; O=${OUT:-/tmp}; B=$(mktemp -d)
git apply $R/block-times-experiment-2026-11-29.patch
git apply $R/block-times-mma-experiment-2026-11-29.patch
trap 'git apply -R $R/block-times-mma-experiment-2026-11-29.patch; git apply -R $R/block-times-experiment-2026-11-29.patch' EXIT
nvcc -O2 -std=c++17 -gencode=arch=compute_90,code=sm_90 -I cuda/src -o "$B/blocktimes-mma" $R/block-times-mma-probe-2026-11-29.cu
g=$(nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader)
{ echo "# $g, $(date -u +%F): blocktimes-mma (block-times-mma-probe-2026-11-29.cu), fp16"
  for shape in "16384 128 16 64 128" "16384 64 16 128 64" "16384 128 16 64 64" "16384 64 16 64 64"; do
    # shellcheck disable=SC2086  # the shape is five arguments
    "$B/blocktimes-mma" $shape
  done
} > "$O/block-times-mma.txt"
grep -c BLOCK "$O/block-times-mma.txt"
