#!/usr/bin/env python3
"""Tables of the eviction-set probe's sample of sets (`./evset N sets`).

Reads h200-2026-11-30-l2-evset-sets.txt and -sets455.txt.gz (or the files
given, comma-separated): for each set found (TARGET ... done), its lines in
the first 128 MiB, the target's included; a target found in two calls
counts once. A line is a home if its home-half parity (l2-home-map-2026-11-30.md)
is the target's, else the copy of a line homed in the other half.

1. How evenly a run fills the sets: homes per set in [0, F MiB).
2. How evenly a stride fills them: per set, the lines of [0, 80 MiB) with
   address bit b = 0 (the stride probe's 40 MiB subset for bit b).
3. A count model of the stride probe (l2-stride-2026-11-30.md): 16-way LRU
   sets, so a set whose load passes 16 lines loses all of its lines each
   pass and the others lose none. A set's load is its homes in the
   footprint plus K times its copies there (K fitted: 0.25); the DRAM MB
   of passes 2 to 4 are the overflowing sets' homes, scaled from the sample
   to 2 x 15,360 sets. Against the GPU's medians.
4. The same count on flash1's pattern with 132 heads (the flash1-pattern
   probe's parts and many calls, placement 0's SMs): the buffers Q, O, K,
   V, l, m laid out one after the other from address 0, each on a 2 MiB
   boundary; a set's load in pass j is its homes among Q, O, l, m and this
   pass's K_j and V_j, plus 2K times its copies among those of heads whose
   block sits next to the sampled half (SM 124's: the SM map's slow share
   0); the leak a pass is the overflowing sets' Q, O, l and m homes, mean
   over passes 2 on. Against the GPU's leak (flash1-pattern-2026-11-30.md,
   "A pass's leak grows with the stream").
Usage: python3 l2-evset-sets-2026-11-30.py [FILE[,FILE...]] [K]
"""
import csv
import gzip
import os
import random
import re
import statistics as st
import sys

RESULTS = os.path.dirname(os.path.abspath(__file__))
PATHS = (sys.argv[1].split(',') if len(sys.argv) > 1 else
         [os.path.join(RESULTS, f) for f in ('h200-2026-11-30-l2-evset-sets.txt', 'h200-2026-11-30-l2-evset-sets455.txt.gz')])
K = float(sys.argv[2]) if len(sys.argv) > 2 else 0.25
WAYS, SETS, LINE, PASSES = 16, 2 * 15360, 128, 3
MASK = (1 << 12) | (1 << 13) | (1 << 15) | (1 << 17) | (1 << 19) | (((1 << 40) - 1) & ~((1 << 21) - 1))
# The stride probe's DRAM MB, passes 2 to 4 (medians; l2-stride-2026-11-30.md): bit held at 0 (0: one run), 'r' a random half.
GPU = {32: {0: 0.0, 12: 4.9, 13: 4.6, 14: 3.5, 15: 6.9, 16: 0.4, 17: 9.2, 18: 6.7, 19: 3.0, 20: 8.5, 21: 19.4, 22: 0.6, 'r': 2.8},
       36: {'r': 10.2},
       40: {0: 3.8, 12: 36.1, 13: 37.1, 14: 37.3, 15: 45.6, 16: 23.7, 17: 53.7, 18: 45.6, 19: 42.2, 20: 49.3, 21: 69.0,
            22: 21.1, 'r': 33.4}}
BITS = [0, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22]
# flash1's leak a pass on the GPU, MB (flash1-pattern-2026-11-30.md): sequence -> (GPU, fasim's model)
LEAK = {'F1/N512/d128/br64/bc8/h132': ('0.05', '0.16'), 'F1-nokv/N576/d128/br64/bc64/h132': ('0.47', '0.90'),
        'F1-nolm-konly/N512/d128/br64/bc64/h132': ('0.54', '0.24'), 'F1-konly/N512/d128/br64/bc64/h132': ('0.92', '0.44'),
        'F1-nolm/N512/d128/br64/bc64/h132': ('2.02', '1.07'), 'F1/N512/d128/br64/bc64/h132': ('2.63 / 3.11', '1.47'),
        'F1-nolm-konly/N576/d128/br64/bc64/h132': ('4.09', '2.64'), 'F1-konly/N576/d128/br64/bc64/h132': ('6.97', '3.64'),
        'F1-nolm/N576/d128/br64/bc64/h132': ('9.72', '7.77'), 'F1/N576/d128/br64/bc64/h132': ('12.60', '10.37')}


def parity(a):
    return bin(a & MASK).count('1') & 1


def read_sets(paths):
    sets, cur = [], None
    lines = (line for path in paths for line in (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)))
    for line in lines:
        m = re.match(r'TARGET (\d+) x=(0x[0-9a-f]+)', line)
        if m:
            cur = {'x': int(m.group(2), 16), 'lines': [int(m.group(2), 16)], 'done': False}
            sets.append(cur)
        elif line.startswith('MEMBER') and cur is not None:
            cur['lines'].append(int(line.split()[1], 16))
        elif 'done:' in line and cur is not None:
            cur['done'] = True
    found = {}
    for s in sets:
        if s['done']:
            found.setdefault(s['x'], s)  # a target found again: the same lines (14 of 14 in the two calls)
    return list(found.values())


def subset(s, f, b, rng):
    """The set's lines in the probe's footprint of f MiB for bit b."""
    if b == 0:
        return [a for a in s['lines'] if a < f << 20]
    if b == 'r':
        return [a for a in s['lines'] if a < (2 * f) << 20 and rng.random() < 0.5]
    return [a for a in s['lines'] if a < (2 * f) << 20 and not (a >> b) & 1]


