#!/usr/bin/env bash
# ctest entry of the browser test: the trace viewer page that `fasim trace
# --html` writes, opened in headless Chromium (Debian's chromium) and driven by
# playwright-core (npm, pinned in package-lock.json, installed into the build
# directory). Skips (exit 77) with the reason only when there is no Chromium.
#   run.sh FASIM OUT_DIR
set -euo pipefail
fasim=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
chromium=${FASIM_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "SKIPPED: no Chromium at $chromium; install Debian's chromium (apt-get install chromium, or scripts/test.sh as root)"
  exit 77
fi
command -v node >/dev/null && command -v npm >/dev/null || {
  echo "FAILED: node and npm are needed to drive Chromium (Debian: apt-get install nodejs npm)"
  exit 1
}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# playwright-core as locked, unless that version is already there.
want=$(node -p "require('$here/package-lock.json').packages['node_modules/playwright-core'].version")
have=$(node -p "try { require('$out/node_modules/playwright-core/package.json').version } catch (e) { '' }")
if [ "$want" != "$have" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$out/"
  (cd "$out" && npm ci --no-audit --no-fund --loglevel=error)
fi
NODE_PATH="$out/node_modules" exec node "$here/viewer.test.mjs" "$fasim" "$out" "$chromium"
