#!/usr/bin/env python3
"""Tables of the L2 stride probe (l2-stride-probe-2026-11-30.cu).

--long NCU.csv: the long form (h200-2026-11-30-l2-stride.csv,
  -subsets.csv), one row a kernel: footprint_mib, subset (b0: one run; bB:
  address bit B held at 0; xM: the 4 KiB units u with u & M of even parity;
  rS: a random half, seed S), placement, pass, DRAM bytes read and written.
--table LONG.csv: MB read in passes 2 to 4 (after the first, which reads
  everything once), median over placements (least to most), per footprint
  and subset.
"""
import csv
import statistics
import sys
from collections import defaultdict


def long_form(path):
    labels, rows = [], []
    for line in open(path):
        if line.startswith('PROBE '):
            name, p = line.split()[1], line.split()[2].split('=')[1]
            parts = name.split('/')  # S/F../SUBSET[/two|/shift]/pK
            f, subset, pl = parts[1], '/'.join(parts[2:-1]), parts[-1]
            labels.append((f[1:], subset, pl[1:], p))
        elif line.startswith('"'):
            rows.append(line)
    values = defaultdict(dict)
    for r in csv.DictReader(rows):
        values[int(r['ID'])][r['Metric Name']] = int(r['Metric Value'].replace(',', ''))
    out = csv.writer(sys.stdout, lineterminator='\n')
    out.writerow(['footprint_mib', 'subset', 'placement', 'pass', 'dram_read_bytes', 'dram_write_bytes'])
    for i, (f, b, pl, p) in enumerate(labels):
        out.writerow([f, b, pl, p, values[i]['dram__bytes_read.sum'], values[i]['dram__bytes_write.sum']])


def table(path):
    later = defaultdict(lambda: defaultdict(float))
    for r in csv.DictReader(open(path)):
        if int(r['pass']) > 1:
            later[(int(r['footprint_mib']), r['subset'])][r['placement']] += int(r['dram_read_bytes']) / 1e6
    feet = sorted({f for f, _ in later})
    order = {}  # subsets in the order first seen
    for _, b in later:
        order.setdefault(b, len(order))
    bits = sorted(order, key=order.get)
    print('| subset | ' + ' | '.join(f'F = {f} MiB' for f in feet) + ' |')
    print('|---|' + '---|' * len(feet))
    for b in bits:
        cells = []
        for f in feet:
            v = sorted(later[(f, b)].values())
            cells.append(f'{statistics.median(v):.1f} ({v[0]:.1f}-{v[-1]:.1f})' if v else '')
        print(f'| {"one run" if b == "b0" else b} | ' + ' | '.join(cells) + ' |')


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == '--long':
        long_form(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == '--table':
        table(sys.argv[2])
    else:
        sys.exit(__doc__)
