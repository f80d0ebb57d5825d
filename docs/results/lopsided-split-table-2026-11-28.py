#!/usr/bin/env python3
"""Tables of the split lopsided probes (lopsided-split-probe-2026-11-28.cu).

Reads ncu's CSV (with the probe's PROBE lines mixed in) and prints, for each
sequence and R, the DRAM MiB read and written by kernel Q and kernel O, the
mean of passes 4 to 6. With --model FILE, the same from the model's replay
(lopsided-split-replay-2026-11-28.cpp), side by side.
Usage: lopsided-split-table-2026-11-28.py NCU.csv [--model REPLAY.txt]
"""
import csv
import sys
from collections import defaultdict

MIB = 1 << 20


def gpu(path):
    labels, values = [], defaultdict(dict)
    rows = []
    for line in open(path):
        if line.startswith('PROBE '):
            labels.append(line.split(' ', 2)[2].strip())
        elif line.startswith('"'):
            rows.append(line)
    for r in csv.DictReader(rows):
        values[int(r['ID'])][r['Metric Name']] = float(r['Metric Value'].replace(',', ''))
    out = {}
    for i, label in enumerate(labels):
        out[label] = (values[i]['dram__bytes_read.sum'] / MIB, values[i]['dram__bytes_write.sum'] / MIB)
    return out


def model(path):
    out = {}
    for line in open(path):
        if line.startswith('S'):
            seq, r, p, k, rd, wr = line.split()
            out[f'{seq} {r} {p} {k}'] = (float(rd), float(wr))
    return out


def table(data):
    """(sequence, R) -> kernel -> [read, written], the mean of passes 4 to 6."""
    t = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    for label, (rd, wr) in data.items():
        seq, r, p, k = label.split()
        if int(p.split('=')[1]) >= 4:
            cell = t[(seq, int(r.split('=')[1]))][k]
            cell[0] += rd / 3
            cell[1] += wr / 3
    return t


g = table(gpu(sys.argv[1]))
m = table(model(sys.argv[3])) if len(sys.argv) > 3 and sys.argv[2] == '--model' else None
print('seq R | GPU: Q read, Q write, O read, O write' + (' | model: the same' if m else ''))
for key in sorted(g):
    row = g[key]
    line = f'{key[0]} {key[1]:2d} | ' + ' '.join(f'{row[k][i]:6.2f}' for k in 'QO' for i in (0, 1))
    if m:
        line += ' | ' + ' '.join(f'{m[key][k][i]:6.2f}' for k in 'QO' for i in (0, 1))
    print(line)
