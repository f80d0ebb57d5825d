#!/usr/bin/env bash
# The readers effect along the sweep's flash2 fp16 d = 64 diagonal (2026-11-24):
# the same bytes (B*H*N = 65,536 rows) from 128 heads at N = 512 to 4 heads at
# N = 16,384, each through `fasim compare --json --counter-runs 3`: copy misses
# (the fabric row) beside the DRAM writes, whose bar these points miss.
# Also prints one `fasim compare` table and one `fasim gpu run` as a user sees them.
# Run from the repository root on a GPU machine with build/gpu-carry
# (scripts/gpu-check.sh --prepare-carry); DEVICE_TOML as in fabric-compare-2026-11-24.sh.
set -u
C=build/gpu-carry
OUT=${OUT:-out/fabric-readers}
mkdir -p "$OUT" /tmp/fc && tar -C /tmp/fc -xzf $C/cupti-libs.tar.gz
export LD_LIBRARY_PATH=$PWD/$C:/tmp/fc:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64
T=${DEVICE_TOML:-docs/results/h200-2026-11-22-measured.toml}
log=$OUT/fabric-readers.txt
echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $(date -u +%Y-%m-%dT%H:%MZ), device profile $T" | tee "$log"
echo "# heads N | copy misses model / GPU MB | far writes model / GPU | DRAM write model / GPU MB [least, most of 3]" | tee -a "$log"
for hn in "128 512" "64 1024" "32 2048" "16 4096" "8 8192" "4 16384"; do
  set -- $hn
  $C/fasim compare --algo flash2 --dtype fp16 --heads "$1" --N "$2" --d 64 --br 128 --bc 128 --device "$T" \
      --json --counter-runs 3 --no-numerics >"$OUT/p.json" 2>"$OUT/p.err" || { echo "$hn: $(cat "$OUT/p.err")" | tee -a "$log"; continue; }
  python3 - "$hn" "$OUT/p.json" <<'PY' | tee -a "$log"
import json, sys
j = json.load(open(sys.argv[2])); rows = {r["metric"]: r for r in j["rows"]}
l2 = j["measurement"]["counters"]["l2"]; f = rows["l2_fabric_bytes"]; w = rows["dram_write_bytes"]
half = rows["l2_write_bytes"]["predicted"] / 2
print(f"{sys.argv[1]} | {(f['predicted'] - half) / 1e6:.2f} / {l2['fabric_read_sectors'] * 32 / 1e6:.2f} | "
      f"{half / 1e6:.2f} / {l2['fabric_write_sectors'] * 32 / 1e6:.2f} | {w['predicted'] / 1e6:.3f} / {w['measured'] / 1e6:.3f} "
      f"[{w['measured_min'] / 1e6:.3f}, {w['measured_max'] / 1e6:.3f}]")
PY
done
rm -f "$OUT/p.json" "$OUT/p.err"
echo "# fasim compare, as a user sees it" | tee -a "$log"
$C/fasim compare --algo flash2 --dtype fp16 --heads 16 --N 4096 --d 64 --device "$T" 2>&1 | tee -a "$log"
echo "# fasim gpu run, as a user sees it" | tee -a "$log"
$C/fasim gpu run --algo flash1 --dtype fp32 --heads 16 --N 1024 --d 64 2>&1 | tee -a "$log"
