#!/usr/bin/env python3
"""The L2 half of every block of each launch the launch-placement probe
recorded, as a string of A (the first block's half) and B (the other).
Usage: launch-placement-halves-2026-11-28.py LAUNCH-PLACEMENT.txt SM-MAP.txt
Prints "grid per_sm rep halves A-count B-count", one line a launch, then
whether both runs of each shape agreed, and which grids' halves are not
the start of the next larger grid's."""
import collections
import re
import sys

place, smmap = sys.argv[1], sys.argv[2]
slow = collections.defaultdict(list)
for line in open(smmap):
    m = re.match(r"SM rep=\d+ smid=(\d+) mean_cycles=\S+ slow_share=(\S+)", line)
    if m:
        slow[int(m.group(1))].append(float(m.group(2)))
# An SM is next to the half its reference SM reads fast from (slow share < 0.5).
half = {sm: "A" if sum(v) / len(v) < 0.5 else "B" for sm, v in slow.items()}
runs = collections.defaultdict(list)
for line in open(place):
    m = re.match(r"PLACE grid=(\d+) .*per_sm=(\d+) .*rep=(\d+): (.*)", line)
    if not m:
        continue
    s = "".join(half[int(x)] for x in m.group(4).split())
    if s[0] == "B":
        s = s.translate(str.maketrans("AB", "BA"))
    grid, per = int(m.group(1)), int(m.group(2))
    runs[(grid, per)].append(s)
    print(grid, per, m.group(3), s, s.count("A"), s.count("B"))
same = sum(1 for v in runs.values() if len(set(v)) == 1)
print(f"# shapes whose runs agree: {same} of {len(runs)}")
one = {g: v[0] for (g, p), v in runs.items() if p == 1}
both = [g for (g, p) in runs if p == 2 and runs[(g, 2)][0] == one.get(g)]
print(f"# grids at 2 per SM placed as at 1 per SM: {len(both)} of {sum(1 for (g, p) in runs if p == 2)}")
grids = sorted(one)
not_prefix = [g for g, h in zip(grids, grids[1:]) if not one[h].startswith(one[g])]
print(f"# grids whose halves are not the start of the next grid's: {len(not_prefix)} of {len(grids) - 1}")
