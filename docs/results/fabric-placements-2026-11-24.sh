#!/usr/bin/env bash
# flash1's edge in 8 placements of the buffers, with the L2 fabric (2026-11-24).
#
# Near the L2's size flash1's DRAM reads move with the physical pages of its
# buffers (h200-2026-11-23-flash1-placement.md). Tonight's fabric row
# (fabric-compare-2026-11-24.md) found the H200's far half missing only the
# compulsory 26 MB at the three edge shapes. Does that hold in every
# placement, while the DRAM reads move? `fasim compare --json --placements 8`
# takes one cold range in each placement; this prints each range's DRAM
# reads, copy misses (fabric reads) and far-half misses (fabric lookup
# misses, writes included), in MB.
# Run from the repository root on a GPU machine with build/gpu-carry
# (scripts/gpu-check.sh --prepare-carry); DEVICE_TOML as in fabric-compare-2026-11-24.sh.
set -u
C=build/gpu-carry
OUT=${OUT:-out/fabric-placements}
mkdir -p "$OUT" /tmp/fc && tar -C /tmp/fc -xzf $C/cupti-libs.tar.gz
export LD_LIBRARY_PATH=$PWD/$C:/tmp/fc:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64
T=${DEVICE_TOML:-docs/results/h200-2026-11-22-measured.toml}
log=$OUT/fabric-placements.txt
echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $(date -u +%Y-%m-%dT%H:%MZ), device profile $T" | tee "$log"
for p in "--dtype fp32 --N 4096 --d 64 --br 64 --bc 227" "--dtype fp32 --N 2048 --d 128 --br 64 --bc 64" \
         "--dtype fp16 --N 4096 --d 128 --br 64 --bc 64"; do
  # shellcheck disable=SC2086
  $C/fasim compare --algo flash1 --heads 16 $p --device "$T" --json --placements 8 --no-numerics \
      >"$OUT/p.json" 2>"$OUT/p.err" || { echo "$p: $(cat "$OUT/p.err")" | tee -a "$log"; continue; }
  python3 - "$p" "$OUT/p.json" <<'PY' | tee -a "$log"
import json, sys
j = json.load(open(sys.argv[2])); rows = {r["metric"]: r for r in j["rows"]}; c = j["measurement"]["counters"]
f = rows["l2_fabric_bytes"]; half = rows["l2_write_bytes"]["predicted"] / 2
print(f"== flash1 {sys.argv[1]}: model DRAM read {rows['dram_read_bytes']['predicted'] / 1e6:.1f}, "
      f"copy misses {(f['predicted'] - half) / 1e6:.1f} MB")
print("placement | DRAM read | copy misses | far-half misses | DRAM write")
for i, (d, fb) in enumerate(zip(c["dram_runs"], c["fabric_runs"])):
    print(f"{i} | {d['read_bytes'] / 1e6:.1f} | {fb['read_sectors'] * 32 / 1e6:.1f} | "
          f"{fb['miss_sectors'] * 32 / 1e6:.1f} | {d['write_bytes'] / 1e6:.1f}")
PY
done
rm -f "$OUT/p.json" "$OUT/p.err"
