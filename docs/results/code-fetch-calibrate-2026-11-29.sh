#!/bin/bash
# shellcheck disable=SC2154  # g, dev, csv: set by append-sweep.sh's functions
# `fasim gpu calibrate` measures the code each of fasim's kernel families
# fetches in a cold run ([code_fetch] of the TOML it writes; see
# code-fetch-2026-11-29.md). Then 12 cold shapes that fit in L2 and that no
# recording or calibrate run had, one to three a family, to hold the
# calibrated figures out against the recorded medians (5 counter ranges a
# point, the median); then the CUDA tests, the calibrate test first.
# Writes $OUT/<gpu>-calibrated.toml, calibrate.txt,
# <gpu>-2026-11-29-code-fetch-calibrate-holdout.csv and .log,
# tests-calibrate.log and tests.log. $1: the folder
# scripts/gpu-check.sh --prepare-carry fills (default build/gpu-carry).
set -u
OUT=${OUT:-out/code-fetch-calibrate}
mkdir -p "$OUT"
carry=${1:-build/gpu-carry}
# shellcheck source=scripts/append-sweep.sh
. scripts/append-sweep.sh
holdout_gpu_setup "$carry"
start=$(date +%s)
"$FASIM" gpu calibrate --out "$OUT/$g-calibrated.toml" > "$OUT/calibrate.txt" 2>&1
echo "calibrate: exit $?, $(($(date +%s) - start)) s"
grep -E "kernel code|code_fetch|code of" "$OUT/calibrate.txt"
holdout_start "$g-2026-11-29-code-fetch-calibrate-holdout" 5
part --algo naive --dtype fp32 --heads 20 --N 256 --d 64 --device "$dev"
part --algo naive --dtype fp32 --heads 10 --N 384 --d 128 --device "$dev"
part --algo naive --dtype fp16 --heads 8 --N 768 --d 64 --device "$dev"
part --algo flash1 --dtype fp32 --heads 16 --N 640 --d 64 --device "$dev"
part --algo flash1 --dtype fp32 --heads 10 --N 512 --d 128 --br 64 --bc 64 --device "$dev"
part --algo flash1 --dtype fp16 --heads 12 --N 768 --d 128 --br 64 --bc 64 --device "$dev"
part --algo flash2 --dtype fp32 --heads 12 --N 1024 --d 64 --br 64 --bc 64 --device "$dev"
part --algo flash2 --dtype fp32 --heads 10 --N 768 --d 128 --br 64 --bc 64 --device "$dev"
part --algo flash2 --dtype fp16 --heads 16 --N 1280 --d 64 --device "$dev"
part --algo flash2 --dtype fp16 --heads 12 --N 1024 --d 128 --device "$dev"
part --algo flash2 --dtype bf16 --heads 20 --N 512 --d 64 --device "$dev"
part --algo flash2 --dtype fp16 --heads 6 --N 2048 --d 128 --br 64 --bc 64 --device "$dev"
echo "wrote $csv: $(($(wc -l < "$csv") - 1)) rows"; cat "$log"
grep -E "dram_read_bytes" "$csv" | cut -d, -f4,5,7,8,9,13,14,15,16,17
"$carry/fasim_cuda_tests" "[calibrate]" > "$OUT/tests-calibrate.log" 2>&1
echo "[calibrate] tests: exit $?"; tail -3 "$OUT/tests-calibrate.log"
"$carry/fasim_cuda_tests" > "$OUT/tests.log" 2>&1
echo "all CUDA tests: exit $?, $(($(date +%s) - start)) s in all"; tail -3 "$OUT/tests.log"
