#!/usr/bin/env bash
# naive's three kernels counted one by one (written 2026-11-23, not yet run).
# naive fp16 at N = 1024 with 16 heads reads 11% to 13% more from DRAM in the
# model than on the H200 and the H100, and the sweep only has the three
# kernels' sum. `fasim run` now shows the model's bytes kernel by kernel;
# this measures the GPU's the same way. ncu with the two DRAM metrics alone
# (one pass, no replay), caches and clocks left alone: the first 9 naive
# launches of one `fasim gpu run` are its first 3 runs (warm-up included),
# each after fasim's own L2 flush, so between the three kernels the L2 keeps
# what it holds, as in a counted range. Beside it: fasim compare's CUPTI sum
# and, on this machine or any, `fasim run ... --json` for the model's kernels.
# Run from the repository root on a GPU machine with build/gpu-carry (fasim,
# libtomlplusplus, cupti-libs.tar.gz), as scripts/gpu-check.sh prepares it.
set -u
C=build/gpu-carry
mkdir -p /tmp/fc && tar -C /tmp/fc -xzf $C/cupti-libs.tar.gz
export LD_LIBRARY_PATH=$PWD/$C:/tmp/fc:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64
F=$C/fasim
T=${DEVICE_TOML:-docs/results/h200-2026-11-22-measured.toml}
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader
for p in "1024 64" "1024 128" "2048 64" "512 64"; do  # the two misses, then two in bar
  set -- $p
  shape=(--algo naive --dtype fp16 --heads 16 --N $1 --d $2 --br 128 --bc 128 --no-numerics --device $T)
  echo "== naive fp16 N=$1 d=$2 ncu: launch, kernel, metric, bytes"
  ncu --cache-control none --clock-control none -k regex:'scores_kernel|softmax_kernel|output_kernel' -c 9 \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base \
      $F gpu run "${shape[@]}" --no-counters --runs 20 2>/dev/null | grep -E '^"[0-9]' | grep dram__bytes |
    awk -F'","' '{print $1, $5, $(NF-2), $NF}' | tr -d '"' | sed 's/(Params)//'
  echo "== naive fp16 N=$1 d=$2 fasim compare (CUPTI, 3 ranges): metric, predicted, median, min, max"
  $F compare "${shape[@]}" --counter-runs 3 --sweep 2>/dev/null | grep dram_ | cut -d, -f13-
done
