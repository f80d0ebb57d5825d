#!/usr/bin/env bash
# The FlashAttention-2 paper's forward benchmark on one GPU, in one run: fasim's
# kernels beside PyTorch's attention, same shapes, same timing protocol.
#
#   scripts/gpu-bench.sh             run it (on the GPU machine; one device call)
#   scripts/gpu-bench.sh --dry-run   print the commands it would run; touch nothing
#   scripts/gpu-bench.sh --help
#
# Shapes (the paper's): fp16, N = 512 ... 16384, batch = 16384 / N, heads =
# 2048 / d, d = 64 and 128, non-causal and causal. FLOPs = 4 batch heads N^2 d,
# halved when causal; TFLOP/s = FLOPs / median time.
# Timed, in this order:
#   fasim-v7-flash2-hopper `fasim gpu run --kernel 7` (Hopper: TMA, wgmma, warp
#                          specialisation; Br = 128); Bc picked per d from
#                          128x128 and 128x64 as for version 4; skipped, and
#                          said so, on a GPU other than an H100/H200
#   fasim-v6-flash2-fast   `fasim gpu run --kernel 6` (version 4 tuned: 32 query
#                          rows per warp, two blocks per SM); tiles picked per d
#                          as for version 4, from 128x128 (d = 64 only), 128x64, 64x64
#   fasim-v4-flash2-mma    `fasim gpu run --kernel 4` (FlashAttention-2 on tensor
#                          cores); its tiles (Br x Bc) are picked per d by timing
#                          128x128, 128x64 and 64x64 once at N = $TILE_N, non-causal
#   fasim-v5-naive-cublas  `fasim gpu run --algo naive --kernel 5` (cuBLAS GEMM,
#                          softmax kernel, cuBLAS GEMM: PyTorch eager's way)
#   fasim-v1-naive, fasim-v2-flash2-fp32, fasim-v3-flash1-fp32
#                          the teaching kernels (fp32 arithmetic), at N = $TEACH_N
#                          only (they are slow: flash1 runs one block per head),
#                          64x64 tiles (their shared memory at d = 128)
#   torch-sdpa-fa2, torch-sdpa-cudnn, torch-eager
#                          scripts/bench_torch.py: SDPA with the FlashAttention-2
#                          and the cuDNN backends, and softmax(Q K^T scale) V in
#                          PyTorch ops; a backend that cannot run is reported as
#                          "unavailable: <reason>"
# Protocol, both sides: warm-up, then $RUNS runs, each timed alone with CUDA
# events (record, launch, record, synchronize), median. fasim: its own timer
# (the median_s of `fasim gpu run --json`, --no-counters, --no-numerics: the
# outputs are checked by fasim_cuda_tests); PyTorch: torch.cuda.Event. L2=warm
# (default) leaves L2 alone between runs on both sides; L2=cold flushes it.
#
# Writes to $OUT (default ./out): gpu-bench.csv, long form
#   device,driver,date,impl,causal,batch,heads,N,d,time_s,tflops
# (gpu-bench.csv.partial while running), gpu-bench-table.txt (the table printed
# at the end: TFLOP/s and the ratio to torch-sdpa-fa2 per point) and
# gpu-bench.log (fasim's stderr, PyTorch's output).
#
# Environment (defaults in brackets):
#   FASIM_BIN  fasim binary [build/gpu-carry/fasim, as scripts/gpu-check.sh
#              --prepare-carry lays it out; its folder joins LD_LIBRARY_PATH]
#   PYTHON     python with torch [python3]
#   NS [512 1024 2048 4096 8192 16384]   DS [64 128]   CAUSAL [0 1]
#   RUNS [30, at least 20]   L2 [warm | cold]   TEACH_N [1024; "" skips them]
#   TILE_N [4096; "" uses 128x128]   TIMEOUT [300 s per fasim command]
# Exit status: 0 all ran; 1 a fasim command or bench_torch.py failed (what ran
# is still in the CSV); 2 bad arguments or settings. (A PyTorch backend that is
# unavailable is reported, not a failure.)
set -uo pipefail
cd "$(dirname "$0")/.."

die() { echo "gpu-bench.sh: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

DRY=0
for arg in "$@"; do
  case $arg in
    --dry-run) DRY=1 ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown argument '$arg'; use --dry-run or --help" ;;
  esac
done

FASIM_BIN=${FASIM_BIN:-build/gpu-carry/fasim}
PYTHON=${PYTHON:-python3}
OUT=${OUT:-out}
NS=${NS-512 1024 2048 4096 8192 16384}
DS=${DS-64 128}
CAUSAL=${CAUSAL-0 1}
RUNS=${RUNS:-30}
L2=${L2:-warm}
TEACH_N=${TEACH_N-1024}
TILE_N=${TILE_N-4096}
TIMEOUT=${TIMEOUT:-300}

