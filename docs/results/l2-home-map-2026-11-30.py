#!/usr/bin/env python3
"""Tables of the L2 home-map probe (l2-home-map-probe-2026-11-30.cu).

--home MAP.txt: per 2 MiB page, which address bits (5 or 7 to 20) change a
  line's home half when flipped: `1` always, `0` never, `?` sometimes (a
  home that is an XOR of address bits shows only 1 and 0); then each page's
  home of offset 0 (1: the reference SM's half), which the bits above 20
  (physical, not seen) decide.
--near NEAR.txt.gz: per SM, the mean |difference| in near-hit cycles between
  a line and the line with one address bit flipped (7 to 20; flipping a bit
  the cache's placement ignores gives the timing noise, 2 to 5 cycles), and
  the flips XOR-ed from several bits that change nothing (among those named
  in CANDIDATES: the kernel of a linear placement hash, found by brute force
  offline).
"""
import gzip
import sys

# Flips found to leave near-hit timing unchanged on the 2026-11-30 H200 (all
# 16383 tried offline, scores 2.2 to 4.7 against a median of 19.3).
CANDIDATES = [(9,), (7,), (8, 10, 11, 14, 16), (7, 9), (8, 9, 10, 11, 14, 16), (11, 12, 13, 14, 16), (12, 13, 16)]


def pages(path):
    for line in open(path):
        if line.startswith('PAGE '):
            w = line.split()
            bits = []
            for ch in w[6]:
                n = int(ch, 16)
                bits += [(n >> j) & 1 for j in range(4)]
            yield int(w[1]), w[2].split('=')[1], int(w[3].split('=')[1]), bits


def home(path):
    print('| page | va | unit (B) | homed next to the reference SM | flip changes home, bit lo..20 |')
    print('|---|---|---|---|---|')
    firsts = []
    for k, va, unit, bits in pages(path):
        lo = {128: 7, 32: 5}[unit]
        tag = ''
        for b in range(lo, 21):
            s = 1 << (b - lo)
            d = sum(bits[x] != bits[x ^ s] for x in range(len(bits))) / len(bits)
            tag += '1' if d > 0.99 else '0' if d < 0.01 else '?'
        if unit == 128:
            firsts.append(bits[0])
        in_hash = [b for i, b in enumerate(range(lo, 21)) if tag[i] == '1']
        print(f'| {k} | {va} | {unit} | {sum(bits) / len(bits):.3f} | {tag} ({" ".join(map(str, in_hash))}) |')
    print()
    print('home of offset 0, page by page:', ''.join(map(str, firsts)))


def near(path):
    rows = [(l.split()[1].removeprefix('sm='), [int(x) for x in l.split()[5:]]) for l in gzip.open(path, 'rt') if l.startswith('NEAR')]
    print('| SM | cycles least / most | mean abs difference, bit 7 .. 20 flipped |')
    print('|---|---|---|')
    for sm, c in rows:
        n = len(c)
        diffs = [sum(abs(c[x] - c[x ^ (1 << (b - 7))]) for x in range(n)) / n for b in range(7, 21)]
        print(f'| {sm} | {min(c)} / {max(c)} | {" ".join(f"{d:.0f}" for d in diffs)} |')
    print()
    print('| flip (bits) | mean abs difference over all SMs |')
    print('|---|---|')
    for bits in CANDIDATES:
        a = sum(1 << (b - 7) for b in bits)
        t = sum(abs(c[x] - c[x ^ a]) for _, c in rows for x in range(len(c))) / (len(rows) * len(rows[0][1]))
        print(f'| {" ".join(map(str, bits))} | {t:.2f} |')


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == '--home':
        home(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == '--near':
        near(sys.argv[2])
    else:
        sys.exit(__doc__)
