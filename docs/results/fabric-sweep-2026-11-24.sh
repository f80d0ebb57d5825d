#!/usr/bin/env bash
# The L2 fabric at every point of the issue-4 sweep (2026-11-24).
#
# `fasim compare --json --counter-runs 3` at the points scripts/gpu-check.sh's
# step_compare sweeps (naive / flash1 / flash2, fp32 and fp16, N = 512 to
# 16,384, d = 64 and 128), one process a point; one JSON object a line in
# fabric-sweep.jsonl, and a line a point in fabric-sweep.txt: the fabric,
# predicted and measured (MB), its error, and the GPU's parts. The sweep CSV
# keeps the issue's seven metrics; the fabric lives here.
# Run from the repository root on a GPU machine with build/gpu-carry
# (scripts/gpu-check.sh --prepare-carry); DEVICE_TOML picks the profile.
set -u
C=build/gpu-carry
OUT=${OUT:-out/fabric-sweep}
mkdir -p "$OUT" /tmp/fc && tar -C /tmp/fc -xzf $C/cupti-libs.tar.gz
export LD_LIBRARY_PATH=$PWD/$C:/tmp/fc:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64
T=${DEVICE_TOML:-docs/results/h200-2026-11-22-measured.toml}
log=$OUT/fabric-sweep.txt
: >"$OUT/fabric-sweep.jsonl"
echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $(date -u +%Y-%m-%dT%H:%MZ), device profile $T" | tee "$log"
echo "# point | fabric model / GPU MB (error) | GPU copy misses, far writes, far-half misses MB" | tee -a "$log"
points=()
for n in 512 1024 2048 4096 8192 16384; do
  for d in 64 128; do points+=("--algo flash2 --dtype fp16 --N $n --d $d --heads $((65536 / n))"); done
done
for t in fp32 fp16; do for n in 512 1024 2048 4096 8192 16384; do for d in 64 128; do
  points+=("--algo naive --dtype $t --N $n --d $d --heads 16"); done; done; done
for n in 512 1024 2048 4096 8192 16384; do
  points+=("--algo flash2 --dtype fp32 --N $n --d 64 --heads 16")
  points+=("--algo flash2 --dtype fp32 --N $n --d 128 --heads 16 --br 64 --bc 64")
done
for t in fp32 fp16; do for n in 512 1024 2048 4096; do
  points+=("--algo flash1 --dtype $t --N $n --d 64 --heads 16")
  points+=("--algo flash1 --dtype $t --N $n --d 128 --heads 16 --br 64 --bc 64")
done; done
start=$SECONDS
for p in "${points[@]}"; do
  # shellcheck disable=SC2086
  if ! timeout 120 $C/fasim compare $p --device "$T" --json --counter-runs 3 --no-numerics >"$OUT/p.json" 2>"$OUT/p.err"; then
    echo "$p | skipped: $(tail -1 "$OUT/p.err")" | tee -a "$log"
    continue
  fi
  python3 - "$OUT/p.json" "$OUT/fabric-sweep.jsonl" <<'PY' | tee -a "$log"
import json, sys
j = json.load(open(sys.argv[1]))
open(sys.argv[2], "a").write(json.dumps(j, separators=(",", ":")) + "\n")
w, m = j["workload"], j["mapping"]
f = {r["metric"]: r for r in j["rows"]}["l2_fabric_bytes"]; l2 = j["measurement"]["counters"]["l2"]
e = f"{f['error_pct']:+.1f}%" if f["error_pct"] is not None else "n/a"
print(f"{m['algo']} {w['dtype']} H={w['heads']} N={w['N']} d={w['d']} Br={m['br']} Bc={m['bc']} | "
      f"{f['predicted'] / 1e6:.2f} / {f['measured'] / 1e6:.2f} ({e}) | {l2['fabric_read_sectors'] * 32 / 1e6:.2f}, "
      f"{l2['fabric_write_sectors'] * 32 / 1e6:.2f}, {l2['fabric_miss_sectors'] * 32 / 1e6:.2f}")
PY
done
rm -f "$OUT/p.json" "$OUT/p.err"
echo "# $(wc -l <"$OUT/fabric-sweep.jsonl") points in $((SECONDS - start)) s" | tee -a "$log"
