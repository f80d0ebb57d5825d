#!/usr/bin/env bash
# GPU check: on a machine with an NVIDIA GPU, build the CUDA backend with the
# `cuda` preset, run fasim_cuda_tests (kernel outputs against the fp64
# reference, the kernels' own byte counters against the simulator), and write
# logs and a summary under $OUT (default out/gpu-check).
#
#   scripts/gpu-check.sh                 configure, build (ninja -j16), test
#   scripts/gpu-check.sh --prepare-carry on the development machine: build
#       fasim_cuda_tests and the fasim CLI with the cuda preset and copy them,
#       with the shared libraries the GPU machine lacks (toml++) and CUPTI's
#       libraries (libcupti, libnvperf_host/target, packed in cupti-libs.tar.gz:
#       fasim opens them at run time), to build/gpu-carry
#
# If the GPU machine cannot build (the lent machines have nvcc and cmake but
# not the Debian packages: toml++, Catch2, ...), the test runs the prebuilt
# binary in $FASIM_PREBUILT (default build/gpu-carry; carry that folder).
#
# Each stage is a function that appends to $OUT/summary.md:
#   step_test      fasim_cuda_tests (tests.log)
#   step_calibrate `fasim gpu calibrate` -> <gpu>-measured.toml (table in summary.md)
#   step_compare   the recorded sweep, simulator vs GPU -> compare.csv, compare.txt
#                  (flash1's points as the median of 32 placements of the buffers,
#                  one head per SM: FLASH1_HEADS=H to change it; COMPARE_PARTS
#                  splits it over device calls)
#   step_ncu       ncu sections and counters of each kernel version -> ncu.csv
#   step_sanitize  compute-sanitizer memcheck/racecheck/initcheck/synccheck -> sanitizer.txt
# The device tool brings back at most 8 files from $OUT: keep it that way.
# Exit status: 0 if every stage that ran passed.
# shellcheck disable=SC2317  # the step_ functions run through "step_$stage" below
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
CARRY=build/gpu-carry
if [ "${1:-}" = "--prepare-carry" ]; then
  cmake --preset cuda >/dev/null && cmake --build build/cuda --target fasim_cuda_tests fasim || exit 1
  rm -rf "$CARRY" && mkdir -p "$CARRY" && cp build/cuda/bin/fasim_cuda_tests build/cuda/bin/fasim "$CARRY"/
  ldd build/cuda/bin/fasim_cuda_tests build/cuda/bin/fasim | awk '/tomlplusplus/ {print $3}' | sort -u |
    xargs -r -I{} cp -L {} "$CARRY"/
  cupti_dir=$(dirname "$(grep -m1 '^CUDA_cupti_LIBRARY:' build/cuda/CMakeCache.txt | cut -d= -f2)")
  if [ -f "$cupti_dir/libcupti.so.13" ]; then
    tar -C "$cupti_dir" -czf "$CARRY/cupti-libs.tar.gz" --dereference libcupti.so.13 libnvperf_host.so libnvperf_target.so
  else
    echo "warning: no libcupti.so.13 in '$cupti_dir'; the GPU machine's own CUPTI will be used" >&2
  fi
  echo "prepared $CARRY: $(ls "$CARRY" | tr '\n' ' ')($(du -sh "$CARRY" | cut -f1)); carry it to the GPU machine"
  exit 0
fi
FASIM_PREBUILT=${FASIM_PREBUILT:-$CARRY}
OUT=${OUT:-out/gpu-check}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.md"
JOBS=${JOBS:-16}
BIN=""
FASIM=""
MEASURED=""
status=0

note() { echo "$*" | tee -a "$SUMMARY"; }

step_device() {
  note "# fasim GPU check, $(date -u +%Y-%m-%dT%H:%MZ)"
  if command -v nvidia-smi >/dev/null; then
    note "- GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"
  else
    note "- GPU: nvidia-smi not found"
  fi
  note "- nvcc: $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo 'not found')"
  note "- cmake: $(cmake --version 2>/dev/null | head -1)"
}

step_build() {
  local start=$SECONDS
  if cmake --preset cuda >"$OUT/build.log" 2>&1 &&
     cmake --build build/cuda --target fasim_cuda_tests -- -j"$JOBS" >>"$OUT/build.log" 2>&1; then
    BIN=build/cuda/bin/fasim_cuda_tests
    cmake --build build/cuda --target fasim -- -j"$JOBS" >>"$OUT/build.log" 2>&1 && FASIM=build/cuda/bin/fasim
    note "- build: cuda preset, $((SECONDS - start)) s, $(grep -ci 'warning' "$OUT/build.log") lines mentioning warnings"
  elif [ -n "${FASIM_PREBUILT:-}" ] && [ -x "$FASIM_PREBUILT/fasim_cuda_tests" ]; then
    BIN="$FASIM_PREBUILT/fasim_cuda_tests"
    [ -x "$FASIM_PREBUILT/fasim" ] && FASIM="$FASIM_PREBUILT/fasim"
    export LD_LIBRARY_PATH="$FASIM_PREBUILT${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    note "- build: failed here ($(grep -m1 -iE 'error|could not find' "$OUT/build.log" | cut -c1-160)); using prebuilt $BIN"
  else
    note "- build: FAILED, see build.log"
    tail -30 "$OUT/build.log"
    status=1
  fi
}

