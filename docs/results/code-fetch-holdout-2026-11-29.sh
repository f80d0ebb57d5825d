#!/bin/bash
# Held-out points for the code fetch (code-fetch-2026-11-29.md): recorded
# after fasim compare began adding the kernels' code to a cold run's DRAM
# reads, on shapes no recording had. Every point fits in L2, so its DRAM
# reads are Q, K and V once plus the code; each kernel family of the
# change: flash2 fp32 (d = 64 and 128), flash1, naive fp32 and fp16, the
# tensor-core flash2. 5 counter ranges a point (the median).
# Writes $OUT/<gpu>-2026-11-29-code-fetch-holdout.csv and .log. $1: the
# folder scripts/gpu-check.sh --prepare-carry fills (default build/gpu-carry).
set -u
P=${1:-build/gpu-carry}
OUT=${OUT:-out/code-fetch-holdout}
mkdir -p "$OUT" /tmp/fasim-cupti && tar -C /tmp/fasim-cupti -xzf "$P/cupti-libs.tar.gz"
export LD_LIBRARY_PATH=$P:/tmp/fasim-cupti FASIM=$P/fasim
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H200*) g=h200 ;; *H100*) g=h100 ;; *) g=gpu ;; esac
echo "$gpu, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
dev="docs/results/$g-2026-11-22-measured.toml"
# shellcheck source=../../scripts/append-sweep.sh
. scripts/append-sweep.sh
holdout_start "$g-2026-11-29-code-fetch-holdout" 5
part --algo flash2 --dtype fp32 --heads 24 --N 768 --d 64 --device "$dev"
part --algo flash2 --dtype fp32 --heads 8 --N 1536 --d 64 --device "$dev"
part --algo flash2 --dtype fp32 --heads 12 --N 640 --d 128 --br 64 --bc 64 --device "$dev"
part --algo flash2 --dtype fp32 --heads 6 --N 1280 --d 128 --br 64 --bc 64 --device "$dev"
part --algo flash1 --dtype fp32 --heads 12 --N 768 --d 64 --device "$dev"
part --algo flash1 --dtype fp32 --heads 20 --N 384 --d 128 --br 64 --bc 64 --device "$dev"
part --algo naive --dtype fp32 --heads 12 --N 384 --d 64 --device "$dev"
part --algo naive --dtype fp16 --heads 8 --N 640 --d 128 --device "$dev"
part --algo flash2 --dtype fp16 --heads 24 --N 1536 --d 64 --device "$dev"
part --algo flash2 --dtype bf16 --heads 8 --N 3072 --d 128 --device "$dev"
part --algo flash2 --dtype fp16 --heads 48 --N 768 --d 128 --br 64 --bc 64 --device "$dev"
echo "wrote $csv: $(($(wc -l < "$csv") - 1)) rows"; cat "$log"
grep -E "dram_read_bytes" "$csv" | cut -d, -f4,5,7,8,9,13,14,15,16,17