# ---- settings: one line naming the problem and the fix, exit 2 ----------------
is_int() { [[ $1 =~ ^[0-9]+$ ]]; }
valid_n() { is_int "$1" && [ "$1" -ge 16 ] && [ "$1" -le 16384 ] && [ $((16384 % $1)) -eq 0 ]; }
[ -n "$NS" ] || die "NS is empty; set e.g. NS=\"512 1024\""
for n in $NS; do valid_n "$n" || die "NS has '$n'; each N must divide 16384 (batch = 16384 / N), e.g. NS=\"512 1024 2048\""; done
[ -n "$DS" ] || die "DS is empty; set DS=\"64 128\""
for d in $DS; do [ "$d" = 64 ] || [ "$d" = 128 ] || die "DS has '$d'; versions 4 and 6 run d = 64 and 128 only: DS=\"64 128\""; done
[ -n "$CAUSAL" ] || die "CAUSAL is empty; set CAUSAL=\"0 1\""
for c in $CAUSAL; do [ "$c" = 0 ] || [ "$c" = 1 ] || die "CAUSAL has '$c'; use 0 (non-causal) and/or 1: CAUSAL=\"0 1\""; done
is_int "$RUNS" && [ "$RUNS" -ge 20 ] || die "RUNS=$RUNS; the median needs at least 20 runs: RUNS=30"
[ "$L2" = warm ] || [ "$L2" = cold ] || die "L2=$L2; use L2=warm or L2=cold"
is_int "$TIMEOUT" && [ "$TIMEOUT" -ge 1 ] || die "TIMEOUT=$TIMEOUT; give seconds, e.g. TIMEOUT=300"
if [ -n "$TEACH_N" ]; then
  [[ " $NS " == *" $TEACH_N "* ]] || die "TEACH_N=$TEACH_N is not in NS ($NS); pick one of them (the ratio needs PyTorch there), or TEACH_N= to skip"
fi
if [ -n "$TILE_N" ]; then valid_n "$TILE_N" || die "TILE_N=$TILE_N; it must divide 16384, e.g. TILE_N=4096, or TILE_N= for 128x128"; fi
if [ "$DRY" = 0 ]; then
  [ -x "$FASIM_BIN" ] || die "no fasim binary at '$FASIM_BIN'; build the carry (scripts/gpu-check.sh --prepare-carry) or set FASIM_BIN"
  [ -f scripts/bench_torch.py ] || die "scripts/bench_torch.py is missing; run from a fasim checkout"
fi

# ---- the machine ---------------------------------------------------------------
# The carry's folder holds the shared libraries the GPU machine lacks (toml++);
# cuBLAS comes from the CUDA Toolkit.
export LD_LIBRARY_PATH="$(dirname "$FASIM_BIN")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -d /usr/local/cuda/lib64 ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:/usr/local/cuda/lib64"
DEVICE=unknown
DRIVER=unknown
if [ "$DRY" = 1 ]; then
  DEVICE="(dry run)"
elif command -v nvidia-smi >/dev/null; then
  info=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
  [ -n "$info" ] && DEVICE=$(echo "${info%,*}" | tr -d ',') && DRIVER=$(echo "${info##*,}" | tr -d ' ,')
fi
DATE=$(date -u +%Y-%m-%d)

CSV="$OUT/gpu-bench.csv"
PARTIAL="$CSV.partial"
TABLE="$OUT/gpu-bench-table.txt"
LOG="$OUT/gpu-bench.log"
if [ "$DRY" = 0 ]; then
  mkdir -p "$OUT" || die "cannot create OUT=$OUT; set OUT to a writable folder"
  echo "device,driver,date,impl,causal,batch,heads,N,d,time_s,tflops" >"$PARTIAL" || die "cannot write $PARTIAL"
  : >"$LOG"
fi
failures=0
start=$SECONDS
exec 3>&1  # the dry run prints commands here, also from inside $(...)

say() { echo "$*"; [ "$DRY" = 1 ] || echo "$*" >>"$LOG"; }

# One CSV row: impl causal batch heads N d time_s (tflops computed here, as PyTorch's side does).
row() {
  awk -v dev="$DEVICE" -v drv="$DRIVER" -v date="$DATE" -v impl="$1" -v c="$2" -v b="$3" -v h="$4" -v n="$5" \
      -v d="$6" -v t="$7" 'BEGIN {
    f = 4 * b * h * n * n * d / (c == 1 ? 2 : 1)
    printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%.9g,%.6g\n", dev, drv, date, impl, c, b, h, n, d, t, f / t / 1e12
  }' >>"$PARTIAL"
}

