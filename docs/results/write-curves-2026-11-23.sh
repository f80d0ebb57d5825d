#!/usr/bin/env bash
# DRAM bytes as the number of heads grows, at four shapes where fasim's model
# misses away from the L2's edge (write-copies-2026-11-23.md): the curve says
# where the GPU starts to write back (or re-read) and how fast, not just one
# point. Run through the device tool with build/gpu-carry carried
# (scripts/gpu-check.sh --prepare-carry); OUT set by the tool. DEVICE_TOML is
# the profile the predictions use (default: the H200's).
#   A  flash2 fp32 N=2048 d=128 Br=Bc=64: O of the first wave written back while
#      the second streams K and V (recorded: +44% H200, +33% H100 at 16 heads)
#   B  the same with Br=Bc=32 (recorded: within 1% at 16 heads)
#   C  flash2 fp16 N=2048 d=128: O written back (recorded: +13% H200)
#   D  naive fp16 N=1024 d=64: S re-read by the softmax (recorded reads +11%)
# First fasim_cuda_tests, so the binary is known good on this GPU.
set -u
C=build/gpu-carry
mkdir -p /tmp/fc && tar -C /tmp/fc -xzf $C/cupti-libs.tar.gz
export LD_LIBRARY_PATH=$PWD/$C:/tmp/fc:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64
F=$C/fasim
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | awk '{print tolower($2)}')
T=${DEVICE_TOML:-docs/results/h200-2026-11-22-measured.toml}
CSV=$OUT/$G-write-curves.csv
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader | tee $OUT/$G-write-curves-log.txt
start=$SECONDS
$C/fasim_cuda_tests > $OUT/$G-cuda-tests.txt 2>&1
echo "fasim_cuda_tests: exit $? in $((SECONDS - start)) s" | tee -a $OUT/$G-write-curves-log.txt
sweep() {
  local part=$OUT/part.csv
  $F compare --sweep --no-numerics --counter-runs 3 --device $T --out $part "$@" >> $OUT/$G-write-curves-log.txt 2>&1
  [ -f $part ] || return
  if [ -f $CSV ]; then tail -n +2 $part >> $CSV; else cat $part > $CSV; fi
  rm -f $part
}
start=$SECONDS
sweep --algo flash2 --dtype fp32 --N 2048 --d 128 --br 64 --bc 64 --heads 4:40:+4
sweep --algo flash2 --dtype fp32 --N 2048 --d 128 --br 32 --bc 32 --heads 8:40:+8
sweep --algo flash2 --dtype fp16 --N 2048 --d 128 --heads 8:64:+8
sweep --algo naive --dtype fp16 --N 1024 --d 64 --heads 4:32:+4
echo "sweeps: $((SECONDS - start)) s, $(wc -l < $CSV) rows" | tee -a $OUT/$G-write-curves-log.txt
