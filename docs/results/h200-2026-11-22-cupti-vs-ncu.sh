#!/usr/bin/env bash
# DRAM writes of the same kernels, counted three ways (h200-2026-11-22-cupti-vs-ncu.md):
#  1. ncu, kernel replay, dram__bytes_write alone (one pass);
#  2. ncu, kernel replay, fasim's nine metrics (kHwMetrics: three passes);
#  3. fasim's own CUPTI range profiler path (`fasim compare`, 5 counter runs).
# Run from the repository root on a GPU machine, with fasim built with CUDA:
#   FASIM=build/default/bin/fasim OUT=/tmp/out bash docs/results/h200-2026-11-22-cupti-vs-ncu.sh
# ncu profiles the first 6 kernels of one `fasim gpu run --no-counters`:
# launch 1 counts its own bytes, 2.. are the uncounted warm-up and timed ones.
set -u
F=${FASIM:-build/default/bin/fasim}
OUT=${OUT:-.}
M1=dram__bytes_write.sum
M9="dram__bytes_read.sum,dram__bytes_write.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__m_l1tex2xbar_write_sectors.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum,gpu__time_duration.sum"
for p in "flash2 fp16 4 16384 64 128 128" "flash2 fp16 128 512 64 128 128" "flash2 fp32 16 2048 64 128 128" "flash1 fp32 16 2048 64 64 227"; do
  set -- $p
  shape=(--algo "$1" --dtype "$2" --heads "$3" --N "$4" --d "$5" --br "$6" --bc "$7" --no-numerics)
  for m in M1 M9; do
    for cc in all none; do
      echo "== $p ncu $m --cache-control $cc" >>"$OUT/ncu-vs-cupti.txt"
      ncu --cache-control $cc --clock-control none -k regex:flash -c 6 --metrics "${!m}" --csv --print-units base \
        "$F" gpu run "${shape[@]}" --no-counters --runs 20 2>/dev/null |
        grep -E '^"[0-9]' | grep dram__bytes_write | awk -F'","' '{print $1, $NF}' | tr -d '"' >>"$OUT/ncu-vs-cupti.txt"
    done
  done
  echo "== $p fasim compare (CUPTI): predicted, median, min, max" >>"$OUT/ncu-vs-cupti.txt"
  "$F" compare "${shape[@]}" --counter-runs 5 --sweep 2>/dev/null | grep dram_write | cut -d, -f14- >>"$OUT/ncu-vs-cupti.txt"
done
cat "$OUT/ncu-vs-cupti.txt"
