#!/usr/bin/env bash
# One device call (H200): the L2 home-map probe (l2-home-map-probe-2026-11-30.cu),
# twice (two allocations in two processes), no ncu; caches and clocks left as
# they are; then its `slices` mode (near-hit latency of each line from 9
# SMs). Writes $OUT/home-map-1.txt, home-map-2.txt, near-latency.txt.gz and
# gpu.txt.
set -u
R=docs/results; B=$(mktemp -d); OUT=${OUT:-/tmp}
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader | tee "$OUT"/gpu.txt
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o "$B"/homemap "$R"/l2-home-map-probe-2026-11-30.cu || exit 1
for run in 1 2; do
  start=$SECONDS
  "$B"/homemap > "$OUT/home-map-$run.txt"
  echo "run $run: rc=$? $((SECONDS - start)) s, $(grep -c '^PAGE' "$OUT/home-map-$run.txt") pages"
  grep -E '^(REF|LAT)' "$OUT/home-map-$run.txt"
done
start=$SECONDS
"$B"/homemap slices > "$OUT/near-latency.txt"
echo "slices: rc=$? $((SECONDS - start)) s, $(grep -c '^NEAR' "$OUT/near-latency.txt") SMs"
gzip "$OUT/near-latency.txt"
