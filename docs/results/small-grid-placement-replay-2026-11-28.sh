#!/bin/bash
# CPU replay for small-grid-placement-2026-11-28.md: predicts every recorded
# set CI holds again with the fasim binary $1 and scores the DRAM points:
# within 10% of the GPU (reads, writes, writes of 1 MiB or more) and the
# summed error of those writes in MiB. The held-out set
# (h200-2026-11-28-small-grid-holdout.csv) is scored on its own line.
# Usage, from the root of the tree FASIM was built from (the patch also gives
# the recorded profiles their small-grid halves, so the candidate must read
# its own tree's docs/results):
#   FASIM_OUT=DIR docs/results/small-grid-placement-replay-2026-11-28.sh FASIM
# The candidate: a worktree of this commit with
# small-grid-placement-experiment-2026-11-28.patch applied, fasim built
# there. fasim as committed: build/default/bin/fasim from this tree.
set -euo pipefail
F=${1:?usage: $0 FASIM}
out=${FASIM_OUT:-$(mktemp -d)}
mkdir -p "$out/sets" "$out/holdout"
scripts/recorded-sets.sh | while read -r csv toml _; do
  case "$csv" in *small-grid-holdout*) dir=holdout ;; *) dir=sets ;; esac
  "$F" compare --recorded "$csv" --device "$toml" --out "$out/$dir/$(basename "$csv")" >/dev/null
done
python3 - "$out" <<'PY'
import csv, glob, sys
for part in ("sets", "holdout"):
    files = sorted(glob.glob(f"{sys.argv[1]}/{part}/*.csv"))
    n = {"read": 0, "write": 0, "big": 0}; total = 0; err = 0.0
    for f in files:
        for r in csv.DictReader(open(f)):
            if r["metric"] not in ("dram_read_bytes", "dram_write_bytes"): continue
            p, m = float(r["predicted"]), float(r["measured"])
            ok = abs(p - m) <= 0.1 * m if m > 0 else p == 0
            kind = "read" if r["metric"] == "dram_read_bytes" else "write"
            total += kind == "read"; n[kind] += ok
            if kind == "write" and m >= 2**20:
                n["big"] += ok; err += abs(p - m) / 2**20
    print(f"{part}: {len(files)} files, {total} points a metric; DRAM within 10%: reads {n['read']}, "
          f"writes {n['write']}, writes of 1 MiB or more {n['big']}; their summed error {err:.0f} MiB")
PY
