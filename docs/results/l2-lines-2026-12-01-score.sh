#!/usr/bin/env bash
# Scores the line-level L2 (sim/include/fasim/l2_lines.hpp) against the count
# model on every recorded set (scripts/recorded-sets.sh): each set is
# predicted again with its device profile as it is ("new": the H200 profiles
# name the sampled sets) and with [l2] sampled_sets taken out ("old": the
# count model everywhere), then l2-lines-2026-12-01-score.py counts the
# points in their bars and lists those whose miss grew.
# Usage (from the repository root, after the CPU build): bash docs/results/l2-lines-2026-12-01-score.sh [FASIM]
set -euo pipefail
F=${1:-build/default/bin/fasim}
W=$(mktemp -d)
mkdir -p "$W/old" "$W/new" "$W/toml"
scripts/recorded-sets.sh | while read -r csv toml misses; do
  b=$(basename "$misses")
  grep -v '^sampled_sets' "$toml" > "$W/toml/$(basename "$toml")"
  "$F" compare --recorded "$csv" --device "$toml" --out "$W/new/$b.pts.csv" >/dev/null || true
  "$F" compare --recorded "$csv" --device "$W/toml/$(basename "$toml")" --out "$W/old/$b.pts.csv" >/dev/null || true
done
cd "$W" && python3 "$OLDPWD/docs/results/l2-lines-2026-12-01-score.py"
