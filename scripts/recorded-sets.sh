#!/usr/bin/env bash
# Lists every recorded GPU run that the ratchet test (tests/test_recorded_runs.cpp)
# predicts again, one a line: CSV TOML MISSES, paths from the repository root.
# The sweeps are NAME-sweep.csv with NAME-measured.toml and NAME-misses.csv
# beside them; the other sets are the test's RecordedSet{"CSV", "TOML",
# "MISSES", N} lines. scripts/refresh-misses.sh and the CPU replays in
# docs/results read this list, so a set added to the test is picked up here.
# Usage: scripts/recorded-sets.sh (from any directory)
set -euo pipefail
cd "$(dirname "$0")/.."
R=docs/results
for csv in "$R"/*-sweep.csv; do
  stem=${csv%-sweep.csv}
  echo "$csv $stem-measured.toml $stem-misses.csv"
done
tr -d '\n' < tests/test_recorded_runs.cpp |
  grep -oE '\{"[^"]+\.csv", *"[^"]+\.toml", *"[^"]+-misses\.csv"' | tr -d '{" ' |
  while IFS=, read -r csv toml misses; do echo "$R/$csv $R/$toml $R/$misses"; done
