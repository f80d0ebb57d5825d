#!/usr/bin/env bash
# Builds and runs the simulator benchmarks; prints times and the ratios
# against baselines measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
fasim_ensure_deps
cmake --preset default >/dev/null
cmake --build --preset default --target fasim_bench
build/default/bin/fasim_bench "$@"
