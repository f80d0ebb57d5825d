#!/usr/bin/env python3
"""Each placement's DRAM reads from `fasim compare --json --placements 32`.

Reads the placements-NAME.json files of one or more device calls (folders
given as LABEL=DIR) and prints long-form CSV: call, point, process,
placement, pad_mib, dram_read_bytes, dram_write_bytes, and whether the count
is within 0.5% of placement 0's in the same process (same_as_0).
Usage: placement-reuse-2026-11-30.py LABEL=DIR [LABEL=DIR ...] > FILE.csv
"""
import json
import os
import sys

print('call,point,placement,pad_mib,dram_read_bytes,dram_write_bytes,same_as_0,placements_released')
for arg in sys.argv[1:]:
    label, folder = arg.split('=', 1)
    for name in sorted(os.listdir(folder)):
        if not (name.startswith('placements-') and name.endswith('.json')):
            continue
        c = json.load(open(os.path.join(folder, name)))['measurement']['counters']
        runs = c['dram_runs']
        first = runs[0]['read_bytes']
        released = c.get('placements_released', '')
        for k, r in enumerate(runs):
            same = int(k > 0 and abs(r['read_bytes'] - first) <= 0.005 * first)
            print(f"{label},{name[11:-5]},{k},{2 * k},{r['read_bytes']},{r['write_bytes']},{same},{released}")
