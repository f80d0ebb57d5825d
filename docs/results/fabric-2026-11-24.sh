#!/usr/bin/env bash
# Traffic between the two L2 halves, counted by the GPU (2026-11-24).
#
# fasim's L2 model keeps, in each half, a copy of the far-homed sectors its
# SMs read or write (docs/timing-model.md, "Partitions"). Every copy miss asks
# the far half for the sectors, and every write of a far-homed sector goes
# there too: both cross the fabric between the halves. The GPU counts the
# sectors that reach an L2 slice from that fabric
# (lts__t_sectors_srcunit_ltcfabric). The model's copy traffic and the GPU's
# can then be set side by side, point by point, at the flash1 points near the
# L2's size where DRAM reads and writes miss, and at flash2 points for
# comparison.
#
# ncu flushes the caches before each profiled launch (--cache-control all)
# and leaves the clocks alone; three launches after the warm-up are profiled.
# The metric list is whatever of the wanted ltcfabric breakdown this GPU's ncu
# knows (queried first), plus the two DRAM metrics.
# Run from the repository root on a GPU machine with build/gpu-carry (fasim,
# libtomlplusplus, cupti-libs.tar.gz), as scripts/gpu-check.sh prepares it.
# Output on stdout: "== POINT" lines, then "launch metric value" rows.
set -u
C=build/gpu-carry
mkdir -p /tmp/fc && tar -C /tmp/fc -xzf $C/cupti-libs.tar.gz
export LD_LIBRARY_PATH=$PWD/$C:/tmp/fc:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64
F=$C/fasim
T=${DEVICE_TOML:-docs/results/h200-2026-11-22-measured.toml}
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader
chip=$(ncu --list-chips 2>/dev/null | tr ', ' '[\n*]' | grep -m1 -E '^gh100|^gh1' || echo gh100)
echo "== metrics this ncu knows about the L2 fabric (chip $chip)"
ncu --query-metrics --chip "$chip" 2>/dev/null | grep -i ltcfabric | awk '{print $1}' | tee /tmp/fabric-known.txt
metrics=dram__bytes_read.sum,dram__bytes_write.sum
for m in lts__t_sectors_srcunit_ltcfabric lts__t_sectors_srcunit_ltcfabric_op_read \
         lts__t_sectors_srcunit_ltcfabric_op_write lts__t_sectors_srcunit_ltcfabric_lookup_hit \
         lts__t_sectors_srcunit_ltcfabric_lookup_miss lts__t_sectors_srcunit_tex_op_read \
         lts__t_sectors_srcunit_tex_op_read_lookup_miss lts__t_sectors_srcunit_tex_op_write; do
  grep -qx "$m" /tmp/fabric-known.txt || [[ $m == *srcunit_tex* ]] || { echo "(no $m)"; continue; }
  metrics+=",$m.sum"
done
echo "== metrics: $metrics"
points=(
  "--algo flash2 --dtype fp16 --heads 16 --N 4096 --d 64 --br 128 --bc 128"
  "--algo flash1 --dtype fp32 --heads 16 --N 1024 --d 64 --br 64 --bc 227"
  "--algo flash1 --dtype fp32 --heads 16 --N 4096 --d 64 --br 64 --bc 227"
  "--algo flash1 --dtype fp32 --heads 16 --N 2048 --d 128 --br 64 --bc 64"
  "--algo flash1 --dtype fp16 --heads 16 --N 4096 --d 128 --br 64 --bc 64"
  "--algo flash2 --dtype fp32 --heads 16 --N 2048 --d 128 --br 64 --bc 64"
  "--algo flash2 --dtype fp16 --heads 128 --N 512 --d 64 --br 128 --bc 128"
  "--algo flash2 --dtype fp16 --heads 4 --N 16384 --d 64 --br 128 --bc 128"
)
for p in "${points[@]}"; do
  echo "== $p"
  # shellcheck disable=SC2086
  LC_ALL=C timeout 240 ncu --cache-control all --clock-control none --csv --print-units base \
      --kernel-name regex:'flash' --launch-skip 3 --launch-count 3 --metrics "$metrics" \
      $F gpu run $p --device "$T" --no-counters --no-numerics --runs 20 2>&1 |
    grep -E '^"[0-9]' | awk -F'","' '{print $1, $(NF-2), $NF}' | tr -d '"'
done
