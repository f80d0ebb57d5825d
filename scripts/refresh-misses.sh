#!/usr/bin/env bash
# Writes every recorded set's known-miss list (docs/results/*-misses.csv)
# again with the current simulator, after a model change that the ratchet
# test (tests/test_recorded_runs.cpp) should hold the model to. The sets are
# those scripts/recorded-sets.sh lists. Review `git diff docs/results` before
# committing: a miss that grew is a regression, not a new baseline.
# (The L2 fabric's misses, *-fabric-*-misses.csv, are kept by hand:
# tests/test_recorded_fabric.cpp.)
# Usage (from the repository root): scripts/refresh-misses.sh [FASIM]
set -euo pipefail
F=${1:-build/default/bin/fasim}
scripts/recorded-sets.sh | while read -r csv toml misses; do
  "$F" compare --recorded "$csv" --device "$toml" --misses "$misses" >/dev/null
  echo "$misses"
done
