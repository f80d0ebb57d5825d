#!/usr/bin/env bash
# GPU check: on a machine with an NVIDIA GPU, build the CUDA backend with the
# `cuda` preset, run fasim_cuda_tests (kernel outputs against the fp64
# reference, the kernels' own byte counters against the simulator), and write
# logs and a summary under $OUT (default out/gpu-check).
#
#   scripts/gpu-check.sh                 configure, build (ninja -j16), test
#   scripts/gpu-check.sh --prepare-carry on the development machine: build
#       fasim_cuda_tests and the fasim CLI with the cuda preset and copy them,
#       with the shared libraries the GPU machine lacks (toml++) and CUPTI's
#       libraries (libcupti, libnvperf_host/target, packed in cupti-libs.tar.gz:
#       fasim opens them at run time), to build/gpu-carry
#
# If the GPU machine cannot build (the lent machines have nvcc and cmake but
# not the Debian packages: toml++, Catch2, ...), the test runs the prebuilt
# binary in $FASIM_PREBUILT (default build/gpu-carry; carry that folder).
#
# Each stage is a function that appends to $OUT/summary.md; later stages
# (CUPTI measurements, sweeps) are added the same way, after step_test.
# step_compare runs `fasim compare` (simulator vs GPU: HBM, L2, DRAM bytes,
# time) and writes compare.txt (tables and the sweeps' progress), compare.csv
# (the long-form sweep) and compare-extra.csv (64 x 64 tiles, warm L2).
# step_calibrate runs `fasim gpu calibrate` and writes <gpu>-measured.toml (its
# table goes into summary.md). $OUT holds at most 8 files: keep it that way.
# Exit status: 0 if every stage that ran passed.
set -uo pipefail
cd "$(dirname "$0")/.."
CARRY=build/gpu-carry
if [ "${1:-}" = "--prepare-carry" ]; then
  cmake --preset cuda >/dev/null && cmake --build build/cuda --target fasim_cuda_tests fasim || exit 1
  rm -rf "$CARRY" && mkdir -p "$CARRY" && cp build/cuda/bin/fasim_cuda_tests build/cuda/bin/fasim "$CARRY"/
  ldd build/cuda/bin/fasim_cuda_tests build/cuda/bin/fasim | awk '/tomlplusplus/ {print $3}' | sort -u |
    xargs -r -I{} cp -L {} "$CARRY"/
  cupti_dir=$(dirname "$(grep -m1 '^CUDA_cupti_LIBRARY:' build/cuda/CMakeCache.txt | cut -d= -f2)")
  if [ -f "$cupti_dir/libcupti.so.13" ]; then
    tar -C "$cupti_dir" -czf "$CARRY/cupti-libs.tar.gz" --dereference libcupti.so.13 libnvperf_host.so libnvperf_target.so
  else
    echo "warning: no libcupti.so.13 in '$cupti_dir'; the GPU machine's own CUPTI will be used" >&2
  fi
  echo "prepared $CARRY: $(ls "$CARRY" | tr '\n' ' ')($(du -sh "$CARRY" | cut -f1)); carry it to the GPU machine"
  exit 0
fi
FASIM_PREBUILT=${FASIM_PREBUILT:-$CARRY}
OUT=${OUT:-out/gpu-check}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.md"
JOBS=${JOBS:-16}
BIN=""
FASIM=""
status=0

note() { echo "$*" | tee -a "$SUMMARY"; }

step_device() {
  note "# fasim GPU check, $(date -u +%Y-%m-%dT%H:%MZ)"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi >"$OUT/device.txt" 2>&1
    note "- GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"
  else
    note "- GPU: nvidia-smi not found"
  fi
  note "- nvcc: $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo 'not found')"
  note "- cmake: $(cmake --version 2>/dev/null | head -1)"
}

step_build() {
  local start=$SECONDS
  if cmake --preset cuda >"$OUT/build.log" 2>&1 &&
     cmake --build build/cuda --target fasim_cuda_tests -- -j"$JOBS" >>"$OUT/build.log" 2>&1; then
    BIN=build/cuda/bin/fasim_cuda_tests
    cmake --build build/cuda --target fasim -- -j"$JOBS" >>"$OUT/build.log" 2>&1 && FASIM=build/cuda/bin/fasim
    note "- build: cuda preset, $((SECONDS - start)) s, $(grep -ci 'warning' "$OUT/build.log") lines mentioning warnings"
  elif [ -n "${FASIM_PREBUILT:-}" ] && [ -x "$FASIM_PREBUILT/fasim_cuda_tests" ]; then
    BIN="$FASIM_PREBUILT/fasim_cuda_tests"
    [ -x "$FASIM_PREBUILT/fasim" ] && FASIM="$FASIM_PREBUILT/fasim"
    export LD_LIBRARY_PATH="$FASIM_PREBUILT${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    note "- build: failed here ($(grep -m1 -iE 'error|could not find' "$OUT/build.log" | cut -c1-160)); using prebuilt $BIN"
  else
    note "- build: FAILED, see build.log"
    tail -30 "$OUT/build.log"
    status=1
  fi
}

# CUPTI for the hardware counters: the carried libraries (the version fasim was
# built with) first, then the toolkit's own folders.
step_cupti() {
  local dirs="" d
  if [ -f "$FASIM_PREBUILT/cupti-libs.tar.gz" ]; then
    mkdir -p /tmp/fasim-cupti && tar -C /tmp/fasim-cupti -xzf "$FASIM_PREBUILT/cupti-libs.tar.gz" && dirs=/tmp/fasim-cupti
  fi
  for d in /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64; do
    [ -d "$d" ] && dirs="${dirs:+$dirs:}$d"
  done
  export LD_LIBRARY_PATH="${dirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  note "- CUPTI search path: ${dirs:-none}"
}

