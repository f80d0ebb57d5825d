#!/usr/bin/env bash
# Quick start, step 1: install what is missing, build, run a first simulation.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
fasim_ensure_deps
preset=${FASIM_PRESET:-default}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" --target fasim   # the tests build with scripts/test.sh
echo
echo "$ build/$preset/bin/fasim run --scenario configs/scenarios/quickstart.toml"
"build/$preset/bin/fasim" run --scenario configs/scenarios/quickstart.toml
