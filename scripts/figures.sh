#!/usr/bin/env bash
# Regenerates the figures in docs/figures/ from fresh sweeps (counting only,
# seconds on a laptop). Usage: scripts/figures.sh [path/to/fasim]
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
echo "figures: wrote $(ls "$out" | tr '\n' ' ')"
