# shellcheck shell=bash
# Sourced by scripts/gpu-repeat.sh, gpu-holdout.sh, gpu-holdout-time.sh and gpu-holdout-steps.sh,
# and by the experiment scripts in docs/results that run on a lent GPU.
# append_sweep CSV LOG ARGS...: runs one `"$FASIM" compare --sweep ARGS`
# (counting only, RANGES counter ranges per point) and appends its rows to
# CSV, the header only if CSV is new; its messages go to LOG.
append_sweep() {
  local csv=$1 log=$2 part
  shift 2
  part="$(dirname "$csv")/part.csv"
  "$FASIM" compare --sweep --no-numerics --counter-runs "$RANGES" "$@" --out "$part" >/dev/null 2>>"$log"
  [ -f "$part" ] || return 0
  if [ -f "$csv" ]; then tail -n +2 "$part" >>"$csv"; else cat "$part" >"$csv"; fi
  rm -f "$part"
}

# holdout_start NAME DEFAULT_RANGES: checks OUT and FASIM, makes $OUT, starts csv=$OUT/NAME.csv
# afresh, and defines part ARGS... to append one sweep to it (messages to
# $OUT/NAME.log). RANGES counter ranges per point, DEFAULT_RANGES if unset.
holdout_start() {
  : "${OUT:?set OUT to a folder}"
  : "${FASIM:?set FASIM to the fasim binary}"
  RANGES=${RANGES:-$2}
  mkdir -p "$OUT"
  csv="$OUT/$1.csv"
  log="$OUT/$1.log"
  rm -f "$csv"
  # shellcheck disable=SC2317  # called by the script that sourced this file
  part() { append_sweep "$csv" "$log" "$@"; }
}

# compare_placements NAME PLACEMENTS RANGES ARGS...: one `"$FASIM" compare
# --sweep ARGS` (counting only) with the buffers in PLACEMENTS placements and
# RANGES counter ranges in each, on the profile $dev (holdout_gpu_setup);
# its rows appended to $OUT/NAME.csv (the header only if it is new), its
# output to $OUT/NAME.log, and "NAME ARGS: exit N" printed and logged.
compare_placements() {
  local name=$1 placements=$2 ranges=$3 part="$OUT/$1.part.csv"
  shift 3
  "$FASIM" compare --sweep --no-numerics --counter-runs "$ranges" --placements "$placements" --device "${dev:?}" \
    --out "$part" "$@" >>"$OUT/$name.log" 2>&1
  echo "$name $*: exit $?" | tee -a "$OUT/$name.log"
  [ -f "$part" ] || return 0
  if [ -f "$OUT/$name.csv" ]; then tail -n +2 "$part" >>"$OUT/$name.csv"; else cat "$part" >"$OUT/$name.csv"; fi
  rm -f "$part"
}

# placements_json NAME ARGS...: one `"$FASIM" compare --json` (counting
# only) in 32 placements of one range each, on the profile $dev, to
# $OUT/placements-NAME.json (its messages to .err beside it): the JSON lists
# every placement's counters. Prints "placements-NAME: exit N, S s".
placements_json() {
  local name=$1 start=$SECONDS
  shift
  "$FASIM" compare --json --no-numerics --counter-runs 1 --placements 32 --device "${dev:?}" "$@" \
    >"$OUT/placements-$name.json" 2>"$OUT/placements-$name.err"
  echo "placements-$name: exit $? $((SECONDS - start)) s"
}

# holdout_gpu_setup CARRY: on the GPU machine, unpacks the CUPTI libraries
# scripts/gpu-check.sh --prepare-carry packed into CARRY, points FASIM at
# CARRY's fasim, prints the GPU and driver, and sets g (h200, h100 or gpu)
# and dev, the recorded profile of that GPU.
holdout_gpu_setup() {
  mkdir -p /tmp/fasim-cupti && tar -C /tmp/fasim-cupti -xzf "$1/cupti-libs.tar.gz"
  export LD_LIBRARY_PATH=$1:/tmp/fasim-cupti FASIM=$1/fasim
  local gpu
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  case "$gpu" in *H200*) g=h200 ;; *H100*) g=h100 ;; *) g=gpu ;; esac
  echo "$gpu, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
  # shellcheck disable=SC2034  # read by the script that sourced this file
  dev="docs/results/$g-2026-11-22-measured.toml"
}