step_test() {
  [ -n "$BIN" ] || return 0
  local start=$SECONDS
  "$BIN" --durations yes >"$OUT/tests.log" 2>&1
  local rc=$?
  note "- fasim_cuda_tests: exit $rc, $((SECONDS - start)) s; $(grep -E '^(All tests passed|test cases:)' "$OUT/tests.log" | tail -1)"
  {
    echo
    echo '| kernel | dtype | shape | result |'
    echo '|---|---|---|---|'
    grep -E '^(naive|flash)' "$OUT/tests.log" | sed -E 's/^([^ ]+) +([^ ]+) +([^|]+)\| (.*)$/| \1 | \2 | \3 | \4 |/'
  } >>"$SUMMARY"
  grep -E 'skipped:|FAILED|failed' "$OUT/tests.log" | head -40
  [ "$rc" -eq 0 ] || status=1
}

# Simulator vs GPU. The profile of the GPU is picked automatically (h100 or
# h200). Two configurations in full (tables and JSON), at 1 head and at 16
# heads (tables), then the long-form sweep: naive/flash1/flash2 x fp32/fp16 x N 1024,
# 4096 x d 64, 128 (one head, cold L2).
step_compare() {
  [ -n "$FASIM" ] || { note "- compare: no fasim binary; skipped"; return 0; }
  local start=$SECONDS rc algo heads
  : >"$OUT/compare.txt"
  # `fasim gpu run` alone: the summary once, and the JSON once.
  "$FASIM" gpu run --algo flash2 --dtype fp16 --N 4096 --d 64 --heads 16 >>"$OUT/compare.txt" 2>&1 || status=1
  "$FASIM" gpu run --algo naive --dtype fp16 --N 1024 --d 64 --json --no-numerics >>"$OUT/compare.txt" 2>&1 || status=1
  echo >>"$OUT/compare.txt"
  for heads in 1 16; do
    for algo in flash2 naive; do
      "$FASIM" compare --algo "$algo" --dtype fp16 --N 4096 --d 64 --heads "$heads" >>"$OUT/compare.txt" 2>&1
      rc=$?
      echo "(exit $rc)" >>"$OUT/compare.txt"
      echo >>"$OUT/compare.txt"
      [ "$rc" -eq 0 ] || status=1
    done
  done
  "$FASIM" compare --sweep --algo naive,flash1,flash2 --dtype fp32,fp16 --N 1024,4096 --d 64,128 \
    --out "$OUT/compare.csv" >>"$OUT/compare.txt" 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || status=1
  # The points whose default tiles need more shared memory than the fp32
  # kernels have, at 64 x 64 tiles; and warm L2 beside cold. One more CSV.
  "$FASIM" compare --sweep --algo flash1,flash2 --dtype fp32,fp16 --N 1024,4096 --d 128 --br 64 --bc 64 \
    --out "$OUT/extra-tiles.csv" >>"$OUT/compare.txt" 2>&1 || status=1
  "$FASIM" compare --sweep --algo naive,flash2 --dtype fp16 --N 4096 --d 64 --heads 1,16 --l2 cold,warm \
    --out "$OUT/extra-l2.csv" >>"$OUT/compare.txt" 2>&1 || status=1
  { cat "$OUT/extra-tiles.csv" 2>/dev/null; tail -n +2 "$OUT/extra-l2.csv" 2>/dev/null; } >"$OUT/compare-extra.csv"
  rm -f "$OUT/extra-tiles.csv" "$OUT/extra-l2.csv"
  note "- fasim compare: $((SECONDS - start)) s, sweep exit $rc, $(($(wc -l <"$OUT/compare.csv" 2>/dev/null || echo 1) - 1)) CSV rows, $(($(wc -l <"$OUT/compare-extra.csv") - 1)) more in compare-extra.csv"
  {
    echo
    echo '```'
    cat "$OUT/compare.txt"
    echo '```'
  } >>"$SUMMARY"
}

# `fasim gpu calibrate`: every figure of the device TOML measured on this GPU
# (bandwidths, latencies, rates, clock), written to $OUT/<gpu>-measured.toml;
# the table (measured beside the stock profile, ratio, source) goes into
# summary.md, which keeps $OUT at 8 files.
step_calibrate() {
  [ -n "$FASIM" ] || { note "- calibrate: no fasim binary; skipped"; return 0; }
  local start=$SECONDS rc name
  rm -f "$OUT/measured.toml"
  "$FASIM" gpu calibrate --out "$OUT/measured.toml" >"$OUT/calibrate.txt.tmp" 2>&1
  rc=$?
  name=$(sed -n 's/^name = "\(.*\)"$/\1/p' "$OUT/measured.toml" 2>/dev/null)
  [ -n "$name" ] && mv "$OUT/measured.toml" "$OUT/$name.toml"
  note "- fasim gpu calibrate: exit $rc, $((SECONDS - start)) s${name:+, wrote $name.toml}"
  {
    echo
    echo '```'
    cat "$OUT/calibrate.txt.tmp"
    echo '```'
  } >>"$SUMMARY"
  rm -f "$OUT/calibrate.txt.tmp"
  [ "$rc" -eq 0 ] || status=1
}

step_device
step_build
step_cupti
step_test
step_calibrate
step_compare
cat "$SUMMARY"
exit "$status"
