#!/usr/bin/env bash
# Fuzzes fasim's inputs with libFuzzer (clang, AddressSanitizer, UBSan):
# device TOML, scenario TOML, the command line, trace files. Each target runs
# SECONDS (default 600), two at a time; what it finds new is merged, minimised,
# into tests/fuzz/corpus/TARGET/, which every `ctest` replays without clang.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   targets: device_spec scenario cli trace_reader
#
# A crash, hang or sanitizer report stops with the input in build/fuzz/artifacts/.
# FASIM_BUILD_DIR=DIR builds there instead of build/fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(device_spec scenario cli trace_reader)
source scripts/deps.sh
if command -v dpkg-query >/dev/null 2>&1; then
  missing=$(fasim_missing_packages "${FASIM_FUZZ_PACKAGES[@]}")
  if [ -n "$missing" ]; then
    if [ "$(id -u)" -eq 0 ]; then
      DEBIAN_FRONTEND=noninteractive apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing
    else
      echo "fasim: fuzzing needs clang and libFuzzer; install them with: sudo apt-get install -y $missing" >&2
      exit 2
    fi
  fi
fi
dir=${FASIM_BUILD_DIR:-build/fuzz}
cmake --preset fuzz -B "$dir" >/dev/null
cmake --build "$dir" --target $(printf 'fuzz_%s ' "${targets[@]}")
mkdir -p "$dir/artifacts" "$dir/logs"

fuzz_one() {
  local t=$1 work="$dir/work/$1"
  mkdir -p "$work"
  "$dir/bin/fuzz_$t" "$work" "tests/fuzz/corpus/$t" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/artifacts/$t-" >"$dir/logs/$t.log" 2>&1 || {
    echo "fuzz_$t failed; see $dir/logs/$t.log and $dir/artifacts/" >&2
    return 1
  }
  # Keep only what adds coverage: a small corpus that replays in a moment.
  # Past 300 files, count edges only (not how often each runs).
  mkdir -p "$dir/merged/$t"
  rm -f "$dir/merged/$t"/*
  "$dir/bin/fuzz_$t" -merge=1 "$dir/merged/$t" "tests/fuzz/corpus/$t" "$work" >>"$dir/logs/$t.log" 2>&1
  if [ "$(ls "$dir/merged/$t" | wc -l)" -gt 300 ]; then
    rm -f "$dir/merged/$t"/*
    "$dir/bin/fuzz_$t" -merge=1 -use_counters=0 "$dir/merged/$t" "tests/fuzz/corpus/$t" "$work" >>"$dir/logs/$t.log" 2>&1
  fi
  rm -f "tests/fuzz/corpus/$t"/*
  cp "$dir/merged/$t"/* "tests/fuzz/corpus/$t/"
  echo "fuzz_$t: $(grep -m1 'number_of_executed_units' "$dir/logs/$t.log" | awk '{print $2}') runs in ${seconds} s," \
       "no failure; corpus: $(ls "tests/fuzz/corpus/$t" | wc -l) files"
}

status=0
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  fuzz_one "${targets[i]}" & a=$!
  b=""
  if [ $((i + 1)) -lt ${#targets[@]} ]; then fuzz_one "${targets[i + 1]}" & b=$!; fi
  wait $a || status=1
  [ -n "$b" ] && { wait $b || status=1; }
done
exit $status
