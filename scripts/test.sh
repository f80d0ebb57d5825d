#!/usr/bin/env bash
# Quick start, step 2: the same set-up, then the whole test suite.
# In CI (CI=true) the build treats warnings as errors.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
fasim_ensure_deps
preset=${FASIM_PRESET:-$([ "${CI:-}" = "true" ] && echo ci || echo default)}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
ctest --preset "$preset"
