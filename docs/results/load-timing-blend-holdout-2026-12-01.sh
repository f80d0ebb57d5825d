#!/bin/bash
# Held-out points for the load-timing blend (load-timing-blend-2026-12-01.md):
# a load of the cuda-simt kernels is timed by 0.3 x its own sampled L2
# lines' hits + 0.7 x the count model's expected hits, a weight chosen on the
# drift of flash1's blocks alone. Ten shapes no recorded set has, on the
# line-level L2, predicted by both weights (1 and 0.3) and committed before
# this run (load-timing-blend-holdout-predictions-2026-12-01.csv); each in 32
# placements of the buffers, one counter range each. Then flash1's drift
# (flash1-drift-probe-2026-12-01.cu, 5 runs) at three new shapes, fasim's
# spreads also predicted before the run.
# Run on the lent H200 from the repository root with the binaries carried in
# build/gpu-carry; writes $OUT/blend-holdout.{csv,log} and $OUT/blend-drift.txt.
set -u
. scripts/append-sweep.sh
holdout_gpu_setup build/gpu-carry
run() { compare_placements blend-holdout 32 1 "$@"; }
start=$SECONDS
run --algo flash1 --dtype fp16 --N 512 --d 128 --heads 120 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 528 --d 128 --heads 132 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 576 --d 128 --heads 110 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 768 --d 128 --heads 88 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 896 --d 128 --heads 76 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 1000,1088 --d 64 --heads 132 --br 64 --bc 64
run --algo flash1 --dtype fp32 --N 480 --d 64 --heads 132 --br 64 --bc 64
run --algo flash1 --dtype fp32 --N 640 --d 64 --heads 112 --br 64 --bc 64
run --algo flash2 --dtype fp32 --N 896 --d 64 --heads 112 --br 128 --bc 64
echo "bytes: $((SECONDS - start)) s"
R=docs/results; B=$(mktemp -d)
git apply $R/flash1-drift-experiment-2026-12-01.patch
nvcc -O2 -std=c++17 -gencode=arch=compute_90,code=sm_90 -I cuda/src -I $R -o $B/f1drift $R/flash1-drift-probe-2026-12-01.cu
git apply -R $R/flash1-drift-experiment-2026-12-01.patch
{ echo "# $(nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader), $(date -u +%F): f1drift (flash1-drift-probe-2026-12-01.cu)"
  $B/f1drift fp16 512 128 120 64 64 5
  $B/f1drift fp16 1088 64 132 64 64 5
  $B/f1drift fp16 768 128 88 64 64 5
} > "$OUT/blend-drift.txt"
echo "drift: $(grep -c '^END' "$OUT/blend-drift.txt") runs; all: $((SECONDS - start)) s"