# CUPTI for the hardware counters: the carried libraries (the version fasim was
# built with) first, then the toolkit's own folders.
step_cupti() {
  local dirs="" d
  if [ -f "$FASIM_PREBUILT/cupti-libs.tar.gz" ]; then
    mkdir -p /tmp/fasim-cupti && tar -C /tmp/fasim-cupti -xzf "$FASIM_PREBUILT/cupti-libs.tar.gz" && dirs=/tmp/fasim-cupti
  fi
  for d in /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64; do
    [ -d "$d" ] && dirs="${dirs:+$dirs:}$d"
  done
  export LD_LIBRARY_PATH="${dirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  note "- CUPTI search path: ${dirs:-none}"
}

step_test() {
  [ -n "$BIN" ] || return 0
  local start=$SECONDS
  "$BIN" --durations yes >"$OUT/tests.log" 2>&1
  local rc=$?
  note "- fasim_cuda_tests: exit $rc, $((SECONDS - start)) s; $(grep -E '^(All tests passed|test cases:)' "$OUT/tests.log" | tail -1)"
  {
    echo
    echo '| kernel | dtype | shape | result |'
    echo '|---|---|---|---|'
    grep -E '^(naive|flash)' "$OUT/tests.log" | sed -E 's/^([^ ]+) +([^ ]+) +([^|]+)\| (.*)$/| \1 | \2 | \3 | \4 |/'
  } >>"$SUMMARY"
  grep -E 'skipped:|FAILED|failed' "$OUT/tests.log" | head -40
  [ "$rc" -eq 0 ] || status=1
}

# Simulator vs GPU: the recorded sweep (issue 4, item 9) in long-form CSV.
# The prediction uses the profile calibrate just measured ($MEASURED), so the
# model's rates are this GPU's, not the datasheet's. Shapes:
#   flash2 fp16 (tensor cores): N 512..16384, d 64, 128, batch*heads = 65536 / N
#     (the GPU full at every N: 512 query blocks of 128 rows);
#   naive fp32 and fp16, flash2 fp32: 16 heads, N 512..16384 (naive's S and P
#     at N = 16384, fp32: 34 GB); the fp32-arithmetic kernels keep S in shared
#     memory too, so at d = 128 they run 64 x 64 tiles;
#   flash1 fp32 and fp16: N 512..4096, one head per SM (132 on an H200:
#     FLASH1_HEADS, else the SM count of the measured profile), so the GPU is
#     full: flash1 runs one block per head, and until 2026-11-30 its 16 heads
#     used 16 of 132 SMs (those points stay in the older recordings). A kernel
#     takes as long as one head, so N = 8192 and up would take minutes a point;
#     at d = 64 both dtypes run fp32's paper tiles, Br 64 and Bc 227: the kernel
#     holds its tiles in fp32, so fp16's paper Bc (454) would need 368 KB of
#     shared memory, and until 2026-11-30 those four points were skipped.
# A skipped point makes `fasim compare --sweep` exit 1, so it shows here.
# Numerics are checked by fasim_cuda_tests, not here (--no-numerics).
# Counters: 5 ranges, median. PLACEMENTS=K measures them in K placements of
# the buffers (other physical pages), 5 ranges in each: the recorded value is
# then the median of all, min and max their range. flash1's points take 32
# placements of 1 range (FLASH1_PLACEMENTS=K and FLASH1_RANGES=R to change
# it; until 2026-11-30, 8 of 2): two of them stream about the L2's size each
# key block, and there one placement's DRAM bytes are one sample (73 to
# 114 MB read at fp16 N = 512 d = 128 on an H200,
# docs/results/placement-reuse-2026-11-30.md).
# COMPARE_PARTS picks parts of the sweep (default "rest flash1-d64
# flash1-d128", all of it). On the lent machines (600 s a call) the compare
# stage takes three calls, each with `STAGES=compare COMPARE_PARTS=<one part>`
# and the same $OUT profile; flash1 at d = 128 alone took 295 s.
# sweep_into NAME RANGES PLACEMENTS ARGS...: one `fasim compare --sweep`, its
# rows appended to $OUT/NAME.csv and its log to $OUT/NAME.txt; sets rc=1 if it fails.
sweep_into() {
  local name=$1 ranges=$2 placements=$3 part="$OUT/part.csv" dev=()
  shift 3
  [ -n "$MEASURED" ] && dev=(--device "$MEASURED")
  "$FASIM" compare --sweep --no-numerics --counter-runs "$ranges" --placements "$placements" "${dev[@]}" --out "$part" "$@" \
    >>"$OUT/$name.txt" 2>&1 || rc=1
  [ -f "$part" ] || return
  if [ -f "$OUT/$name.csv" ]; then tail -n +2 "$part" >>"$OUT/$name.csv"; else cat "$part" >"$OUT/$name.csv"; fi
  rm -f "$part"
}

