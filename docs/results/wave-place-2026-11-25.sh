#!/usr/bin/env bash
# Run on a lent GPU (device tool, carry build/gpu-carry holding a fasim built with
# wave-place-experiment-2026-11-25.patch applied): where every block of the real
# flash2 kernels ran, and when; plus the board's SM map. Needs the patched fasim in build/gpu-carry.
set -uo pipefail
O=${OUT:-/tmp/wp}; mkdir -p "$O"
C=build/gpu-carry; mkdir -p /tmp/cupti && tar -C /tmp/cupti -xzf $C/cupti-libs.tar.gz
export LD_LIBRARY_PATH=$C:/tmp/cupti${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o /tmp/smmap docs/results/h200-2026-11-22-sm-partition-probe.cu
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; /tmp/smmap | grep "^SM rep=0"; } > $O/sm-map.txt
run() {  # name, flags
  local n=$1; shift
  FASIM_PLACE_OUT=$O/place-$n.txt $C/fasim gpu run --no-numerics "$@" > $O/run-$n.txt 2>&1 || echo "failed $n: $(tail -2 $O/run-$n.txt)"
}
run fp32-h16 --algo flash2 --dtype fp32 --heads 16 --N 2048 --d 128 --br 64 --bc 64
run fp32-h128-1 --algo flash2 --dtype fp32 --heads 128 --N 256 --d 128 --br 64 --bc 64 --blocks-per-sm 1
run fp32-h64-1 --algo flash2 --dtype fp32 --heads 64 --N 512 --d 128 --br 64 --bc 64 --blocks-per-sm 1
run fp16-h64 --algo flash2 --dtype fp16 --heads 64 --N 1024 --d 128 --br 128 --bc 128
run fp16-h128 --algo flash2 --dtype fp16 --heads 128 --N 512 --d 128 --br 128 --bc 128
run fp16-h128-64 --algo flash2 --dtype fp16 --heads 128 --N 512 --d 128 --br 64 --bc 64 --blocks-per-sm 1
tar -C $O -czf $O/wave-place.tgz sm-map.txt $(cd $O && ls place-*.txt run-*.txt) && rm -f $O/place-*.txt $O/run-*.txt $O/sm-map.txt  # unpacked into h200-2026-11-25-wave-place.txt
ls -la $O
