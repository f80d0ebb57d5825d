#!/usr/bin/env python3
"""Tables of the flash1-pattern probe (flash1-pattern-probe-2026-11-30.cu).

--long NCU.csv: the long form committed as h200-2026-11-30-flash1-pattern.csv,
  one row a kernel: sequence (without placement, style and spin), placement,
  style, spin, pass (a number, or `all` for one kernel running every pass),
  DRAM bytes read and written, the SMs of the sequence's blocks (its BLOCKS
  line, where the probe printed one) and its SKEW figures (per pass, the
  spread of the blocks' start times / the mean pass time, us).
--table LONG.csv [FLASH1.json ...]: DRAM MB read over all passes, per
  sequence and style, the least / median / most over placements; each
  FLASH1.json (`fasim compare --json --placements K`) adds flash1's own
  reads over its K placements.
"""
import csv
import json
import statistics
import sys
from collections import defaultdict


def long_form(path):
    labels, rows, skew, sms = [], [], {}, {}
    for line in open(path):
        if line.startswith('BLOCKS '):  # BLOCKS NAME HEADS: SM SM ...
            sms[line.split()[1]] = ' '.join(line.split(':', 1)[1].split())
        elif line.startswith('PROBE '):
            labels.append((line.split()[2], line.split()[3].split('=')[1]))
        elif line.startswith('SKEW '):
            skew[line.split()[1]] = ' '.join(line.split()[2:])
        elif line.startswith('"'):
            rows.append(line)
    values = defaultdict(dict)
    for r in csv.DictReader(rows):
        values[int(r['ID'])][r['Metric Name']] = int(r['Metric Value'].replace(',', ''))
    out = csv.writer(sys.stdout, lineterminator='\n')
    out.writerow(['sequence', 'placement', 'style', 'spin', 'pass', 'dram_read_bytes', 'dram_write_bytes', 'sms',
                  'skew_us'])
    for i, (name, p) in enumerate(labels):
        parts = name.split('/')
        if name.startswith('F1'):  # F1[-variant]/N/d/br/bc[/hH]/pK/style/spin
            seq, placement, style, spin = '/'.join(parts[:-3]), parts[-3], parts[-2], parts[-1]
        else:  # R132/F44/pK/style
            seq, placement, style, spin = '/'.join(parts[:2]), parts[2], parts[3], 'spin0'
        out.writerow([seq, placement[1:], style, spin, p, values[i]['dram__bytes_read.sum'],
                      values[i]['dram__bytes_write.sum'], sms.get(name, ''), skew.get(name, '')])


def table(path, flash1):
    reads = defaultdict(lambda: defaultdict(float))
    for r in csv.DictReader(open(path)):
        reads[(r['sequence'], r['style'] + '/' + r['spin'])][r['placement']] += int(r['dram_read_bytes']) / 1e6
    print('| sequence | launch style | DRAM MB read: least | median | most | placements |')
    print('|---|---|---|---|---|---|')
    for (seq, style), per in reads.items():
        v = sorted(per.values())
        print(f'| {seq} | {style} | {v[0]:.1f} | {statistics.median(v):.1f} | {v[-1]:.1f} | {len(v)} |')
    for f in flash1:
        j = json.load(open(f))
        v = sorted(x['read_bytes'] / 1e6 for x in j['measurement']['counters']['dram_runs'])
        print(f'| flash1 itself ({f.split("/")[-1]}) | one kernel | {v[0]:.1f} | {statistics.median(v):.1f} | '
              f'{v[-1]:.1f} | {len(v)} |')


if __name__ == '__main__':
    if len(sys.argv) >= 3 and sys.argv[1] == '--long':
        long_form(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == '--table':
        table(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
