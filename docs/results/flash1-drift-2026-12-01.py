#!/usr/bin/env python3
"""Tables of flash1-drift-2026-12-01.md from its recorded data:
  h200-2026-12-01-flash1-pattern-grain.csv (flash1-pattern probe, `grain`):
    DRAM MB read and written during the run, least / median / most over
    placements, per sequence and style;
  h200-2026-12-01-flash1-drift.txt (flash1-drift-probe-2026-12-01.cu): per
    shape, how far apart the blocks start the middle and last key blocks and
    end (us, median over runs, least to most).
Run from the repository root: python3 docs/results/flash1-drift-2026-12-01.py"""
import csv
import re
import statistics
from collections import defaultdict

R = 'docs/results/'


def spread(v):
    return '%.1f / %.1f / %.1f' % (min(v), statistics.median(v), max(v))


tot = defaultdict(lambda: defaultdict(lambda: [0, 0]))
for r in csv.DictReader(open(R + 'h200-2026-12-01-flash1-pattern-grain.csv')):
    k = (r['sequence'].split('/')[0], r['style'] + ', ' + r['spin'])
    tot[k][r['placement']][0] += int(r['dram_read_bytes'])
    tot[k][r['placement']][1] += int(r['dram_write_bytes'])
print('| sequence | style | read MB | written during the run, MB |')
print('|---|---|---|---|')
for (seq, style), v in tot.items():
    print('| %s | %s | %s | %s |' % (seq, style, spread([x[0] / 1e6 for x in v.values()]),
                                     spread([x[1] / 1e6 for x in v.values()])))

shape, rows = None, defaultdict(lambda: defaultdict(list))
for line in open(R + 'h200-2026-12-01-flash1-drift.txt'):
    if line.startswith('SHAPE'):
        shape = line.split()[1:]
        passes = int(shape[-1].split('=')[1])
        shape = ' '.join(shape[:-1])
    elif line.startswith('PASS'):
        j = int(re.search(r'j=(\d+)', line).group(1))
        if j in (passes // 2, passes - 1):
            rows[shape]['j%d' % j].append(float(re.search(r'spread_us=([\d.]+)', line).group(1)))
    elif line.startswith('END'):
        rows[shape]['end'].append(float(re.search(r'spread_us=([\d.]+)', line).group(1)))
        rows[shape]['kernel'].append(float(re.search(r'kernel_us=([\d.]+)', line).group(1)))
print()
print('| shape | key block: start spread, us (least / median / most of the runs) | end spread, us | kernel, us |')
print('|---|---|---|---|')
for s, v in rows.items():
    js = [k for k in v if k.startswith('j')]
    print('| %s | %s | %s | %.0f |' % (s, '; '.join('%s %s' % (k, spread(v[k])) for k in js), spread(v['end']),
                                      statistics.median(v['kernel'])))
