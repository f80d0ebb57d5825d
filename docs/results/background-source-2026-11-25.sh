#!/usr/bin/env bash
# Run on a lent GPU (the device tool): which unit writes the GPU's own DRAM
# pieces? ncu (clocks left alone, caches flushed before each pass) collects
# every write breakdown of lts__t_sectors and lts__t_requests and the DRAM
# bytes around an idle kernel of 300 ms (one warp per SM waiting on
# %globaltimer, no memory touched), 3 times. Prints the metrics that are not
# zero in any run. Writes under $OUT (or /tmp/bg).
set -euo pipefail
cd "$(dirname "$0")"
O=${OUT:-/tmp/bg}; mkdir -p "$O"
nvcc -O2 -arch=sm_90 -o "$O/background_probe" background-source-2026-11-25.cu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ncu --query-metrics --chip gh100 > "$O/metrics.txt"
M=$(awk '/^(lts__t_sectors|lts__t_requests|lts__d_|dram__|fbpa__dram)/ && /write|dram|evict|fill/ {print $1".sum"}' "$O/metrics.txt" | paste -sd,)
for r in 1 2 3; do
  ncu --clock-control none --cache-control all --metrics "$M" --csv "$O/background_probe" "${1:-300}" > "$O/ncu-$r.csv" 2>/dev/null
done
rm -f "$O/metrics.txt" "$O/background_probe"
python3 - "$O" <<'P'
import csv, io, sys, collections
vals = collections.defaultdict(list)
for r in (1, 2, 3):
    t = open(f"{sys.argv[1]}/ncu-{r}.csv").read()
    for row in csv.DictReader(io.StringIO(t[t.find('"ID"'):])):
        try: vals[row['Metric Name']].append(float(row['Metric Value'].replace(',', '')))
        except ValueError: pass
for k, v in sorted(vals.items()):
    if any(v): print(f"{k:80} {' '.join(f'{x:12.0f}' for x in v)}")
P
