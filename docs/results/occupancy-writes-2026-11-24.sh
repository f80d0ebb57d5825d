#!/bin/bash
# Occupancy and write-back (occupancy-writes-2026-11-24.md): flash2 fp32 with
# two blocks per SM and, with 20000 bytes more shared memory a block, one.
# Needs a fasim built with occupancy-writes-experiment-2026-11-24.patch and
# the cuda preset (scripts/gpu-check.sh --prepare-carry puts one in
# build/gpu-carry; pass its folder as $1). Prints one line a run.
set -u
P=${1:-build/gpu-carry}
mkdir -p /tmp/fasim-cupti && tar -C /tmp/fasim-cupti -xzf "$P/cupti-libs.tar.gz"
export LD_LIBRARY_PATH=$P:/tmp/fasim-cupti
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for rep in 1 2 3; do
  for s in "16 2048 128 64" "64 512 128 64" "16 4096 64 128"; do
    set -- $s
    for x in 0 20000; do
      [ "$4" = 128 ] && [ "$x" != 0 ] && continue  # 128 x 128 tiles: one block per SM already
      FASIM_EXTRA_SMEM=$x "$P/fasim" gpu run --algo flash2 --dtype fp32 --heads "$1" --N "$2" --d "$3" \
        --br "$4" --bc "$4" --no-numerics --json > /tmp/occ.json || exit 1
      python3 -c "
import json; j = json.load(open('/tmp/occ.json')); c = j['counters']['dram']
print('rep $rep H=$1 N=$2 d=$3 br=$4 extra=$x dram_read %d dram_write %d time_s %.6f'
      % (c['read_bytes'], c['write_bytes'], j['time']['median_s']))"
    done
  done
done
