#!/usr/bin/env bash
# GPU check: on a machine with an NVIDIA GPU, build the CUDA backend with the
# `cuda` preset, run fasim_cuda_tests (kernel outputs against the fp64
# reference, the kernels' own byte counters against the simulator), and write
# logs and a summary under $OUT (default out/gpu-check).
#
#   scripts/gpu-check.sh                 configure, build (ninja -j16), test
#   scripts/gpu-check.sh --prepare-carry on the development machine: build
#       fasim_cuda_tests with the cuda preset and copy it, with the shared
#       libraries the GPU machine lacks (toml++), to build/gpu-carry
#
# If the GPU machine cannot build (the lent machines have nvcc and cmake but
# not the Debian packages: toml++, Catch2, ...), the test runs the prebuilt
# binary in $FASIM_PREBUILT (default build/gpu-carry; carry that folder).
#
# Each stage is a function that appends to $OUT/summary.md; later stages
# (CUPTI measurements, sweeps) are added the same way, after step_test.
# Exit status: 0 if every stage that ran passed.
set -uo pipefail
cd "$(dirname "$0")/.."
CARRY=build/gpu-carry
if [ "${1:-}" = "--prepare-carry" ]; then
  cmake --preset cuda >/dev/null && cmake --build build/cuda --target fasim_cuda_tests || exit 1
  rm -rf "$CARRY" && mkdir -p "$CARRY" && cp build/cuda/bin/fasim_cuda_tests "$CARRY"/
  ldd build/cuda/bin/fasim_cuda_tests | awk '/tomlplusplus/ {print $3}' | xargs -r -I{} cp -L {} "$CARRY"/
  echo "prepared $CARRY: $(ls "$CARRY" | tr '\n' ' ')($(du -sh "$CARRY" | cut -f1)); carry it to the GPU machine"
  exit 0
fi
FASIM_PREBUILT=${FASIM_PREBUILT:-$CARRY}
OUT=${OUT:-out/gpu-check}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.md"
JOBS=${JOBS:-16}
BIN=""
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
    note "- build: cuda preset, $((SECONDS - start)) s, $(grep -ci 'warning' "$OUT/build.log") lines mentioning warnings"
  elif [ -n "${FASIM_PREBUILT:-}" ] && [ -x "$FASIM_PREBUILT/fasim_cuda_tests" ]; then
    BIN="$FASIM_PREBUILT/fasim_cuda_tests"
    export LD_LIBRARY_PATH="$FASIM_PREBUILT${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    note "- build: failed here ($(grep -m1 -iE 'error|could not find' "$OUT/build.log" | cut -c1-160)); using prebuilt $BIN"
  else
    note "- build: FAILED, see build.log"
    tail -30 "$OUT/build.log"
    status=1
  fi
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

step_device
step_build
step_test
cat "$SUMMARY"
exit "$status"
