#!/usr/bin/env bash
# CPU replay for gpu-placement-2026-11-25.md: the 23 recordings CI holds,
# predicted with fasim's own block placement (block b next to L2 half
# b mod 2) and with the GPUs' (each SM's half where the GPU put block s of
# the first wave: the measured order for grids of 4 to 132 blocks, the
# 1024-block order for larger grids). No GPU needed.
# Build a patched fasim first (without FASIM_GPUPLACE it is fasim as committed):
#   git worktree add /tmp/fasim-exp 36cab31 && cd /tmp/fasim-exp &&
#   git apply docs/results/gpu-placement-experiment-2026-11-25.patch &&
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2 --target fasim
# Usage (from the repository root): docs/results/gpu-placement-replay-2026-11-25.sh FASIM [WAYS | fabric]
# Prints the DRAM points in bar for fasim today, dealt in turn and the GPU's
# placement (both with WAYS, default the profiles' own), the misses by family,
# and the points that enter or leave the bar against fasim today. With
# `fabric`: the flash2 points' L2 fabric, measured against both placements.
# FASIM_GPUPLACE_SIMT_ONLY=1 in the environment: the tensor-core kernel keeps
# dealing in turn (its later waves scatter on the GPU); FASIM_GPUPLACE_MIN_GRID=g:
# grids of fewer than g blocks keep dealing in turn.
set -euo pipefail
F=$1; W=${2:-}
R=docs/results; D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
# The GPUs' placement: "grid halves" lines, halves as A (the first block's) and B.
python3 - "$D/place.txt" <<'P'
import re, sys
R = 'docs/results/'
def halves(path):  # SM -> 0/1 from the SM map probe (slow share 0: the reference SM's half)
    h = {}
    for l in open(path):
        m = re.match(r'SM rep=0 smid=(\d+) mean_cycles=\d+ slow_share=([\d.]+)', l)
        if m: h[int(m[1])] = 0 if float(m[2]) < 0.25 else 1
    return h
out = []
h = halves(R + 'h200-2026-11-25-sm-map.txt')
for l in open(R + 'h200-2026-11-25-launch-placement-grids.txt'):
    m = re.match(r'PLACE grid=(\d+) threads=256 per_sm=1 fit=1 smem=\d+ rep=0: (.*)', l)
    if m: out.append((int(m[1]), ''.join('AB'[h[int(s)]] for s in m[2].split())))
h = halves(R + 'h200-2026-11-23-sm-map.txt')
for l in open(R + 'h200-2026-11-23-launch-placement.txt'):
    m = re.match(r'PLACE grid=1024 threads=256 per_sm=1 fit=1 smem=\d+ rep=0: (.*)', l)
    if m: out.append((100000, ''.join('AB'[h[int(s)]] for s in m[1].split()[:132])))
open(sys.argv[1], 'w').write(''.join(f'{g} {s}\n' for g, s in sorted(out)))
P
if [ "$W" = fabric ]; then
  # The L2 fabric (bytes between the halves) of the flash2 points the GPUs
  # measured (fabric-compare-2026-11-24.md), against `fasim run`'s
  # l2.fabric_bytes dealt in turn and with the GPU's placement.
  python3 - "$F" "$D/place.txt" <<'P'
import json, os, subprocess, sys
fasim, place = sys.argv[1:]
for gpu in ('h200', 'h100'):
    errs = {}
    for f in (f'{gpu}-2026-11-24-fabric-sweep.jsonl', f'{gpu}-2026-11-24-fabric-compare.jsonl'):
        for line in open('docs/results/' + f):
            j = json.loads(line); w, m = j['workload'], j['mapping']
            if m['algo'] != 'flash2': continue
            l2 = j['measurement']['counters']['l2']
            meas = (l2['fabric_read_sectors'] + l2['fabric_write_sectors']) * 32
            args = ['run', '--no-numerics', '--json', '--algo', 'flash2', '--dtype', w['dtype'], '--batch', str(w['batch']),
                    '--heads', str(w['heads']), '--N', str(w['N']), '--d', str(w['d']), '--br', str(m['br']), '--bc', str(m['bc']),
                    '--device', f'docs/results/{gpu}-2026-11-22-measured.toml']
            if m['blocks_per_sm']: args += ['--blocks-per-sm', str(m['blocks_per_sm'])]
            pred = [json.loads(subprocess.run([fasim] + args, capture_output=True, text=True, check=True,
                                              env={**os.environ, **env}).stdout)['l2']['fabric_bytes']
                    for env in ({}, {'FASIM_GPUPLACE': place})]
            e = [(p - meas) / meas * 100 for p in pred]
            kind = 'fp32 kernel' if w['dtype'] == 'fp32' else 'tensor-core kernel'
            errs.setdefault(kind, []).append(e)
            print(f"{f:38} {w['dtype']} H={w['heads']} N={w['N']} d={w['d']} {m['br']}x{m['bc']}: GPU {meas / 2**20:.1f} MiB,"
                  f" dealt in turn {e[0]:+.0f}%, GPU placement {e[1]:+.0f}%")
    for kind, es in errs.items():
        print(f'{gpu} {kind}, {len(es)} points, mean error: dealt in turn {sum(x[0] for x in es) / len(es):+.1f}%,'
              f' GPU placement {sum(x[1] for x in es) / len(es):+.1f}%')
