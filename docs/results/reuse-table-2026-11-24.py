#!/usr/bin/env python3
"""Reads the reuse probe's ncu output (reuse-2026-11-24.sh) and prints, per
sequence and B, the DRAM MiB of the last read of A and of the read of B
and the DRAM MiB written while B and then A are read (U3, U4), each rep. Usage: reuse-table-2026-11-24.py reuse.csv [--long]
--long prints the long-form CSV instead: sequence,b_mib,rep,kernel,dram_read_bytes,dram_write_bytes."""
import csv
import sys

def load(path):
    labels, rows = {}, {}
    for r in csv.reader(open(path)):
        if not r:
            continue
        if r[0].startswith('PROBE'):
            p = r[0].split()
            labels[int(p[1])] = p[2:]
        elif r[0].isdigit():
            rows.setdefault(int(r[0]), {})[r[-3]] = int(r[-1].replace(',', ''))
    out = []
    for i in sorted(rows):
        seq, b, rep, what = labels[i]
        out.append((seq, int(b[2:]), int(rep[4:]), what, rows[i]['dram__bytes_read.sum'], rows[i]['dram__bytes_write.sum']))
    return out

def main():
    data = load(sys.argv[1])
    if '--long' in sys.argv:
        print('sequence,b_mib,rep,kernel,dram_read_bytes,dram_write_bytes')
        for d in data:
            print(','.join(str(x) for x in d))
        return
    get = {(s, b, rep, w): (rd, wr) for s, b, rep, w, rd, wr in data}
    mib = 2.0 ** 20
    print('last read of A (16 MiB): DRAM MiB read, rep 1 / rep 2; DRAM MiB written while B and A are read (U3, U4)')
    print('   B   U1 once      U2 twice     U3 dirty     U4 dirty+read   wr U3       wr U4')
    for b in sorted({k[1] for k in get}):
        cells = []
        for u in ('U1', 'U2', 'U3', 'U4'):
            cells.append(' / '.join('%5.1f' % (get[(u, b, r, 'A')][0] / mib) for r in (1, 2)))
        wr = []
        for u in ('U3', 'U4'):
            w = [sum(get.get((u, b, r, k), (0, 0))[1] for k in ('B', 'A')) / mib for r in (1, 2)]
            wr.append('%4.1f/%4.1f' % tuple(w))
        print('  %2d  %s   %s' % (b, '   '.join(cells), '  '.join(wr)))

main()
