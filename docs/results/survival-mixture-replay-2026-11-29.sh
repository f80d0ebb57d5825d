#!/bin/bash
# CPU replay for the 2026-11-29 section of small-grid-placement-2026-11-28.md:
# the recorded sets CI holds, predicted again by the fasim binary FASIM, in
# the tree TREE (whose docs/results it reads), scored as in
# small-grid-placement-replay-2026-11-28.sh, plus the two recorded sweeps of
# issue 4's bar (h100- and h200-2026-11-22-sweep.csv) on their own.
# One line: sets r READS w WRITES W WRITES>=1MiB e SUMMED-ERROR-MiB, then the
# sweeps' reads and writes within 10%, then the same for the hold-out.
# The variants: a worktree of 71b4a76 with small-grid-placement-experiment-
# 2026-11-28.patch and then survival-mixture-switches-2026-11-29.patch
# applied, built there (FASIM_CUDA=OFF), run with the switches in the
# environment:
#   FASIM_WAYS=W        ways of a set (the patch's profiles: 64)
#   FASIM_RW=r          kL2RewrittenCleanShare (the patch: 0.05)
#   FASIM_MIX_A=a       a share a of lines survives on a second curve:
#   FASIM_MIX_W=W2        P(Poisson(W2 x / rho) < W2), x the capacities
#   FASIM_MIX_RHO=rho     used since (defaults 0, 8, 1.5)
#   FASIM_MIX_WB=0      write-back schedules (dirty and rewritten data) keep
#                       the plain W-way curve (default 1: the mixture)
# Usage: TREE=DIR docs/results/survival-mixture-replay-2026-11-29.sh FASIM TAG
set -euo pipefail
F=$(realpath "${1:?usage: TREE=DIR $0 FASIM TAG}"); tag=${2:?usage: TREE=DIR $0 FASIM TAG}
cd "${TREE:?set TREE to the tree FASIM was built from}"
out=$(mktemp -d); mkdir -p "$out/sets" "$out/holdout"
scripts/recorded-sets.sh | while read -r csv toml _; do
  case "$csv" in *small-grid-holdout*) dir=holdout ;; *) dir=sets ;; esac
  echo "$csv $toml $out/$dir/$(basename "$csv")"
done | F=$F xargs -P2 -n3 sh -c '"$F" compare --recorded "$0" --device "$1" --out "$2" >/dev/null'
python3 - "$out" "$tag" <<'PY'
import csv, glob, sys
res = []
for part in ("sets", "holdout"):
    n = {"read": 0, "write": 0, "big": 0}; err = 0.0; sw = {}
    for f in sorted(glob.glob(f"{sys.argv[1]}/{part}/*.csv")):
        for r in csv.DictReader(open(f)):
            if r["metric"] not in ("dram_read_bytes", "dram_write_bytes"): continue
            p, m = float(r["predicted"]), float(r["measured"])
            ok = abs(p - m) <= 0.1 * m if m > 0 else p == 0
            kind = "read" if r["metric"] == "dram_read_bytes" else "write"
            n[kind] += ok
            if f.endswith("-2026-11-22-sweep.csv"):
                k = f.split("/")[-1][:4] + kind[0]; sw[k] = sw.get(k, 0) + ok
            if kind == "write" and m >= 2**20:
                n["big"] += ok; err += abs(p - m) / 2**20
    res.append(f"{part[:4]} r{n['read']} w{n['write']} W{n['big']} e{err:.0f}" +
               (" sweeps " + " ".join(f"{k}{v}" for k, v in sorted(sw.items())) if sw else ""))
print(sys.argv[2], " | ".join(res))
PY
rm -rf "$out"
