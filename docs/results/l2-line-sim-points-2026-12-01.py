#!/usr/bin/env python3
"""The line-level L2 on fasim's own access stream, over the recorded H200 points.

Takes every H200 point of the recorded sets (scripts/recorded-sets.sh) that
starts with a cold L2 and whose tensors fit in the 128 MiB window the evset
probe sampled (Q, K, V, O and l, m, L or S, P, each on whole 2 MiB pages),
merges the sets that recorded the same point (median of their measurements),
and runs `line-sim s 16 point TOML ...` on each (l2-line-sim-2026-11-30.cpp):
fasim's Simulation, as `fasim compare --recorded` predicts the point, with its
loads and stores fed to the line-level L2 of the sampled sets. Prints one line
a point (measured DRAM MB read and drained, fasim's and the line model's),
then how many land within 10% of the measured reads, for grids of 64 heads
and more (they fill the GPU) and the rest, over all points and over those
that read more than 5% beyond Q, K and V once.

Usage: python3 docs/results/l2-line-sim-points-2026-12-01.py LINE_SIM [SMMAP] [SEEDS]
  LINE_SIM  the built line-sim; SMMAP dealt (default), measured, gpu or gpu-shifted; SEEDS 5
  (DRIFT=J in the environment passes on to line-sim: each block at its own pace)
Run from the repository root.
"""
import csv
import os
import re
import statistics as st
import subprocess
import sys

MIB2 = 2 << 20


def pages(b):
    """MiB of whole 2 MiB pages that b bytes take."""
    return ((b + MIB2 - 1) // MIB2) * 2


def points():
    sets = subprocess.run(['bash', 'scripts/recorded-sets.sh'], capture_output=True, text=True, check=True).stdout
    pts = {}
    for line in sets.splitlines():
        if not line.strip():
            continue
        path, toml = line.split()[:2]
        if 'h200' not in os.path.basename(path):
            continue
        for r in csv.DictReader(open(path)):
            if r['metric'] not in ('dram_read_bytes', 'dram_write_drained_bytes') or r['l2_mode'] != 'cold':
                continue
            if r['algo'] not in ('flash1', 'flash2', 'naive') or not r['measured']:
                continue
            eb = 4 if r['dtype'] == 'fp32' else 2
            bh, n, d = int(r['batch']) * int(r['heads']), int(r['N']), int(r['d'])
            rows = 2 * pages(bh * n * n * eb) if r['algo'] == 'naive' else 3 * pages(bh * n * 4)
            if 4 * pages(bh * n * d * eb) + rows > 128:
                continue
            key = (r['algo'], r['dtype'], bh, n, d, int(r['br']), int(r['bc']), r.get('blocks_per_sm') or '')
            p = pts.setdefault(key, {'toml': toml, 'qkv': 3 * bh * n * d * eb})
            p.setdefault(r['metric'], []).append(float(r['measured']))
    return pts


def main():
    exe = sys.argv[1]
    env = dict(os.environ, SMMAP=sys.argv[2] if len(sys.argv) > 2 else 'dealt',
               SEEDS=sys.argv[3] if len(sys.argv) > 3 else '5')
    rows = []
    for key, p in sorted(points().items()):
        if 'dram_read_bytes' not in p:
            continue
        read = st.median(p['dram_read_bytes']) / 1e6
        drained = st.median(p['dram_write_drained_bytes']) / 1e6 if 'dram_write_drained_bytes' in p else None
        args = [str(x) for x in key[:7]] + ([key[7]] if key[7] else [])
        out = subprocess.run([exe, 's', '16', 'point', p['toml']] + args, capture_output=True, text=True, env=env)
        m = re.match(r'read fasim (\S+) line (\S+) \(\S+\) drained fasim (\S+) line (\S+)', out.stdout)
        if not m:
            print('|'.join(args), 'failed:', out.stderr.strip().splitlines()[-1:])
            continue
        fr, lr, fd, ld = (float(m.group(i)) for i in range(1, 5))
        rows.append((key, read, drained, p['qkv'] / 1e6, fr, lr, fd, ld))
        print('|'.join(args), 'measured read %.1f drained %s; fasim read %.1f drained %.1f; line read %.1f drained %.1f'
              % (read, 'n/a' if drained is None else '%.1f' % drained, fr, fd, lr, ld), flush=True)

    def within(pred, meas):
        return abs(pred - meas) <= 0.1 * meas

    print('\nDRAM reads within 10%% (SMMAP=%s, DRIFT=%s, %s layouts a point):' % (
        env['SMMAP'], env.get('DRIFT', '0'), env['SEEDS']))
    for name, pick in (('all', lambda k: True), ('64 heads and more', lambda k: k[2] >= 64),
                       ('under 64 heads', lambda k: k[2] < 64)):
        sel = [r for r in rows if pick(r[0])]
        beyond = [r for r in sel if r[1] > 1.05 * r[3]]
        print('  %-18s %3d points: fasim %3d, line %3d; beyond Q, K, V once %3d: fasim %3d, line %3d' % (
            name, len(sel), sum(within(r[4], r[1]) for r in sel), sum(within(r[5], r[1]) for r in sel),
            len(beyond), sum(within(r[4], r[1]) for r in beyond), sum(within(r[5], r[1]) for r in beyond)))
    w = [r for r in rows if r[2] is not None]
    print('  drained writes within 10%%, %d points measured: fasim %d, line %d' % (
        len(w), sum(within(r[6], r[2]) for r in w), sum(within(r[7], r[2]) for r in w)))


if __name__ == '__main__':
    main()
