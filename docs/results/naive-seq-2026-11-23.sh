#!/usr/bin/env bash
# Builds and runs naive-seq-probe-2026-11-23.cu under ncu (DRAM metrics
# alone, one pass, clocks and caches left as they are) on the GPU the device
# tool lends. Output under $OUT: naive-seq.csv (ncu's rows and the probe's lines).
set -u
D=docs/results
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader | tee $OUT/gpu-nseq.txt
nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o /tmp/nseq $D/naive-seq-probe-2026-11-23.cu || exit 1
ncu --cache-control none --clock-control none --kernel-name-base function --kernel-name regex:'scores_k|softmax_k|output_k' \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base /tmp/nseq > $OUT/naive-seq.csv 2> $OUT/naive-seq.err
echo "rc=$? $(grep -c SEQ $OUT/naive-seq.csv) sequences"
