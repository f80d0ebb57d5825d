#!/usr/bin/env bash
# One device call (H200): the L2 eviction-set probe (l2-evset-probe-2026-11-30.cu)
# for TARGETS target lines (default 3; MODE=sets: at random, their sets
# only; MODE=replacement: also the scan, store, other-half and thrash tests
# of the replacement policy; MODE=window: then re-reads of the sampled
# window with DRAM bytes from fasim's CUPTI code), cut off after LIMIT
# seconds (default 300); no ncu; caches and clocks left as they are. Writes
# $OUT/evset.txt (gzipped with MODE=sets) and gpu.txt.
# MODE=window runs build/gpu-carry/evset-window, built on the development
# machine by `bash docs/results/l2-evset-2026-11-30.sh --build-window` (after
# cmake --build build/cuda --target fasim_cuda; the GPU machine lacks
# fasim's Debian dependencies); carry build/gpu-carry.
set -u
R=docs/results; B=$(mktemp -d); OUT=${OUT:-/tmp}; CARRY=build/gpu-carry
if [ "${1:-}" = --build-window ]; then
  mkdir -p "$CARRY" &&
  g++ -std=c++20 -O2 -I sim/include -I cuda/include -I /usr/include/eigen3 -I /usr/local/cuda/include \
      -c "$R"/evset_window_counters.cpp -o "$B"/counters.o &&
  nvcc -O2 -std=c++17 -gencode=arch=compute_90,code=sm_90 -DEVSET_CUPTI -o "$CARRY"/evset-window \
      "$R"/l2-evset-probe-2026-11-30.cu "$B"/counters.o build/cuda/cuda/libfasim_cuda.a \
      build/cuda/sim/libfasim_sim.a -ldl -lcuda && echo "built $CARRY/evset-window"
  exit
fi
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader | tee "$OUT"/gpu.txt
if [ "${MODE:-}" = window ]; then
  exe=$CARRY/evset-window
  libs=$B/cupti && mkdir -p "$libs" && tar -xzf "$CARRY"/cupti-libs.tar.gz -C "$libs"
  export LD_LIBRARY_PATH="$libs:${LD_LIBRARY_PATH:-}"  # libcupti and libnvperf, as scripts/gpu-check.sh
else
  exe=$B/evset
  nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o "$exe" "$R"/l2-evset-probe-2026-11-30.cu || exit 1
fi
start=$SECONDS
timeout "${LIMIT:-300}" "$exe" "${TARGETS:-3}" ${MODE:+"$MODE"} > "$OUT/evset.txt"
echo "evset: rc=$? $((SECONDS - start)) s"
grep -vE '^MEMBER' "$OUT/evset.txt"
grep -c '^MEMBER' "$OUT/evset.txt"
[ "${MODE:-}" = sets ] && gzip -f "$OUT/evset.txt"  # a large sample is several MB of MEMBER lines
