#!/usr/bin/env bash
# Scores lock step against fasim's own order on every recorded flash1 point of
# the H200 (cold L2) that runs on the line-level L2: each set of
# scripts/recorded-sets.sh is predicted (`fasim compare --recorded --out`),
# each flash1 configuration is replayed by flash1-order-replay-2026-12-01.cpp
# (fasim's order and lock step; configurations off the line-level L2 print
# nothing and drop out), and flash1-order-score-2026-12-01.py counts the
# points within 10% and the mean error, all points and one-wave points
# (132 heads or fewer).
# Usage (from the repository root, after the CPU build):
#   bash docs/results/flash1-order-score-2026-12-01.sh [FASIM]
set -euo pipefail
F=${1:-build/default/bin/fasim}
W=$(mktemp -d)
mkdir -p "$W/pts"
g++ -std=c++20 -O2 -I sim/include -I /usr/include/eigen3 docs/results/flash1-order-replay-2026-12-01.cpp \
  build/default/sim/libfasim_sim.a -ltomlplusplus -o "$W/order-replay"
scripts/recorded-sets.sh | while read -r csv toml misses; do
  "$F" compare --recorded "$csv" --device "$toml" --out "$W/pts/$(basename "$misses").pts.csv" >/dev/null || true
  echo "$(basename "$misses").pts.csv $toml"
done > "$W/sets.txt"
python3 docs/results/flash1-order-score-2026-12-01.py configs "$W" | while read -r toml dtype heads N d br bc; do
  out=$("$W/order-replay" "$toml" flash1 "$dtype" "$heads" "$N" "$d" "$br" "$bc" 2>/dev/null |
        grep -E '^(fasim order|lock step)' | tr '\n' '|' || true)
  echo "$toml $dtype $heads $N $d $br $bc :: $out"
done > "$W/replays.txt"
python3 docs/results/flash1-order-score-2026-12-01.py score "$W"
