#!/usr/bin/env bash
# The L2 fabric row of `fasim compare`, on a GPU (2026-11-24).
#
# fasim compare now reads lts__t_sectors_srcunit_ltcfabric (op_read,
# op_write, lookup_miss) through CUPTI with its other counters, in the same
# 3 passes, L2 flushed before each. This script
#   1. runs the GPU tests of `fasim_cuda_tests "[measure]"`, which hold the
#      fabric to the copy rule: half of every store crosses, and the model's
#      total is within 20% for flash2 data that fits in L2;
#   2. runs `fasim compare --json --counter-runs 3` on the eight shapes that
#      ncu measured that morning (fabric-2026-11-24.sh), plus two more, and
#      prints one line a shape: predicted and measured fabric, DRAM reads
#      and writes.
# Run from the repository root on a GPU machine with build/gpu-carry (fasim,
# fasim_cuda_tests, libtomlplusplus, cupti-libs.tar.gz), as
# scripts/gpu-check.sh --prepare-carry makes it. DEVICE_TOML picks the
# device profile (default: the H200's measured one). Files go to $OUT.
set -u
C=build/gpu-carry
OUT=${OUT:-out/fabric-compare}
mkdir -p "$OUT" /tmp/fc && tar -C /tmp/fc -xzf $C/cupti-libs.tar.gz
export LD_LIBRARY_PATH=$PWD/$C:/tmp/fc:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64
T=${DEVICE_TOML:-docs/results/h200-2026-11-22-measured.toml}
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
echo "# $gpu, $(date -u +%Y-%m-%dT%H:%MZ), device profile $T" | tee "$OUT/fabric-compare.txt"

start=$SECONDS
$C/fasim_cuda_tests "[measure]" >"$OUT/measure-tests.txt" 2>&1
echo "# fasim_cuda_tests [measure]: exit ${PIPESTATUS[0]}, $((SECONDS - start)) s" | tee -a "$OUT/fabric-compare.txt"
grep -E '^measure' "$OUT/measure-tests.txt" | tee -a "$OUT/fabric-compare.txt"

points=(
  "--algo flash2 --dtype fp16 --heads 16 --N 4096 --d 64 --br 128 --bc 128"
  "--algo flash1 --dtype fp32 --heads 16 --N 1024 --d 64 --br 64 --bc 227"
  "--algo flash1 --dtype fp32 --heads 16 --N 4096 --d 64 --br 64 --bc 227"
  "--algo flash1 --dtype fp32 --heads 16 --N 2048 --d 128 --br 64 --bc 64"
  "--algo flash1 --dtype fp16 --heads 16 --N 4096 --d 128 --br 64 --bc 64"
  "--algo flash2 --dtype fp32 --heads 16 --N 2048 --d 128 --br 64 --bc 64"
  "--algo flash2 --dtype fp16 --heads 128 --N 512 --d 64 --br 128 --bc 128"
  "--algo flash2 --dtype fp16 --heads 4 --N 16384 --d 64 --br 128 --bc 128"
  "--algo naive --dtype fp16 --heads 16 --N 512 --d 64 --br 128 --bc 128"
  "--algo flash2 --dtype fp16 --heads 128 --N 512 --d 128 --br 128 --bc 128"
)
echo "# shape | fabric predicted, measured MB [least, most of 3] (error) | of it read, written, far home missed (GPU) | DRAM read, written: predicted / measured MB" |
  tee -a "$OUT/fabric-compare.txt"
for p in "${points[@]}"; do
  # shellcheck disable=SC2086
  timeout 240 $C/fasim compare $p --device "$T" --json --counter-runs 3 --no-numerics >"$OUT/point.json" 2>"$OUT/point.err"
  rc=$?
  python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":")))' \
      "$OUT/point.json" >>"$OUT/fabric-compare.jsonl" 2>/dev/null  # one object a line
  python3 - "$p" "$rc" "$OUT/point.json" "$OUT/point.err" <<'EOF' | tee -a "$OUT/fabric-compare.txt"
import json, sys
p, rc, path, err = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
try:
    j = json.load(open(path))
except Exception:
    print(f"{p} | exit {rc}: {open(err).read().strip()[:200]}")
    sys.exit(0)
rows = {r["metric"]: r for r in j["rows"]}
f = rows["l2_fabric_bytes"]
l2 = j["measurement"]["counters"]["l2"]
runs = j["measurement"]["counters"].get("ranges", 1)
mb = lambda x: x / 1e6
err = f"{f['error_pct']:+.1f}%" if f["error_pct"] is not None else "n/a"
print(f"{p} | {mb(f['predicted']):.2f}, {mb(f['measured']):.2f} [{mb(f['measured_min']):.2f}, {mb(f['measured_max']):.2f}] ({err}) | "
      f"{mb(l2['fabric_read_sectors'] * 32):.2f}, {mb(l2['fabric_write_sectors'] * 32):.2f}, "
      f"{mb(l2['fabric_miss_sectors'] * 32):.2f} | "
      f"{mb(rows['dram_read_bytes']['predicted']):.2f} / {mb(rows['dram_read_bytes']['measured']):.2f}, "
      f"{mb(rows['dram_write_bytes']['predicted']):.2f} / {mb(rows['dram_write_bytes']['measured']):.2f} "
      f"(exit {rc}, {runs} ranges)")
EOF
done
rm -f "$OUT/point.json" "$OUT/point.err"
echo "# done in $((SECONDS - start)) s" | tee -a "$OUT/fabric-compare.txt"
