#!/usr/bin/env python3
"""Table of the readers probe (readers-probe-2026-11-29.cu).

Reads ncu's CSV (with the probe's PROBE and BLOCKS lines mixed in) and
prints, for each sequence and F, the DRAM MiB read a pass (the mean of
passes 4 to 6) and that as a share of F. Each --model FILE (the output of
readers-replay-2026-11-29.cpp) adds a column of the model's reads.
With --long, it prints instead the long form that tests/test_l2_probes.cpp
replays (h200-2026-11-29-readers-probe.csv): one row a kernel, with the SMs
of the sequence's blocks (its BLOCKS line) in the last field.
Usage: readers-table-2026-11-29.py NCU.csv [--model LABEL=REPLAY.txt ...]
       readers-table-2026-11-29.py NCU.csv --long
"""
import csv
import sys
from collections import defaultdict

MIB = 1 << 20


def gpu(path):
    labels, values, rows = [], defaultdict(dict), []
    for line in open(path):
        if line.startswith('PROBE '):
            labels.append(line.split()[2:5])  # NAME F=.. pass=..
        elif line.startswith('"'):
            rows.append(line)
    for r in csv.DictReader(rows):
        values[int(r['ID'])][r['Metric Name']] = float(r['Metric Value'].replace(',', ''))
    return {tuple(label): values[i]['dram__bytes_read.sum'] / MIB for i, label in enumerate(labels)}


def model(path):
    return {tuple(line.split()[:3]): float(line.split()[3]) for line in open(path) if line.strip()}


def per_pass(data):
    """(name, F) -> the mean DRAM MiB read by passes 4 to 6."""
    t = defaultdict(float)
    for (name, f, p), rd in data.items():
        if int(p.split('=')[1]) >= 4:
            t[(name, int(f.split('=')[1]))] += rd / 3
    return t


def long_form(path):
    data = gpu(path)
    writes = {}
    rows, labels = [], []
    for line in open(path):
        if line.startswith('PROBE '):
            labels.append(tuple(line.split()[2:5]))
        elif line.startswith('"'):
            rows.append(line)
    for r in csv.DictReader(rows):
        if r['Metric Name'] == 'dram__bytes_write.sum':
            writes[labels[int(r['ID'])]] = int(r['Metric Value'].replace(',', ''))
    sms = {}
    for line in open(path):
        if line.startswith('BLOCKS '):
            f = line.split()
            sms[(f[1], f[2])] = ' '.join(f[4:])
    print('sequence,f_mib,pass,dram_read_bytes,dram_write_bytes,sms')
    for (name, f, p), rd in data.items():
        print(f"{name},{f.split('=')[1]},{p.split('=')[1]},{round(rd * MIB)},{writes[(name, f, p)]},{sms[(name, f)]}")


if sys.argv[2:] == ['--long']:
    long_form(sys.argv[1])
    sys.exit(0)
g = per_pass(gpu(sys.argv[1]))
models = []
for arg in sys.argv[2:]:
    if arg != '--model':
        label, path = arg.split('=', 1)
        models.append((label, per_pass(model(path))))
print('| sequence | F (MiB) | GPU: MiB read a pass | share of F |' + ''.join(f' {m[0]} |' for m in models))
print('|---|---|---|---|' + '---|' * len(models))
order = {'L16': 0, 'A132': 1, 'I132': 2}
for key in sorted(g, key=lambda k: (order.get(k[0], 9), k[1])):
    row = f'| {key[0]} | {key[1]} | {g[key]:.2f} | {g[key] / key[1]:.2f} |'
    row += ''.join(f' {m[1][key]:.2f} |' for m in models)
    print(row)