P
  exit 0
fi
# today: fasim as committed; turn: dealt in turn with WAYS; gpu: the GPU's placement with WAYS.
mkdir -p "$D/today" "$D/turn" "$D/gpu"
sed -n '/^h200-2026-11-22-sweep.csv /,/^L$/p' $R/placement-grids-replay-2026-11-25.sh | grep -v '^L$' |
  while read -r csv toml; do
    t=$R/$toml
    "$F" compare --recorded "$R/$csv" --device "$t" --out "$D/today/$csv" >/dev/null
    if [ -n "$W" ]; then t=$D/$toml; sed "s/^\[l2\]$/[l2]\nways = $W/" "$R/$toml" > "$t"; fi
    "$F" compare --recorded "$R/$csv" --device "$t" --out "$D/turn/$csv" >/dev/null
    FASIM_GPUPLACE=$D/place.txt "$F" compare --recorded "$R/$csv" --device "$t" --out "$D/gpu/$csv" >/dev/null
  done
python3 - "$D" <<'P'
import collections, csv, glob, os, sys
def load(d):
    out = {}
    for f in sorted(glob.glob(os.path.join(d, '*.csv'))):
        for i, r in enumerate(csv.DictReader(open(f))):
            if r['metric'] in ('dram_read_bytes', 'dram_write_bytes', 'time_s'): out[(os.path.basename(f), i)] = r
    return out
def err(r):
    p, m = float(r['predicted']), float(r['measured'])
    return (p - m) / m * 100 if m else (0 if p == 0 else float('inf'))
def ok(r): return abs(err(r)) <= (25 if r['metric'] == 'time_s' else 10)
T, A, B = (load(sys.argv[1] + x) for x in ('/today', '/turn', '/gpu'))
models = (('fasim today', T), ('dealt in turn', A), ('GPU placement', B))
for metric in ('dram_read_bytes', 'dram_write_bytes', 'time_s'):
    ks = [k for k in A if A[k]['metric'] == metric]
    big = [k for k in ks if float(A[k]['measured']) >= 1 << 20]
    def off(d): return sum(abs(float(d[k]['predicted']) - float(d[k]['measured'])) for k in big) / (1 << 20)
    print(f'{metric}, in bar of {len(ks)}:', ', '.join(f'{n} {sum(ok(d[k]) for k in ks)}' for n, d in models))
    if metric == 'time_s': continue
    print(f'  measured 1 MiB or more ({len(big)}), in bar and summed |predicted - measured|:',
          ', '.join(f'{n} {sum(ok(d[k]) for k in big)}, {off(d):.0f} MiB' for n, d in models))
A = T  # the lists below: against fasim today
for name, d in (('fasim today', T), ('GPU placement', B)):
    fam = collections.Counter((d[k]['metric'][5:-6], d[k]['algo'], d[k]['dtype'], 'over' if err(d[k]) > 0 else 'under')
                              for k in d if d[k]['metric'] != 'time_s' and not ok(d[k]))
    print(f'misses, {name}:', ', '.join(f'{m} {a} {t} {s} {n}' for (m, a, t, s), n in fam.most_common()))
for tag, ks in (('into the bar', [k for k in A if not ok(A[k]) and ok(B[k])]), ('out of it', [k for k in A if ok(A[k]) and not ok(B[k])])):
    print(f'{len(ks)} points {tag}:')
    for k in sorted(ks):
        r = A[k]
        print(f"  {k[0]:44} {r['metric'][:10]} {r['algo']} {r['dtype']} H={r['heads']} N={r['N']} d={r['d']} {r['br']}x{r['bc']}"
              f"{' per SM ' + r['blocks_per_sm'] if r.get('blocks_per_sm') else ''}: {float(r['measured'])/1e6:.2f} MB, {err(A[k]):+.1f}% -> {err(B[k]):+.1f}%")
P
