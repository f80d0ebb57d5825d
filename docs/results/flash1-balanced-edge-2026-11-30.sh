#!/bin/bash
# flash1 with the GPU full (132 heads, one block per SM) near the L2's size:
# does the model's shortfall there follow the number of key blocks (Bc), the
# load (N), or neither? Run on the lent H200 from the repository root with the
# binaries carried in build/gpu-carry; writes $OUT/flash1-balanced-edge.{csv,log}.
set -u
. scripts/append-sweep.sh
holdout_gpu_setup build/gpu-carry
name=flash1-balanced-edge
run() {
  "$FASIM" compare --sweep --no-numerics --counter-runs 2 --placements 8 --device "${dev:?}" \
    --out "$OUT/$name.part.csv" "$@" >>"$OUT/$name.log" 2>&1
  echo "$*: exit $?" | tee -a "$OUT/$name.log"
  if [ -f "$OUT/$name.csv" ]; then tail -n +2 "$OUT/$name.part.csv" >>"$OUT/$name.csv"; else cat "$OUT/$name.part.csv" >"$OUT/$name.csv"; fi
  rm -f "$OUT/$name.part.csv"
}
start=$SECONDS
run --algo flash1 --dtype fp16 --N 512 --d 128 --heads 132 --br 64 --bc 16,32
run --algo flash1 --dtype fp16 --N 384,448,576,640 --d 128 --heads 132 --br 64 --bc 64
run --algo flash1 --dtype fp16 --N 1024 --d 64 --heads 132 --br 64 --bc 64,128
run --algo flash1 --dtype fp16 --N 512 --d 128 --heads 66,100 --br 64 --bc 64
echo "$((SECONDS - start)) s"
