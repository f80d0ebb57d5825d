#!/usr/bin/env bash
# Quick start, step 2: the same set-up, then the docs (when Doxygen is
# installed; its warnings are errors) and the whole test suite, browser test
# included. In CI (CI=true) the build treats warnings as errors.
# FASIM_BUILD_DIR=DIR builds there instead of build/<preset> (FASIM_PRESET picks the preset).
# With --sanitize, and always in CI, the suite runs a second time built with
# AddressSanitizer and UBSan (the sanitize preset, in build/sanitize or
# FASIM_SANITIZE_BUILD_DIR); the browser test and the [slow] tests (whole
# recorded sweeps predicted again) run only in the first pass.
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize=$([ "${CI:-}" = "true" ] && echo 1 || echo 0)
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=1 ;;
    *) echo "test.sh: unknown option '$arg'; use --sanitize or nothing" >&2; exit 2 ;;
  esac
done
source scripts/deps.sh
fasim_ensure_deps
fasim_ensure_extras
preset=${FASIM_PRESET:-$([ "${CI:-}" = "true" ] && echo ci || echo default)}
dir=${FASIM_BUILD_DIR:-build/$preset}
cmake --preset "$preset" -B "$dir" >/dev/null
cmake --build "$dir"
if command -v doxygen >/dev/null 2>&1; then
  cmake --build "$dir" --target docs
  echo "docs: $dir/docs/html/index.html"
else
  echo "docs: skipped, no doxygen (apt-get install doxygen graphviz doxygen-awesome-css libjs-mathjax)"
fi
# As the test presets do (CMakePresets.json): output on failure, 2 jobs, no tests is an error.
ctest --test-dir "$dir" --output-on-failure -j 2 --no-tests=error
if [ "$sanitize" = 1 ]; then
  sdir=${FASIM_SANITIZE_BUILD_DIR:-build/sanitize}
  cmake --preset sanitize -B "$sdir" >/dev/null
  cmake --build "$sdir"
  ctest --test-dir "$sdir" --output-on-failure -j 2 --no-tests=error -LE 'browser|slow'
fi
