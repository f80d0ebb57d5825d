#!/usr/bin/env bash
# The same points with their buffers on other physical pages: fasim's runner
# allocates a pad of P MiB before Q, K, V, O (FASIM_PAD_MIB, from
# placement-experiment-2026-11-23.patch, not in fasim). One process per pad;
# fasim's CUPTI path, 3 counter ranges each. Run from the repository root on a
# GPU machine with build/gpu-carry built with the patch. H200: as is
# (h200-2026-11-23-placements.csv). H100: DEVICE_TOML=docs/results/h100-2026-11-22-measured.toml
# PADS16="0 2 4 6 8 10 12 16 24 32 64 128" PADS32="0 2 4 8 12 16 32 64" PADSX="0 4 16"
# (h100-2026-11-23-placements.csv).
set -u
C=build/gpu-carry
mkdir -p /tmp/fc && tar -C /tmp/fc -xzf $C/cupti-libs.tar.gz
export LD_LIBRARY_PATH=$PWD/$C:/tmp/fc:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64
F=$C/fasim
T=${DEVICE_TOML:-docs/results/h200-2026-11-22-measured.toml}
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader >&2
first=1
run() {  # pad algo dtype N d br bc heads
  FASIM_PAD_MIB=$1 $F compare --sweep --algo $2 --dtype $3 --heads $8 --N $4 --d $5 --br $6 --bc $7 --no-numerics --counter-runs 3 --device $T 2>/dev/null |
    awk -v r=$1 -v f=$first 'NR==1 { if (f) print "pad_mib," $0; next } { print r "," $0 }'
  first=0
}
for pad in ${PADS16:-0 2 4 6 8 10 12 14 16 20 24 32 48 64 96 128}; do run $pad flash1 fp16 4096 128 64 64 16; done
for pad in ${PADS32:-0 2 4 6 8 12 16 24 32 64}; do run $pad flash1 fp32 4096 64 64 227 16; run $pad flash1 fp32 2048 128 64 64 16; done
for pad in ${PADSX:-0 2 4 8 16 32}; do run $pad naive fp16 1024 64 128 128 16; run $pad flash2 fp32 2048 128 64 64 16; done
