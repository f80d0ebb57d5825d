#!/usr/bin/env python3
"""Tables of flash1-lockstep-2026-12-01.md from the recorded JSONs
(h200-2026-12-01-flash1-lockstep-CALL-POINT-free|lockstep.json): for each
call and point, the medians over 32 placements of DRAM MB read, written
during the run and drained, free and in lock step, the change, and the
kernel's median time. Run from the repository root."""
import glob, json, os, re, statistics

R = 'docs/results'
runs = {}
for f in sorted(glob.glob(f'{R}/h200-2026-12-01-flash1-lockstep-*.json')):
    call, point, mode = re.match(r'.*lockstep-(\d)-(.+)-(free|lockstep)\.json', f).groups()
    m = json.load(open(f))['measurement']
    d = m['counters']['dram_runs']
    med = lambda k: statistics.median(x[k] for x in d) / 1e6
    runs[(point, call, mode)] = (med('read_bytes'), med('write_bytes'), med('write_drained_bytes'),
                                 m['time']['median_s'] * 1e3, len(d))
print('| point | call | free: read / during / drained | lock step | change: read / drained | time free / lock step (ms) |')
print('|---|---|---|---|---|---|')
for point, call in sorted({(p, c) for p, c, _ in runs}):
    f, l = runs.get((point, call, 'free')), runs.get((point, call, 'lockstep'))
    if f is None or l is None:
        continue
    print(f'| {point} | {call} | {f[0]:.1f} / {f[1]:.1f} / {f[2]:.1f} | {l[0]:.1f} / {l[1]:.1f} / {l[2]:.1f} | '
          f'{(l[0] / f[0] - 1) * 100:+.1f}% / {(l[2] / f[2] - 1) * 100:+.1f}% | {f[3]:.2f} / {l[3]:.2f} |')
