#!/usr/bin/env bash
# The H200 sweep's missed points measured again in fresh processes: how much
# do the GPU's DRAM counts move from one process (one set of physical pages) to the next?
set -u
C=build/gpu-carry
mkdir -p /tmp/fc && tar -C /tmp/fc -xzf $C/cupti-libs.tar.gz
export LD_LIBRARY_PATH=$PWD/$C:/tmp/fc:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64
F=$C/fasim
T=docs/results/h200-2026-11-22-measured.toml
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader >&2
pts=("flash1 fp32 4096 64 64 227 16" "flash1 fp32 2048 128 64 64 16" "flash1 fp16 4096 128 64 64 16"
     "naive fp16 1024 64 128 128 16" "naive fp16 1024 128 128 128 16" "flash2 fp32 2048 128 64 64 16"
     "flash2 fp16 2048 128 128 128 32" "naive fp32 512 64 128 128 16")
first=1
for rep in 1 2 3 4 5 6; do
  for p in "${pts[@]}"; do
    set -- $p
    $F compare --sweep --algo $1 --dtype $2 --heads $7 --N $3 --d $4 --br $5 --bc $6 --no-numerics --counter-runs 3 --device $T 2>/dev/null |
      awk -v r=$rep -v f=$first 'NR==1 { if (f) print "process," $0; next } { print r "," $0 }'
    first=0
  done
done
