#!/usr/bin/env bash
# Builds (Release) and runs the simulator benchmarks; prints each figure with
# the ratio to its baseline, measured in the same run:
#  1. fasim_bench: counting-only flash2 up to N = 131072 against a plain loop
#     over the same tiles (and the time per tile at each N), the 102-point
#     sweep against a plain loop over its tiles, numerics against Eigen;
#  2. the same sweep through `fasim sweep`: one job against one per core
#     (wall time), the two outputs compared byte for byte;
#  3. fasim_bench_memory: peak RSS with numerics / size of Q, K, V, O.
# Arguments go to fasim_bench (e.g. --benchmark_filter=Sweep).
# FASIM_BENCH_QUICK=1 leaves out the slowest memory shapes (N = 16384);
# FASIM_BUILD_DIR picks the build directory (default build/default).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
fasim_ensure_deps
build=${FASIM_BUILD_DIR:-build/default}
cmake --preset default -B "$build" >/dev/null
cmake --build "$build" --target fasim fasim_bench fasim_bench_memory

echo "== 1. fasim_bench"
"$build/bin/fasim_bench" "$@"

echo
echo "== 2. fasim sweep, 102 points (naive,flash1,flash2 x d 64,128 x N 512..8192 x 16 heads), counting only"
sweep=(sweep --algo naive,flash1,flash2 --d 64,128 --N 512:8192:+480 --heads 16)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
seconds() {  # seconds() FILE ARGS...: runs fasim ARGS > FILE, prints the wall time
  local file=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  "$build/bin/fasim" "$@" >"$file"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}
cores=$(nproc)
t1=$(seconds "$out/serial.csv" "${sweep[@]}" --jobs 1)
tn=$(seconds "$out/parallel.csv" "${sweep[@]}" --jobs "$cores")
same=no
cmp -s "$out/serial.csv" "$out/parallel.csv" && same=yes
awk -v t1="$t1" -v tn="$tn" -v n="$cores" -v same="$same" 'BEGIN {
  printf "  --jobs 1: %.2f s (bar < 10 s: %s);  --jobs %d (one per core): %.2f s, %.2fx;  rows byte-identical: %s\n",
         t1, (t1 < 10 ? "met" : "MISSED"), n, tn, t1 / tn, same }'

echo
echo "== 3. fasim_bench_memory"
if [ "${FASIM_BENCH_QUICK:-0}" = 1 ]; then
  "$build/bin/fasim_bench_memory" --quick
else
  "$build/bin/fasim_bench_memory"
fi
[ "$same" = yes ]