def predict(sets, f, b, k, rng=None):
    lost = 0
    for s in sets:
        lines = subset(s, f, b, rng)
        homes = sum(1 for a in lines if parity(a) == parity(s['x']))
        if homes + k * (len(lines) - homes) > WAYS:
            lost += homes
    return lost / len(sets) * SETS * LINE * PASSES / 1e6


def flash1_leak(sets, seq, sms, near_sm, k_copy):
    parts = seq.split('/')
    variant, n, d, bc = parts[0], int(parts[1][1:]), int(parts[2][1:]), int(parts[4][2:])
    heads, row = 132, d * 2
    head, lm = n * row, n * 4
    bufs, base = [], 0
    for name, size in (('Q', head), ('O', head), ('K', head), ('V', head), ('l', lm), ('m', lm)):
        bufs.append((name, base, size))
        base = (base + size * heads + (2 << 20) - 1) // (2 << 20) * (2 << 20)
    skip = set()
    if 'nokv' in variant:
        skip |= {'K', 'V'}
    if 'nolm' in variant:
        skip |= {'l', 'm'}
    if 'konly' in variant:
        skip.add('V')
    near = [near_sm[sms[h]] for h in range(heads)]
    leaks = []
    for j in range(1, (n + bc - 1) // bc):
        lost = 0
        for s in sets:
            load, reused = 0.0, 0
            for a in s['lines']:
                hit = next(((name, a - b0, size) for name, b0, size in bufs if b0 <= a < b0 + size * heads), None)
                if hit is None or hit[0] in skip:
                    continue
                name, off, size = hit
                if name in 'KV' and (off % size) // row // bc != j:
                    continue  # another pass's K or V
                home = parity(a) == parity(s['x'])
                load += 1.0 if home else (k_copy if near[off // size] else 0.0)
                reused += home and name in 'QOlm'
            if load > WAYS:
                lost += reused
        leaks.append(lost / len(sets) * SETS * LINE / 1e6)
    return st.mean(leaks)


def flash1_table(sets, k):
    near_sm = {}
    for line in open(os.path.join(RESULTS, 'h200-2026-11-30-sm-map.txt')):
        if line.startswith('SM rep=0'):
            f = dict(kv.split('=') for kv in line.split()[1:])
            near_sm[int(f['smid'])] = float(f['slow_share']) < 0.25
    sms = {}
    for call in ('many', 'parts'):
        for r in csv.DictReader(open(os.path.join(RESULTS, f'h200-2026-11-30-flash1-pattern-{call}.csv'))):
            if r['placement'] == '0' and r['sequence'] in LEAK:
                sms.setdefault(r['sequence'], [int(x) for x in r['sms'].split()])
    print(f'\nflash1, 132 heads, copies made at 2K = {2 * k}: leak MB a pass, count model / GPU / fasim\n')
    print('| sequence | count model | GPU | fasim |\n|---|---:|---:|---:|')
    for seq, (gpu, model) in LEAK.items():
        print(f'| {seq} | {flash1_leak(sets, seq, sms[seq], near_sm, 2 * k):.2f} | {gpu} | {model} |')


def main():
    sets = read_sets(PATHS)
    print(f'{len(sets)} sets, all of {WAYS} ways\n')
    print('| run | homes a set, mean | variance | least-most |\n|---|---:|---:|---|')
    for f in (40, 80, 128):
        h = [sum(1 for a in s['lines'] if a < f << 20 and parity(a) == parity(s['x'])) for s in sets]
        print(f'| first {f} MiB | {st.mean(h):.2f} | {st.pvariance(h):.2f} | {min(h)}-{max(h)} |')
    print('\n| bit b held at 0, of 80 MiB | lines a set, mean | variance | least-most |\n|---:|---:|---:|---|')
    for b in BITS[1:]:
        z = [len(subset(s, 40, b, None)) for s in sets]
        print(f'| {b} | {st.mean(z):.2f} | {st.pvariance(z):.2f} | {min(z)}-{max(z)} |')
    print(f'\nCount model, copies at K = {K}: DRAM MB of passes 2 to 4, model / GPU\n')
    print('| footprint | ' + ' | '.join('run' if b == 0 else f'bit {b}' for b in BITS) + ' |')
    print('|---|' + '---:|' * len(BITS))
    for f in (32, 40):
        print(f'| {f} MiB | ' + ' | '.join(f'{predict(sets, f, b, K):.1f} / {GPU[f][b]}' for b in BITS) + ' |')
    p = [predict(sets, 40, b, K) for b in BITS]
    g = [GPU[40][b] for b in BITS]
    mp, mg = st.mean(p), st.mean(g)
    r = sum((x - mp) * (y - mg) for x, y in zip(p, g)) / (
        sum((x - mp) ** 2 for x in p) ** 0.5 * sum((y - mg) ** 2 for y in g) ** 0.5)
    print(f'\nAt 40 MiB over the {len(BITS)} footprints: correlation {r:.2f}, summed {sum(p):.0f} against {sum(g):.0f} MB')
    rand = [st.mean(predict(sets, f, 'r', K, random.Random(seed)) for seed in range(20)) for f in (32, 36, 40)]
    print('A random half of the 4 KiB units (mean of 20 draws), 32 / 36 / 40 MiB: '
          f'{rand[0]:.1f} / {rand[1]:.1f} / {rand[2]:.1f} against the GPU\'s '
          f'{GPU[32]["r"]} / {GPU[36]["r"]} / {GPU[40]["r"]}')
    flash1_table(sets, K)


if __name__ == '__main__':
    main()