# `fasim gpu run` on one point; prints the median time in seconds (nothing on failure).
# Arguments: label causal N d, then extra flags.
fasim_time() {
  local label=$1 c=$2 n=$3 d=$4
  shift 4
  local args=(gpu run --dtype fp16 --N "$n" --d "$d" --batch $((16384 / n)) --heads $((2048 / d))
              --runs "$RUNS" --l2 "$L2" --no-counters --no-numerics --json "$@")
  [ "$c" = 1 ] && args+=(--causal)
  if [ "$DRY" = 1 ]; then
    echo "$FASIM_BIN ${args[*]}" >&3
    echo "0.001"
    return 0
  fi
  local json rc t
  echo "# $label: $FASIM_BIN ${args[*]}" >>"$LOG"
  json=$(timeout "$TIMEOUT" "$FASIM_BIN" "${args[@]}" 2>>"$LOG")
  rc=$?
  t=$(printf '%s\n' "$json" | sed -n 's/^ *"median_s": *\([0-9.eE+-]*\),\{0,1\} *$/\1/p' | head -1)
  if [ "$rc" -ne 0 ] || [ -z "$t" ]; then
    echo "  $label d=$d causal=$c N=$n: FAILED (exit $rc; $(tail -1 "$LOG" | cut -c1-200))" >&2
    echo "$label d=$d causal=$c N=$n: FAILED (exit $rc)" >>"$LOG"
    return 1
  fi
  echo "$t"
}

# Times one point and writes its row.
fasim_point() {
  local impl=$1 c=$2 n=$3 d=$4 t
  shift 4
  if t=$(fasim_time "$impl" "$c" "$n" "$d" "$@"); then
    [ "$DRY" = 1 ] && return 0
    row "$impl" "$c" $((16384 / n)) $((2048 / d)) "$n" "$d" "$t"
    say "  $impl d=$d causal=$c N=$n: $(awk -v t="$t" 'BEGIN { printf "%.3f ms", t * 1e3 }')"
  else
    failures=$((failures + 1))
  fi
}

say "# gpu-bench, $DATE: $DEVICE, driver $DRIVER; fasim $FASIM_BIN"
say "# fp16 forward, batch = 16384 / N, heads = 2048 / d; N: $NS; d: $DS; causal: $CAUSAL; median of $RUNS runs, L2 $L2"

# ---- versions 4, 6 and 7: their tiles, per d -----------------------------------------
# pick_tiles VERSION d CANDIDATES...: sets TILES[VERSION,d] to the fastest
# candidate at N = TILE_N, non-causal (the first one when TILE_N is empty).
declare -A TILES
pick_tiles() {
  local v=$1 d=$2 best="" best_t="" line="" t
  shift 2
  TILES[$v,$d]=$1
  [ -n "$TILE_N" ] || return 0
  for tiles in "$@"; do
    set -- $tiles
    if t=$(fasim_time "fasim-v$v tiles ${1}x$2" 0 "$TILE_N" "$d" --algo flash2 --kernel "$v" --br "$1" --bc "$2"); then
      line="$line ${1}x$2 $(awk -v t="$t" 'BEGIN { printf "%.3f ms", t * 1e3 }'),"
      if [ -z "$best_t" ] || awk -v a="$t" -v b="$best_t" 'BEGIN { exit !(a < b) }'; then best="$tiles" best_t=$t; fi
    else
      failures=$((failures + 1))
    fi
  done
  [ -n "$best" ] && TILES[$v,$d]=$best
  set -- ${TILES[$v,$d]}
  [ "$DRY" = 1 ] && line=" (dry run: not timed),"
  say "# version $v tiles at d=$d, timed at N=$TILE_N non-causal:${line:- none ran,} using ${1}x$2"
}
for d in $DS; do
  pick_tiles 4 "$d" "128 128" "128 64" "64 64"
  if [ "$d" = 64 ]; then pick_tiles 6 "$d" "128 128" "128 64" "64 64"; else pick_tiles 6 "$d" "128 64" "64 64"; fi
  pick_tiles 7 "$d" "128 128" "128 64"
done

# ---- fasim: versions 7, 6, 4 and 5 at every point ----------------------------------
for d in $DS; do
  for c in $CAUSAL; do
    for n in $NS; do
      set -- ${TILES[7,$d]}
      fasim_point fasim-v7-flash2-hopper "$c" "$n" "$d" --algo flash2 --kernel 7 --br "$1" --bc "$2"
      set -- ${TILES[6,$d]}
      fasim_point fasim-v6-flash2-fast "$c" "$n" "$d" --algo flash2 --kernel 6 --br "$1" --bc "$2"
      set -- ${TILES[4,$d]}
      fasim_point fasim-v4-flash2-mma "$c" "$n" "$d" --algo flash2 --kernel 4 --br "$1" --bc "$2"
      fasim_point fasim-v5-naive-cublas "$c" "$n" "$d" --algo naive --kernel 5
    done
  done
