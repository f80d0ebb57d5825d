#!/usr/bin/env bash
# CPU replay behind o-copies-2026-11-28.md: every recorded set CI holds,
# predicted again by a patched fasim in four variants, then the DRAM points
# in bar and flash1's points of 1 MiB or more side by side. No GPU needed.
# Build the patched fasim first (it reads X_SMALL, X_NOOCOPY, X_NOWCOPY and
# X_AGING from the environment; without them it is fasim as committed):
#   git worktree add /tmp/fasim-exp HEAD && cd /tmp/fasim-exp &&
#   git apply docs/results/o-copies-experiment-2026-11-28.patch &&
#   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFASIM_CUDA=OFF \
#     -DFASIM_TESTS=OFF -DFASIM_BENCH=OFF && cmake --build build -j2 --target fasim
# Usage (from the repository root): o-copies-replay-2026-11-28.sh FASIM
set -euo pipefail
F=$1; R=docs/results; D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
for v in base X_SMALL X_SMALL+X_NOOCOPY X_SMALL+X_NOWCOPY; do
  mkdir -p "$D/$v"
  env=(); [ "$v" = base ] || for x in ${v//+/ }; do env+=("$x=1"); done
  scripts/recorded-sets.sh | while read -r csv toml _; do
    env "${env[@]}" "$F" compare --recorded "$csv" --device "$toml" --out "$D/$v/$(basename "$csv")" >/dev/null
  done
done
python3 - "$D" <<'P'
import csv, glob, sys
d = sys.argv[1]; vs = ['base', 'X_SMALL', 'X_SMALL+X_NOOCOPY', 'X_SMALL+X_NOWCOPY']
def load(v):
    out = {}
    for f in sorted(glob.glob(f'{d}/{v}/*.csv')):
        for i, r in enumerate(csv.DictReader(open(f))):
            if r['metric'].startswith('dram'):
                q, p = float(r['measured']), float(r['predicted'])
                e = 100 * (p - q) / q if q > 0 else (0 if p == 0 else float('inf'))
                out[(f.split('/')[-1], i)] = (r, q, e)
    return out
L = [load(v) for v in vs]
print('variant', *vs)
for m in ('dram_read_bytes', 'dram_write_bytes'):
    print(m, *[sum(1 for r, q, e in X.values() if r['metric'] == m and abs(e) <= 10) for X in L], 'of',
          sum(1 for r, q, e in L[0].values() if r['metric'] == m))
for k, (r, q, e) in sorted(L[0].items()):
    if r['algo'] == 'flash1' and q >= 2**20 and any(abs(X[k][2]) > 10 for X in L):
        print(k[0], r['dtype'], f"heads={r['heads']} N={r['N']} d={r['d']}", r['metric'], f'{q / 2**20:.1f} MiB',
              *[f'{X[k][2]:+.0f}%' for X in L])
P
