#!/bin/bash
# Does the GPU's DRAM traffic for flash1 change when its blocks run in lock
# step, as fasim's line-level L2 says it does (flash1-drift-2026-12-01.md,
# section 5: fed in lock step, fasim's own accesses drain 45.5 MB at the
# sweep's last missed cell against 40.3 in fasim's order)? flash1 fp16,
# 132 heads, at three points: `fasim compare --json` in 32 placements,
# free (as fasim runs it) and with FASIM_F1_LOCKSTEP=1 (a grid-wide barrier
# before each query block step: flash1-lockstep-experiment-2026-12-01.patch).
# Run by the device tool from the repository root with carry
# build/gpu-carry-ls: fasim built with the cuda preset and the patch applied
# (cmake --build build/cuda --target fasim), beside gpu-carry's
# cupti-libs.tar.gz and libtomlplusplus.so.3. Results: $OUT/f1ls.tgz, the
# placements-*.json and their .err (the device tool brings back 8 files).
set -u
. scripts/append-sweep.sh
holdout_gpu_setup build/gpu-carry-ls
FINAL=${OUT:-/tmp}
OUT=$(mktemp -d)
point() {  # point NAME ARGS...: free, then lock step
  local name=$1
  shift
  placements_json "$name-free" --algo flash1 --dtype fp16 --heads 132 "$@"
  FASIM_F1_LOCKSTEP=1 placements_json "$name-lockstep" --algo flash1 --dtype fp16 --heads 132 "$@"
}
point n512-d128 --N 512 --d 128 --br 64 --bc 64
point n1024-d64-bc227 --N 1024 --d 64 --br 64 --bc 227
point n448-d128 --N 448 --d 128 --br 64 --bc 64
tar -C "$OUT" -czf "$FINAL"/f1ls.tgz .