done

# ---- fasim: the teaching kernels at one N -----------------------------------------
if [ -n "$TEACH_N" ]; then
  say "# teaching kernels (versions 1-3, fp32 arithmetic) at N=$TEACH_N only, 64x64 tiles"
  for d in $DS; do
    for c in $CAUSAL; do
      fasim_point fasim-v1-naive "$c" "$TEACH_N" "$d" --algo naive --kernel 1 --br 64 --bc 64
      fasim_point fasim-v2-flash2-fp32 "$c" "$TEACH_N" "$d" --algo flash2 --kernel 2 --br 64 --bc 64
      fasim_point fasim-v3-flash1-fp32 "$c" "$TEACH_N" "$d" --algo flash1 --kernel 3 --br 64 --bc 64
    done
  done
else
  say "# teaching kernels skipped (TEACH_N is empty)"
fi

# ---- PyTorch ---------------------------------------------------------------------
torch_args=(scripts/bench_torch.py --ns "$(echo $NS | tr ' ' ',')" --ds "$(echo $DS | tr ' ' ',')"
            --causal "$(echo $CAUSAL | tr ' ' ',')" --runs "$RUNS" --l2 "$L2" --csv "$PARTIAL"
            --device "$DEVICE" --driver "$DRIVER" --date "$DATE")
if [ "$DRY" = 1 ]; then
  echo "$PYTHON ${torch_args[*]}"
  echo "# dry run: would write $CSV, $TABLE and $LOG"
  exit 0
fi
say "# PyTorch: $PYTHON ${torch_args[*]}"
"$PYTHON" "${torch_args[@]}" 2>&1 | tee -a "$LOG"
torch_rc=${PIPESTATUS[0]}
if [ "$torch_rc" -ne 0 ]; then
  say "# bench_torch.py: exit $torch_rc (see $LOG)"
  failures=$((failures + 1))
fi

# ---- the table -------------------------------------------------------------------
mv "$PARTIAL" "$CSV"
{
  echo "gpu-bench, $DATE: $DEVICE, driver $DRIVER"
  echo "fp16 forward, batch = 16384 / N, heads = 2048 / d; TFLOP/s = 4 batch heads N^2 d (/2 causal) / median of $RUNS"
  echo "runs (CUDA events, L2 $L2); in brackets the ratio to torch-sdpa-fa2 (PyTorch SDPA, FlashAttention-2 backend)."
  awk -F, -v ns="$NS" -v ds="$DS" -v cs="$CAUSAL" -v tn="$TEACH_N" '
    BEGIN {
      nimpl = split("fasim-v7-flash2-hopper fasim-v6-flash2-fast fasim-v4-flash2-mma fasim-v5-naive-cublas torch-sdpa-fa2 torch-sdpa-cudnn torch-eager " \
                    "fasim-v1-naive fasim-v2-flash2-fp32 fasim-v3-flash1-fp32", impl, " ")
      nn = split(ns, N, " "); nd = split(ds, D, " "); nc = split(cs, C, " ")
    }
    NR > 1 { tf[$9 "," $5 "," $8 "," $4] = $11; has[$4] = 1 }
    END {
      for (a = 1; a <= nd; a++)
        for (b = 1; b <= nc; b++) {
          printf "\nd = %s, %s\n%6s", D[a], (C[b] == 1 ? "causal" : "non-causal"), "N"
          for (i = 1; i <= nimpl; i++) if (has[impl[i]]) printf "  %22s", impl[i]
          printf "\n"
          for (k = 1; k <= nn; k++) {
            printf "%6s", N[k]
            key = D[a] "," C[b] "," N[k] ","
            ref = tf[key "torch-sdpa-fa2"]
            for (i = 1; i <= nimpl; i++) {
              if (!has[impl[i]]) continue
              v = tf[key impl[i]]
              cell = v == "" ? "-" : sprintf("%.1f", v)
              if (v != "" && ref != "" && ref > 0 && impl[i] != "torch-sdpa-fa2") cell = cell sprintf(" (%.2f)", v / ref)
              printf "  %22s", cell
            }
            printf "\n"
          }
        }
      if (tn != "") printf "\nfasim-v1..v3 (teaching kernels, fp32 arithmetic) were timed at N = %s only.\n", tn
      printf "fasim-v5: HBM bytes are a closed form, not counted; its time is measured like the others.\n"
    }' "$CSV"
} | tee "$TABLE"
rows=$(($(wc -l <"$CSV") - 1))
say "# $rows rows in $CSV, $failures command(s) failed, $((SECONDS - start)) s"
[ "$failures" -eq 0 ] || exit 1
exit 0
