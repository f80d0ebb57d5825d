#!/usr/bin/env bash
# The DRAM misses of the 23 recordings CI re-predicts (the list in
# placement-grids-replay-2026-11-25.sh), sorted by whether the GPU agrees
# with itself at that point. No GPU needed: a fasim build and python3.
# Usage: docs/results/write-miss-census-2026-11-25.sh [path/to/fasim]
set -euo pipefail
cd "$(dirname "$0")/../.."
F=${1:-build/default/bin/fasim}
R=docs/results; D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
sed -n '/^h200-2026-11-22-sweep.csv /,/^L$/p' $R/placement-grids-replay-2026-11-25.sh | grep -v '^L$' |
  while read -r csv toml; do "$F" compare --recorded "$R/$csv" --device "$R/$toml" --out "$D/$csv" >/dev/null; done
python3 - "$D" <<'P'
import collections, csv, glob, os, sys
# A point's key: the GPU and every setting of the run (not the recording).
def key(r):
    gpu = 'h200' if 'H200' in r['device'] else 'h100'
    return (r['metric'], gpu) + tuple(r[c] for c in ('algo', 'dtype', 'batch', 'heads', 'N', 'd', 'br', 'bc', 'l2_mode')) + (r.get('blocks_per_sm', ''),)
def err(p, m): return (p - m) / m * 100 if m else (0 if p == 0 else float('inf'))
rows, medians = [], collections.defaultdict(list)
for f in sorted(glob.glob(os.path.join(sys.argv[1], '*.csv'))):
    for r in csv.DictReader(open(f)):
        if r['metric'] not in ('dram_read_bytes', 'dram_write_bytes'): continue
        p, m = float(r['predicted']), float(r['measured'])
        rows.append((key(r), p, m, r['measured_min'], r['measured_max']))
        medians[key(r)].append(m)
def apart(k):  # the same settings, recorded again, with medians more than 20% apart
    ms = medians[k]
    return len(ms) > 1 and (min(ms) == 0 or (max(ms) - min(ms)) / min(ms) > 0.2)
def wide(x):   # the point's own ranges spread over more than 20% of their median
    return x[3] != '' and x[2] > 0 and (float(x[4]) - float(x[3])) / x[2] > 0.2
for metric in ('dram_read_bytes', 'dram_write_bytes'):
    pts = [x for x in rows if x[0][0] == metric]
    miss = [x for x in pts if abs(err(x[1], x[2])) > 10]
    keys = {x[0] for x in pts if len(medians[x[0]]) > 1}
    print(f'{metric}: {len(pts)} points, {len(miss)} outside 10%')
    print(f'  settings recorded more than once: {len(keys)}; medians more than 20% apart: {sum(apart(k) for k in keys)}')
    print(f'  misses where the GPU disagrees with itself by more than 20%: recorded again {sum(apart(x[0]) for x in miss)},'
          f' own ranges {sum(wide(x) for x in miss)}, either {sum(apart(x[0]) or wide(x) for x in miss)}')
    rest = [x for x in miss if not (apart(x[0]) or wide(x))]
    size = collections.Counter('under 1 MB' if x[2] < 1e6 else '1 to 10 MB' if x[2] < 1e7 else '10 MB or more' for x in rest)
    print(f'  misses where it agrees: {len(rest)} ({", ".join(f"{v} {k}" for k, v in sorted(size.items()))})')
    fam = collections.Counter((x[0][2], x[0][3], 'over' if x[1] > x[2] else 'under') for x in rest)
    print('   ', ', '.join(f'{a} {d} {s} {n}' for (a, d, s), n in fam.most_common()))
P
