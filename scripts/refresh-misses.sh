#!/usr/bin/env bash
# Writes every recorded set's known-miss list (docs/results/*-misses.csv)
# again with the current simulator, after a model change that the ratchet
# test (tests/test_recorded_runs.cpp) should hold the model to. The sets are
# the sweeps (NAME-sweep.csv, NAME-measured.toml, NAME-misses.csv) and the
# RecordedSet lines of that test. Review `git diff docs/results` before
# committing: a miss that grew is a regression, not a new baseline.
# Usage (from the repository root): scripts/refresh-misses.sh [FASIM]
set -euo pipefail
F=${1:-build/default/bin/fasim}
R=docs/results
for csv in "$R"/*-sweep.csv; do
  stem=${csv%-sweep.csv}
  "$F" compare --recorded "$csv" --device "$stem-measured.toml" --misses "$stem-misses.csv" >/dev/null
  echo "$stem-misses.csv"
done
# RecordedSet{"CSV", "TOML", "MISSES", N} and check_ratchet({...}) in the test, one set per match.
tr -d '\n' < tests/test_recorded_runs.cpp |
  grep -oE '\{"[^"]+\.csv", *"[^"]+\.toml", *"[^"]+-misses\.csv"' | tr -d '{" ' |
  while IFS=, read -r csv toml misses; do
    "$F" compare --recorded "$R/$csv" --device "$R/$toml" --misses "$R/$misses" >/dev/null
    echo "$R/$misses"
  done
