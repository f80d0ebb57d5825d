#!/usr/bin/env python3
"""Homes of the line-home probe (line-home-probe-2026-11-29.cu), and the room
the readers patterns need in each L2 half.

Reads the probe's output (HOME lines: a 4 KiB chunk and 32 bits, bit i set
when line i was slow from the far SM, that is homed next to SM 124; the
BLOCKS lines of its A132 and I132 sequences) and the board's SM map (the
SM-partition probe's output: slow_share above 0.25 is the half away from
SM 124). Prints how the homes are laid out, then for each sequence the MiB
homed in each half and the MiB of copies each half keeps for its readers
(fasim's rule, l2_partitions.hpp: a line read from the far half leaves a
copy next to the reader).
Usage: readers-footprint-2026-11-29.py LINE-HOME.csv SM-MAP.txt
"""
import collections
import sys

MIB = 1 << 20
bits, blocks = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if line.startswith('HOME '):
        bits[int(f[1])] = int(f[2], 16)
    elif line.startswith('BLOCKS '):
        blocks[(f[1], int(f[2][2:]))] = [int(x) for x in f[4:]]
half = {}
for line in open(sys.argv[2]):
    if line.startswith('SM rep=0'):
        kv = dict(x.split('=') for x in line.split()[1:])
        half[int(kv['smid'])] = 0 if float(kv['slow_share']) < 0.25 else 1  # 0: SM 124's half

counts = collections.Counter(bin(b).count('1') for b in bits.values())
print('slow lines in a 4 KiB chunk (of 32): chunks', dict(sorted(counts.items())))
home = {c: 0 if bin(b).count('1') > 16 else 1 for c, b in bits.items()}  # the chunk's majority
pairs = sum(home[2 * k] != home[2 * k + 1] for k in range(len(home) // 2))
print(f'aligned 8 KiB pairs with one chunk in each half: {pairs} of {len(home) // 2}')
print('half of the first chunk of pairs 0 to 63:', ''.join(str(home[2 * k]) for k in range(64)))
for (name, f), sm_of_block in sorted(blocks.items()):
    n, chunks = len(sm_of_block), f * MIB // 4096
    dealt = name.startswith('I')
    per = (chunks + n - 1) // n if dealt else chunks // n
    homes, copies = [0, 0], [0, 0]
    for b in range(n):
        for k in range(per):
            c = b + k * n if dealt else b * per + k
            if c >= chunks:
                continue
            reader = half[sm_of_block[b]]
            homes[home[c]] += 4096
            if home[c] != reader:
                copies[reader] += 4096
    room = [(homes[h] + copies[h]) / MIB for h in (0, 1)]
    print(f'{name} F={f}: homed {homes[0] / MIB:.1f} / {homes[1] / MIB:.1f}, copies {copies[0] / MIB:.1f} / '
          f'{copies[1] / MIB:.1f}, room {room[0]:.1f} / {room[1]:.1f} MiB (half of SM 124 / the other)')
