# shellcheck shell=bash
# Sourced by scripts/gpu-repeat.sh, gpu-holdout.sh, gpu-holdout-time.sh and gpu-holdout-steps.sh.
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
