#!/bin/bash
# bench-sim-2026-11-24.sh: the L2 sweep change, before and after, in turn (3 rounds), user seconds
# Build a3cefdd and the change, copy their fasim binaries to $B and $A.
B=${B:-/tmp/ident/fasim-base}; A=${A:-/tmp/ident/fasim-new}
while read -r args; do
  for r in 1 2 3; do
    for which in before after; do bin=$B; [ $which = after ] && bin=$A
      /usr/bin/time -f "%U" -o ${TMPDIR:-/tmp}/fasim-speed-t $bin run $args --no-numerics >/dev/null
      echo "$args|$which|$(cat ${TMPDIR:-/tmp}/fasim-speed-t)"
    done
  done
done <<'ARGS'
--algo flash1 --N 16384 --heads 32
--algo flash1 --N 8192 --heads 64 --dtype fp32 --d 128
--algo naive --N 16384 --heads 32
--algo flash2 --N 16384 --heads 32
ARGS
