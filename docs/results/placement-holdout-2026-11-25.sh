#!/bin/bash
# A test of the placement rule of gpu-placement-2026-11-25.md (the GPU's
# block order for the kernels of the cuda-simt model, dealing in turn for
# the tensor-core kernel, 64 L2 ways), recorded after it was chosen
# (2026-11-25) and before fasim takes it. Shapes no recording had:
#  - flash2 fp32, d = 128, 64 x 64, 12 and 20 MiB tensors (24 and 40 heads at
#    N = 1024: 16 readers a K/V tile; 96 and 160 heads at N = 256: 4), at one
#    and two blocks per SM;
#  - flash2 fp32, d = 64, 128 x 128, 96 heads, N = 1024 (8 readers);
#  - flash1 fp16 with 10 and 14 heads, N = 4096, d = 128 (small grids);
#  - version 4 (fp16, d = 128, 128 x 128), 96 heads at N = 1024 and 48 at 2048;
#  - naive fp32, 24 heads, N = 768, d = 64.
# Three counter ranges a point; simulator beside it (`fasim compare --sweep`).
# Writes $OUT/<gpu>-2026-11-25-placement-holdout.csv. $1: the folder
# scripts/gpu-check.sh --prepare-carry fills (default build/gpu-carry).
set -u
P=${1:-build/gpu-carry}
OUT=${OUT:-out/placement-holdout}
mkdir -p "$OUT" /tmp/fasim-cupti && tar -C /tmp/fasim-cupti -xzf "$P/cupti-libs.tar.gz"
export LD_LIBRARY_PATH=$P:/tmp/fasim-cupti
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H200*) g=h200 ;; *H100*) g=h100 ;; *) g=gpu ;; esac
echo "$gpu, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
dev="docs/results/$g-2026-11-22-measured.toml"
csv="$OUT/$g-2026-11-25-placement-holdout.csv"
rm -f "$csv"
point() {
  "$P/fasim" compare --sweep "$@" --counter-runs 3 --no-numerics --device "$dev" --out /tmp/place-point.csv || exit 1
  if [ -f "$csv" ]; then tail -n +2 /tmp/place-point.csv >> "$csv"; else cp /tmp/place-point.csv "$csv"; fi
}
for s in "24 1024" "40 1024" "96 256" "160 256"; do
  set -- $s
  point --algo flash2 --dtype fp32 --heads "$1" --N "$2" --d 128 --br 64 --bc 64 --blocks-per-sm 1,2
done
point --algo flash2 --dtype fp32 --heads 96 --N 1024 --d 64 --br 128 --bc 128
point --algo flash1 --dtype fp16 --heads 10,14 --N 4096 --d 128 --br 64 --bc 64
point --algo flash2 --dtype fp16 --heads 96 --N 1024 --d 128 --br 128 --bc 128
point --algo flash2 --dtype fp16 --heads 48 --N 2048 --d 128 --br 128 --bc 128
point --algo naive --dtype fp32 --heads 24 --N 768 --d 64
echo "wrote $csv: $(($(wc -l < "$csv") - 1)) rows"
grep -E "dram_(read|write)_bytes" "$csv" | cut -d, -f4,5,7,8,9,13,14,15,18
