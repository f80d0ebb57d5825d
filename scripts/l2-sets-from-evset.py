#!/usr/bin/env python3
"""Writes configs/l2-sets/h200.txt: the H200 L2 sets the eviction-set probe found.

The probe (docs/results/l2-evset-probe-2026-11-30.cu) searched a 128 MiB buffer
for lines that share an L2 set: for each target line x (TARGET), the lines of
the buffer that evict it (MEMBER). Each finished target is one set; a target
found twice, or a set met again through another target, counts once (the
line-level simulation docs/results/l2-line-sim-2026-11-30.cpp reads them the
same way). The result: 521 sets, one line each in the output, listing every
128-byte line of the buffer (offset / 128, hex) that falls in it. fasim's
line-level L2 (sim/include/fasim/l2_lines.hpp) simulates those sets only.

Usage: python3 scripts/l2-sets-from-evset.py > configs/l2-sets/h200.txt
Run from the repository root.
"""
import gzip
import re

SOURCES = ['docs/results/h200-2026-11-30-l2-evset-sets.txt', 'docs/results/h200-2026-11-30-l2-evset-sets455.txt.gz']


def main():
    target, member = re.compile(r'TARGET \d+ x=(0x[0-9a-f]+)'), re.compile(r'MEMBER (0x[0-9a-f]+)')
    set_of, sets = {}, []
    for path in SOURCES:
        text = gzip.open(path, 'rt').read() if path.endswith('.gz') else open(path).read()
        cur = []
        for line in text.splitlines():
            t, m = target.search(line), member.search(line)
            if t:
                cur = [int(t.group(1), 16) // 128]
            elif m:
                cur.append(int(m.group(1), 16) // 128)
            elif ' done: ' in line and cur:
                ids = [set_of[x] for x in cur if x in set_of]
                sid = ids[-1] if ids else len(sets)
                if sid == len(sets):
                    sets.append(set())
                for x in cur:
                    set_of[x] = sid
                    sets[sid].add(x)
                cur = []
    print('# The H200 L2 sets found by the eviction-set probe (2026-11-30), written by')
    print('# scripts/l2-sets-from-evset.py from docs/results/h200-2026-11-30-l2-evset-sets*.')
    print('# Measured on one 128 MiB buffer of a lent H200 (docs/results/l2-evset-2026-11-30.md).')
    print('# Header: the buffer (window) in bytes; the sets in one L2 half; the ways of a')
    print('# set; the address bits whose XOR gives a line\'s home half (l2-home-map-2026-11-30.md).')
    print('# Then one line per set: every 128-byte line of the window in it (offset / 128, hex),')
    print('# lines of both halves (both halves use one index: l2-window-2026-12-01.md).')
    print('window_bytes 134217728')
    print('sets_per_half 15360')
    print('ways 16')
    print('home_bits 12 13 15 17 19 21 22 23 24 25 26')
    for s in sets:
        print(' '.join('%x' % x for x in sorted(s)))


if __name__ == '__main__':
    main()
