#!/usr/bin/env bash
# CPU replays of launch-placement-grids-2026-11-25.md: the recorded runs CI
# holds, predicted again with other L2 ways, L2 sizes, SM runs, clean shares,
# and the GPU's own block placement for small grids. No GPU needed.
# Build a patched fasim first (the patch reads FASIM_RUNS, FASIM_PLACE and
# FASIM_CLEAN from the environment; without them it is fasim as committed):
#   git worktree add /tmp/fasim-exp HEAD && cd /tmp/fasim-exp &&
#   git apply docs/results/placement-grids-experiment-2026-11-25.patch &&
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2 --target fasim
# Usage: placement-grids-replay-2026-11-25.sh FASIM fit WAYS SCALE   (env FASIM_RUNS, FASIM_CLEAN as wanted)
#        placement-grids-replay-2026-11-25.sh FASIM flash1 WAYS       (per point, dealt in turn and in the GPU's order)
set -euo pipefail
F=$1; mode=$2; W=$3; S=${4:-1.0}
R=docs/results; D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
# Every measured profile, with [l2] ways = W and bytes x S (kept a whole number of sets).
for t in $R/*-measured.toml; do
  python3 - "$t" "$D/$(basename "$t")" "$W" "$S" <<'P'
import re, sys
src, dst, w, s = sys.argv[1:]
t = open(src).read()
unit = 2 * 128 * int(w)
t = re.sub(r'(\[l2\]\n(?:#.*\n)*bytes = )(\d+)', lambda m: m.group(1) + str(int(int(m.group(2)) * float(s)) // unit * unit), t)
open(dst, 'w').write(t.replace('[l2]\n', '[l2]\nways = %s\n' % w, 1))
P
done
if [ "$mode" = fit ]; then
  # The 23 recordings CI re-predicts, each with the profile it was predicted with.
  while read -r csv toml; do
    "$F" compare --recorded "$R/$csv" --device "$D/$toml" --json | python3 -c "
import json, sys
f = json.load(sys.stdin)['fit']
print('$csv', f['dram_read_bytes']['in_bar'], f['dram_write_bytes']['in_bar'], f['dram_read_bytes']['points'],
      '%.1f' % f['dram_read_bytes']['mean_abs_error_pct'])"
  done <<'L' | awk '{print; r += $2; w += $3; p += $4} END {print "TOTAL DRAM reads in bar", r, "writes", w, "of", p}'
h200-2026-11-22-sweep.csv h200-2026-11-22-measured.toml
h100-2026-11-22-sweep.csv h100-2026-11-22-measured.toml
h200-2026-11-22-holdout-3.csv h200-2026-11-21-measured.toml
h100-2026-11-22-holdout-2.csv h100-2026-11-22-measured.toml
h200-2026-11-22-holdout-time.csv h200-2026-11-22-measured.toml
h100-2026-11-22-holdout-time.csv h100-2026-11-22-measured.toml
h200-2026-11-23-holdout-steps.csv h200-2026-11-22-measured.toml
h100-2026-11-23-holdout-steps.csv h100-2026-11-22-measured.toml
h200-2026-11-22-tile-steps.csv h200-2026-11-22-measured.toml
h200-2026-11-22-fp32-occupancy.csv h200-2026-11-22-measured.toml
h200-2026-11-24-occupancy.csv h200-2026-11-22-measured.toml
h100-2026-11-24-occupancy.csv h100-2026-11-22-measured.toml
h200-2026-11-24-mma-occupancy.csv h200-2026-11-22-measured.toml
h100-2026-11-24-mma-occupancy-holdout.csv h100-2026-11-22-measured.toml
h200-2026-11-24-mma-readers.csv h200-2026-11-22-measured.toml
h200-2026-11-24-sm-runs-holdout.csv h200-2026-11-22-measured.toml
h100-2026-11-24-sm-runs-holdout.csv h100-2026-11-22-measured.toml
h100-2026-11-24-sweep-again.csv h100-2026-11-22-measured.toml
h200-2026-11-24-sweep-again.csv h200-2026-11-22-measured.toml
h200-2026-11-23-placements8.csv h200-2026-11-22-measured.toml
h100-2026-11-23-placements8.csv h100-2026-11-22-measured.toml
h200-2026-11-23-write-curves.csv h200-2026-11-22-measured.toml
h100-2026-11-23-write-curves.csv h100-2026-11-22-measured.toml
L
  exit 0
fi
# flash1 at 8 to 24 heads (one block a head): the halves the GPUs put the
# blocks next to (launch-placement-grids, both GPUs alike), against dealing in turn.
declare -A place=([8]=AAAAAAAA [12]=AAAAAAAAABBB [16]=AAAAAAAAAAABABBB [20]=AAAAAAAAAAABAABBBBBB
                  [24]=AAAAAAAAAAAAAABBAABBBBBB)
for set in h100-2026-11-24-sm-runs-holdout h200-2026-11-24-sm-runs-holdout h100-2026-11-22-sweep \
           h100-2026-11-23-placements8 h100-2026-11-24-sweep-again h200-2026-11-22-sweep h200-2026-11-23-placements8; do
  for h in 8 12 16 20 24; do
    FASIM_PLACE= "$F" compare --recorded "$R/$set.csv" --device "$D/${set:0:4}-2026-11-22-measured.toml" \
      --algo flash1 --heads $h --out "$D/turn.csv" >/dev/null 2>&1 || continue
    FASIM_PLACE=${place[$h]} "$F" compare --recorded "$R/$set.csv" --device "$D/${set:0:4}-2026-11-22-measured.toml" \
      --algo flash1 --heads $h --out "$D/gpu.csv" >/dev/null
    python3 - "$set" "$D/turn.csv" "$D/gpu.csv" <<'P'
import csv, sys
name, turn, gpu = sys.argv[1:]
for t, g in zip(csv.DictReader(open(turn)), csv.DictReader(open(gpu))):
    m = float(t['measured'])
    if t['metric'].startswith('dram') and m > 5e6:
        err = lambda r: 100 * (float(r['predicted']) - m) / m
        print(f"{name} {t['dtype']} heads={t['heads']} N={t['N']} d={t['d']} {t['metric']} GPU {m / 1e6:.2f} MB"
              f"  in turn {err(t):+.0f}%  GPU order {err(g):+.0f}%")
P
  done
done