step_compare() {
  [ -n "$FASIM" ] || { note "- compare: no fasim binary; skipped"; return 0; }
  local start=$SECONDS rc=0 n
  local part parts=${COMPARE_PARTS:-rest flash1-d64 flash1-d128}
  if [ -z "${COMPARE_PARTS:-}" ]; then  # the whole sweep: start afresh
    : >"$OUT/compare.txt"
    rm -f "$OUT/compare.csv"
  fi  # else a part: append to what the earlier parts left in $OUT
  touch "$OUT/compare.txt"
  sweep() { sweep_into compare 5 "${PLACEMENTS:-1}" "$@"; }
  flash1() { sweep_into compare "${FLASH1_RANGES:-1}" "${FLASH1_PLACEMENTS:-32}" "$@"; }
  local heads=${FLASH1_HEADS:-$(sed -n 's/^sm_count *= *\([0-9]*\).*/\1/p' "$MEASURED" 2>/dev/null | head -1)}
  heads=${heads:-132}
  for part in $parts; do
    case "$part" in
      rest)
        for n in 512 1024 2048 4096 8192 16384; do
          sweep --algo flash2 --dtype fp16 --N "$n" --d 64,128 --heads $((65536 / n))
        done
        sweep --algo naive --dtype fp32,fp16 --N 512,1024,2048,4096,8192,16384 --d 64,128 --heads 16
        sweep --algo flash2 --dtype fp32 --N 512,1024,2048,4096,8192,16384 --d 64 --heads 16
        sweep --algo flash2 --dtype fp32 --N 512,1024,2048,4096,8192,16384 --d 128 --heads 16 --br 64 --bc 64
        ;;
      flash1-d64) flash1 --algo flash1 --dtype fp32,fp16 --N 512,1024,2048,4096 --d 64 --heads "$heads" --br 64 --bc 227 ;;
      flash1-d128) flash1 --algo flash1 --dtype fp32,fp16 --N 512,1024,2048,4096 --d 128 --heads "$heads" --br 64 --bc 64 ;;
      *) note "- compare: unknown part '$part' in COMPARE_PARTS (rest, flash1-d64, flash1-d128)"; rc=1 ;;
    esac
  done
  [ "$rc" -eq 0 ] || status=1
  note "- fasim compare ($parts): $((SECONDS - start)) s, exit $rc, $(($(wc -l <"$OUT/compare.csv" 2>/dev/null || echo 1) - 1)) CSV rows so far${MEASURED:+, predicted with $(basename "$MEASURED")}"
  { echo; echo '```'; cat "$OUT/compare.txt"; echo '```'; } >>"$SUMMARY"
}

# Hardware detail behind the model's misses: ncu on one launch of each kernel
# version (sections for pipes, memory, warp stalls, occupancy, plus the L2 and
# shared-memory counters), into ncu.csv. `fasim gpu run --no-counters` leaves
# the profiler to ncu. Clocks and caches as GPU.md says.
step_ncu() {
  [ -n "$FASIM" ] && command -v ncu >/dev/null || { note "- ncu: not available; skipped"; return 0; }
  local start=$SECONDS args
  local metrics=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_ltcfabric.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,sm__inst_executed.sum,sm__sass_inst_executed_op_ldgsts.sum,smsp__sass_inst_executed_op_global_ld.sum,sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum
  : >"$OUT/ncu.csv"
  for args in "--algo flash2 --dtype fp16 --N 4096 --d 64 --heads 16" \
              "--algo flash2 --dtype fp16 --N 4096 --d 128 --heads 16" \
              "--algo flash2 --dtype fp32 --N 2048 --d 64 --heads 16" \
              "--algo flash1 --dtype fp32 --N 1024 --d 64 --heads 16" \
              "--algo naive --dtype fp16 --N 2048 --d 64 --heads 16"; do
    echo "# $args" >>"$OUT/ncu.csv"
    # shellcheck disable=SC2086
    LC_ALL=C timeout 300 ncu --clock-control none --cache-control all --csv --page details \
      --kernel-name regex:'flash|naive' --launch-skip 3 --launch-count 3 \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
      --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats \
      --metrics "$metrics" "$FASIM" gpu run --no-counters --no-numerics $args 2>&1 | grep '^"' >>"$OUT/ncu.csv"
  done
  note "- ncu: $((SECONDS - start)) s, $(wc -l <"$OUT/ncu.csv") lines in ncu.csv"
}

