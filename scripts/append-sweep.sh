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
