#!/usr/bin/env bash
# flash1 at the L2's edge counted by ncu with the two DRAM metrics alone (M2) and
# with fasim's nine (M9, three passes), beside fasim's CUPTI path. Part 2 (below,
# commented) ran as its own script. Run from the repository root on a GPU machine
# with build/gpu-carry (fasim, libtomlplusplus, cupti-libs.tar.gz). Results and
# reading: h200-2026-11-23-flash1-counting.txt, h200-2026-11-23-flash1-placement.md.
set -u
C=build/gpu-carry
mkdir -p /tmp/fc && tar -C /tmp/fc -xzf $C/cupti-libs.tar.gz
export LD_LIBRARY_PATH=$PWD/$C:/tmp/fc:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64
F=$C/fasim
M2=dram__bytes_read.sum,dram__bytes_write.sum
M9="dram__bytes_read.sum,dram__bytes_write.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__m_l1tex2xbar_write_sectors.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum,gpu__time_duration.sum"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader
for p in "fp16 4096 128 64 64" "fp32 4096 64 64 227" "fp32 2048 128 64 64" "fp32 1024 128 64 64"; do
  set -- $p
  shape=(--algo flash1 --dtype $1 --heads 16 --N $2 --d $3 --br $4 --bc $5 --no-numerics --device docs/results/h200-2026-11-22-measured.toml)
  for m in M2 M9; do
    echo "== flash1 $p ncu $m"
    ncu --cache-control none --clock-control none -k regex:flash1 -c 4 --metrics "${!m}" --csv --print-units base \
      $F gpu run "${shape[@]}" --no-counters --runs 20 2>/dev/null | grep -E '^"[0-9]' | grep dram__bytes |
      awk -F'","' '{print $1, $(NF-2), $NF}' | tr -d '"'
  done
  echo "== flash1 $p fasim compare (CUPTI): metric, predicted, median, min, max"
  $F compare "${shape[@]}" --counter-runs 3 --sweep 2>/dev/null | grep dram_ | cut -d, -f13-
done

# ---- part 2 (call D), run as its own script:
# #!/usr/bin/env bash
# # flash1 at the L2's edge: fasim's CUPTI path with its nine metrics, and with
# # the two DRAM metrics alone (FASIM_HW_DRAM_ONLY, an experiment build), beside ncu.
# set -u
# C=build/gpu-carry
# mkdir -p /tmp/fc && tar -C /tmp/fc -xzf $C/cupti-libs.tar.gz
# export LD_LIBRARY_PATH=$PWD/$C:/tmp/fc:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64
# F=$C/fasim
# nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader
# for p in "fp16 4096 128 64 64" "fp32 2048 128 64 64"; do
#   set -- $p
#   shape=(--algo flash1 --dtype $1 --heads 16 --N $2 --d $3 --br $4 --bc $5 --no-numerics --device docs/results/h200-2026-11-22-measured.toml)
#   for rep in 1 2; do
#     echo "== flash1 $p CUPTI nine metrics, rep $rep"
#     $F compare "${shape[@]}" --counter-runs 3 --sweep 2>/dev/null | grep -E "dram_|time_s" | cut -d, -f13-
#     echo "== flash1 $p CUPTI DRAM alone, rep $rep"
#     FASIM_HW_DRAM_ONLY=1 $F compare "${shape[@]}" --counter-runs 3 --sweep 2>/dev/null | grep -E "dram_" | cut -d, -f13-
#   done
#   echo "== flash1 $p ncu two DRAM metrics, launches 0-3"
#   ncu --cache-control none --clock-control none -k regex:flash1 -c 4 --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum --csv --print-units base \
#     $F gpu run "${shape[@]}" --no-counters --runs 20 2>/dev/null | grep -E '^"[0-9]' | grep -E "dram__bytes|gpu__time" |
#     awk -F'","' '{print $1, $(NF-2), $NF}' | tr -d '"'
# done