# compute-sanitizer's four tools on every kernel version at ragged shapes;
# the report is sanitizer.txt, one line per run plus any error found.
step_sanitize() {
  [ -n "$FASIM" ] && command -v compute-sanitizer >/dev/null || { note "- compute-sanitizer: not available; skipped"; return 0; }
  local start=$SECONDS tool args log bad=0 runs=0
  : >"$OUT/sanitizer.txt"
  local shapes=(
    "--algo naive --dtype fp32 --N 200 --d 64"
    "--algo naive --dtype fp16 --N 77 --d 128"
    "--algo flash1 --dtype fp32 --N 200 --d 64"
    "--algo flash2 --dtype fp32 --N 77 --d 128 --br 64 --bc 64"
    "--algo flash2 --dtype fp16 --N 200 --d 64"
    "--algo flash2 --dtype bf16 --N 130 --d 128 --heads 2"
    "--algo flash2 --dtype fp16 --N 200 --d 64 --kernel 6 --br 128 --bc 128"
    "--algo flash2 --dtype bf16 --N 130 --d 128 --heads 2 --kernel 6 --br 128 --bc 64"
    "--algo flash2 --dtype fp16 --N 77 --d 64 --kernel 6 --br 64 --bc 64 --causal"
    "--algo flash2 --dtype fp16 --N 200 --d 64 --kernel 7 --br 128 --bc 128"
    "--algo flash2 --dtype bf16 --N 130 --d 128 --heads 2 --kernel 7 --br 128 --bc 64"
    "--algo flash2 --dtype fp16 --N 300 --d 128 --kernel 7 --br 128 --bc 128 --causal"
    "--algo flash2 --dtype fp32 --N 200 --d 64 --blocks-per-sm 1"
    "--algo flash2 --dtype fp16 --N 200 --d 128 --kernel 4 --br 64 --bc 64 --blocks-per-sm 2"
  )
  for tool in memcheck racecheck initcheck synccheck; do
    for args in "${shapes[@]}"; do
      log=$(timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$FASIM" gpu run --no-counters $args 2>&1)
      local rc=$?
      runs=$((runs + 1))
      echo "$tool $args: exit $rc, $(echo "$log" | grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' || echo 'no summary')" >>"$OUT/sanitizer.txt"
      if [ "$rc" -ne 0 ]; then bad=$((bad + 1)); echo "$log" | grep -E 'Error|error|Invalid|Race|Hazard' | head -20 >>"$OUT/sanitizer.txt"; fi
    done
  done
  note "- compute-sanitizer: $runs runs (memcheck, racecheck, initcheck, synccheck x ${#shapes[@]} kernels/shapes), $bad with errors, $((SECONDS - start)) s"
  [ "$bad" -eq 0 ] || status=1
}

# `fasim gpu calibrate`: every figure of the device TOML measured on this GPU
# (bandwidths, latencies, rates, clock), written to $OUT/<gpu>-measured.toml;
# the table (measured beside the stock profile, ratio, source) goes into
# summary.md, which keeps $OUT at 8 files.
step_calibrate() {
  [ -n "$FASIM" ] || { note "- calibrate: no fasim binary; skipped"; return 0; }
  local start=$SECONDS rc name
  rm -f "$OUT/measured.toml"
  "$FASIM" gpu calibrate --out "$OUT/measured.toml" >"$OUT/calibrate.txt.tmp" 2>&1
  rc=$?
  name=$(sed -n 's/^name = "\(.*\)"$/\1/p' "$OUT/measured.toml" 2>/dev/null)
  [ -n "$name" ] && mv "$OUT/measured.toml" "$OUT/$name.toml" && MEASURED="$OUT/$name.toml"
  note "- fasim gpu calibrate: exit $rc, $((SECONDS - start)) s${name:+, wrote $name.toml}"
  {
    echo
    echo '```'
    cat "$OUT/calibrate.txt.tmp"
    echo '```'
  } >>"$SUMMARY"
  rm -f "$OUT/calibrate.txt.tmp"
  [ "$rc" -eq 0 ] || status=1
}

# STAGES picks stages (default all), e.g. STAGES="test calibrate" to fit one
# device call; compare uses $OUT/*-measured.toml from an earlier calibrate.
STAGES=${STAGES:-test calibrate compare ncu sanitize}
step_device
step_build
step_cupti
[ -z "$MEASURED" ] && MEASURED=$(ls "$OUT"/*-measured.toml 2>/dev/null | head -1)
for stage in $STAGES; do "step_$stage"; done
cat "$SUMMARY"
exit "$status"
