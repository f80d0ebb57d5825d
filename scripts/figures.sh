#!/usr/bin/env bash
# Regenerates every figure in docs/figures/ with fasim: fresh sweeps for the
# simulator's figures (counting only, seconds on a laptop), and the recorded
# GPU comparisons in docs/results/*.csv, whatever is there, predicted again, for
# predicted-vs-measured, the newest scripts/gpu-bench.sh CSV for gpu-bench; and a screenshot of the trace viewer (headless
# Chromium, when installed). The README and the docs embed these files.
# Usage: scripts/figures.sh [path/to/fasim]
set -euo pipefail
cd "$(dirname "$0")/.."
fasim=${1:-build/default/bin/fasim}
[ -x "$fasim" ] || { echo "figures: $fasim not found; build first (scripts/quickstart.sh)" >&2; exit 2; }
out=docs/figures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
"$fasim" sweep --N 512:16384:x2 --algo naive,flash1,flash2 --heads 16 --out "$tmp/n.csv"
"$fasim" plot "$tmp/n.csv" --figure bytes-vs-n --out "$out/bytes-vs-n.svg"
"$fasim" plot "$tmp/n.csv" --figure roofline --out "$out/roofline.svg"
"$fasim" sweep --algo flash1 --N 4096 --heads 16 --bc 16:256:x2 --br 64 --out "$tmp/b.csv"
"$fasim" plot "$tmp/b.csv" --figure block-size --out "$out/block-size.svg"
# The comparisons `fasim compare --sweep` recorded (long form: a metric column),
# each predicted again with today's simulator (`compare --recorded --out`): the
# profile beside NAME-sweep.csv, else the newest measured profile of the same
# GPU (the file names start with it: h200-..., h100-...).
results=()
for f in docs/results/*.csv; do
  # Recorded runs only: experiments with columns of their own in front (the
  # placements' pad_mib) are not `compare --recorded` input.
  [ -f "$f" ] && head -1 "$f" | grep -q '^device,driver,date,.*,metric,predicted,measured' || continue
  profile=${f%-sweep.csv}-measured.toml
  gpu=$(basename "$f" | cut -d- -f1)
  [ -f "$profile" ] || profile=$(ls docs/results/"$gpu"-*-measured.toml 2>/dev/null | sort | tail -1)
  [ -n "$profile" ] || { echo "figures: no docs/results/$gpu-*-measured.toml for $f; left out" >&2; continue; }
  again="$tmp/$(basename "$f")"
  "$fasim" compare --recorded "$f" --device "$profile" --out "$again" >/dev/null
  results+=("$again")
done
if [ ${#results[@]} -gt 0 ]; then
  "$fasim" plot "${results[@]}" --figure predicted-vs-measured --out "$out/predicted-vs-measured.svg"
else
  echo "figures: no recorded comparisons in docs/results/*.csv; predicted-vs-measured.svg left as it is" >&2
fi
# What scripts/gpu-bench.sh measured: fasim's kernels beside PyTorch's (the newest CSV).
bench=$(ls docs/results/*-gpu-bench.csv 2>/dev/null | sort | tail -1)
if [ -n "$bench" ]; then
  "$fasim" plot "$bench" --figure gpu-bench --out "$out/gpu-bench.svg"
else
  echo "figures: no docs/results/*-gpu-bench.csv; gpu-bench.svg left as it is" >&2
fi
# The trace viewer, as a person sees it, at step 158 of a small flash2 run.
chromium=${FASIM_CHROMIUM:-/usr/bin/chromium}
if [ -x "$chromium" ]; then
  "$fasim" trace --html "$tmp/trace.html" --algo flash2 --N 128 --d 32 --br 16 --bc 16 --row 37 >/dev/null
  "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --disable-sync \
    --disable-background-networking --disable-component-update --user-data-dir="$tmp/chromium" \
    --window-size=1360,860 --virtual-time-budget=3000 --screenshot="$out/trace-viewer.png" \
    "file://$tmp/trace.html#step=158" 2>/dev/null
else
  echo "figures: no Chromium at $chromium; trace-viewer.png left as it is" >&2
fi
echo "figures: wrote $(ls "$out" | tr '\n' ' ')"
