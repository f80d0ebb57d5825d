#!/usr/bin/env python3
"""Run by flash1-order-score-2026-12-01.sh, with the folder W it works in.
`configs W`: the flash1 configurations recorded on the H200 with a cold L2
(one line each: toml dtype heads N d br bc). `score W`: for each recorded
point of those that the replay tool ran, the error of fasim's order and of
lock step against the measured DRAM reads and drained writes; prints the
counts within 10% and the mean and mean absolute errors."""
import collections, csv, glob, os, re, sys

mode, w = sys.argv[1], sys.argv[2]
toml_of = dict(line.split() for line in open(os.path.join(w, 'sets.txt')))
points = {}  # (set, toml, dtype, heads, N, d, br, bc) -> {metric: measured}
for f in glob.glob(os.path.join(w, 'pts', '*.pts.csv')):
    for r in csv.DictReader(open(f)):
        if r['algo'] != 'flash1' or 'H200' not in r['device'] or r['l2_mode'] != 'cold' or r['batch'] != '1':
            continue
        if r['metric'] not in ('dram_read_bytes', 'dram_write_drained_bytes') or not r['measured']:
            continue
        key = (os.path.basename(f), toml_of[os.path.basename(f)]) + tuple(r[k] for k in ('dtype', 'heads', 'N', 'd', 'br', 'bc'))
        points.setdefault(key, {})[r['metric']] = float(r['measured'])
if mode == 'configs':
    for c in sorted({k[1:] for k in points}):
        print(' '.join(c))
    sys.exit(0)

replay = {}
for line in open(os.path.join(w, 'replays.txt')):
    config, out = line.split(' :: ')
    mb = re.findall(r'read ([\d.]+), written during the run ([\d.]+), drained ([\d.]+)', out)
    if len(mb) == 2:
        replay[tuple(config.split())] = [(float(r) * 1e6, float(d) * 1e6) for r, _, d in mb]
for wave in ('all', 'one wave'):
    for i, metric in enumerate(('dram_read_bytes', 'dram_write_drained_bytes')):
        n, inbar, total, absolute = 0, collections.Counter(), collections.Counter(), collections.Counter()
        for key, measured in points.items():
            got = replay.get(key[1:])
            if got is None or metric not in measured or (wave == 'one wave' and int(key[3]) > 132):
                continue
            n += 1
            for name, pred in zip(('fasim order', 'lock step'), got):
                e = (pred[i] - measured[metric]) / measured[metric] * 100
                inbar[name] += abs(e) <= 10
                total[name] += e
                absolute[name] += abs(e)
        print(f'{wave:9} {metric:25} {n:3} points: ' + '; '.join(
            f'{name} {inbar[name]} within 10%, mean {total[name] / n:+.1f}%, mean abs {absolute[name] / n:.1f}%'
            for name in ('fasim order', 'lock step')))
print(f'{len(replay)} configurations on the line-level L2, {sum(int(c[2]) <= 132 for c in replay)} of them one wave')
