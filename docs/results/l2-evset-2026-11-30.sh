#!/usr/bin/env bash
# One device call (H200): the L2 eviction-set probe (l2-evset-probe-2026-11-30.cu)
# for TARGETS target lines (default 3; MODE=sets: at random, their sets
# only; MODE=replacement: also the scan and thrash tests of the
# replacement policy), cut off after LIMIT seconds (default 300); no ncu; caches and
# clocks left as they are. Writes $OUT/evset.txt (gzipped with MODE=sets)
# and gpu.txt.
set -u
R=docs/results; B=$(mktemp -d); OUT=${OUT:-/tmp}
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader | tee "$OUT"/gpu.txt
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o "$B"/evset "$R"/l2-evset-probe-2026-11-30.cu || exit 1
start=$SECONDS
timeout "${LIMIT:-300}" "$B"/evset "${TARGETS:-3}" ${MODE:+"$MODE"} > "$OUT/evset.txt"
echo "evset: rc=$? $((SECONDS - start)) s"
grep -vE '^MEMBER' "$OUT/evset.txt"
grep -c '^MEMBER' "$OUT/evset.txt"
[ "${MODE:-}" = sets ] && gzip -f "$OUT/evset.txt"  # a large sample is several MB of MEMBER lines
