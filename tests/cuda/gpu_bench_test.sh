#!/usr/bin/env bash
# scripts/gpu-bench.sh and scripts/bench_torch.py without a GPU: bad settings
# get one line and exit 2; --dry-run prints every command and writes nothing;
# with a fake fasim and a fake python, the CSV rows (TFLOP/s, causal halving),
# the tile choice, a failed point (exit 1, the rest kept) and the table's
# ratios to torch-sdpa-fa2; bench_torch.py's own argument checks and its
# "unavailable" report where PyTorch or a GPU is missing.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bench="$root/scripts/gpu-bench.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
has() { grep -qF -- "$2" <<<"$1" || fail "expected '$2' in: $1"; }

# 1. --help; bad arguments and settings: exit 2, one line on stderr, no files.
"$bench" --help | grep -q "FlashAttention-2 paper" || fail "--help"
check_bad() {  # expected-text, then the command (with env assignments via env)
  local want=$1
  shift
  local err rc
  err=$(cd "$tmp" && env OUT="$tmp/bad" "$@" 2>&1 >/dev/null)
  rc=$?
  [ "$rc" -eq 2 ] || fail "exit $rc, not 2, for: $*"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "not one line for $*: $err"
  has "$err" "$want"
  [ ! -e "$tmp/bad" ] || fail "files written for: $*"
}
check_bad "unknown argument '--fast'" "$bench" --fast
check_bad "NS has '1000'" NS="512 1000" "$bench" --dry-run
check_bad "DS has '96'" DS="64 96" "$bench" --dry-run
check_bad "CAUSAL has 'yes'" CAUSAL=yes "$bench" --dry-run
check_bad "at least 20 runs" RUNS=5 "$bench" --dry-run
check_bad "L2=hot" L2=hot "$bench" --dry-run
check_bad "TEACH_N=2048 is not in NS" NS="512 1024" TEACH_N=2048 "$bench" --dry-run
check_bad "no fasim binary at '$tmp/none'" FASIM_BIN="$tmp/none" "$bench"

# 2. --dry-run: the commands, nothing written.
out=$(cd "$tmp" && OUT="$tmp/dry" NS="512 1024" "$bench" --dry-run) || fail "--dry-run exit $?"
[ ! -e "$tmp/dry" ] || fail "--dry-run wrote files"
has "$out" "gpu run --dtype fp16 --N 512 --d 64 --batch 32 --heads 32 --runs 30 --l2 warm --no-counters --no-numerics --json --algo flash2 --kernel 4 --br 128 --bc 128 --causal"
has "$out" "--N 1024 --d 128 --batch 16 --heads 16 --runs 30 --l2 warm --no-counters --no-numerics --json --algo naive --kernel 5"
has "$out" "--N 1024 --d 128 --batch 16 --heads 16 --runs 30 --l2 warm --no-counters --no-numerics --json --algo flash1 --kernel 3 --br 64 --bc 64"
has "$out" "scripts/bench_torch.py --ns 512,1024 --ds 64,128 --causal 0,1 --runs 30 --l2 warm"
has "$out" "--N 512 --d 128 --batch 32 --heads 16 --runs 30 --l2 warm --no-counters --no-numerics --json --algo flash2 --kernel 6 --br 128 --bc 64"
has "$out" "--N 512 --d 64 --batch 32 --heads 32 --runs 30 --l2 warm --no-counters --no-numerics --json --algo flash2 --kernel 7 --br 128 --bc 128"
# 15 tile probes (version 4: 3 per d; version 6: 3 at d = 64, 2 at d = 128;
# version 7: 2 per d), 4 versions x 2 N x 2 d x 2 causal, 3 teaching kernels
# x 2 d x 2 causal
[ "$(grep -c ' gpu run ' <<<"$out")" -eq $((15 + 32 + 12)) ] || fail "dry run: $(grep -c ' gpu run ' <<<"$out") fasim commands"

# 3. A fake fasim (times from its flags) and a fake python (rows for torch-sdpa-fa2).
cat >"$tmp/fasim" <<'FAKE'
#!/usr/bin/env bash
# median: 1 ms per 512 of N; version 5 takes twice that, version 6 half, version 7 a quarter;
# tiles 128x64 are the fastest at d = 128, 128x128 at d = 64 (version 7: 128x128 at both);
# version 5 causal at N = 1024 fails.
n=0 d=0 k=0 br=0 bc=0 causal=0
while [ $# -gt 0 ]; do
  case $1 in --N) n=$2 ;; --d) d=$2 ;; --kernel) k=$2 ;; --br) br=$2 ;; --bc) bc=$2 ;; --causal) causal=1 ;; esac
  shift
done
if [ "$k" = 5 ] && [ "$causal" = 1 ] && [ "$n" = 1024 ]; then echo "fasim: error: fake failure" >&2; exit 1; fi
t=$(awk -v n="$n" -v k="$k" -v d="$d" -v br="$br" -v bc="$bc" 'BEGIN {
  t = n / 512 * 0.001 * (k == 5 ? 2 : k == 6 ? 0.5 : k == 7 ? 0.25 : 1)
  if ((k == 4 || k == 6) && !((d == 64 && br == 128 && bc == 128) || (d == 128 && br == 128 && bc == 64))) t *= 1.5
  if (k == 7 && bc != 128) t *= 1.5
  printf "%.17g", t }')
printf '{\n  "kernel": {\n    "version": %s\n  },\n  "time": {\n    "max_s": 1.0,\n    "median_s": %s,\n    "min_s": 0.0001,\n    "samples_s": [\n      0.5\n    ]\n  }\n}\n' "$k" "$t"
FAKE
cat >"$tmp/python" <<'FAKE'
#!/usr/bin/env bash
# As bench_torch.py: torch-sdpa-fa2 at half of version 4's fake time; cuDNN unavailable.
shift  # the script path
while [ $# -gt 0 ]; do
  case $1 in --ns) ns=$2 ;; --ds) ds=$2 ;; --causal) cs=$2 ;; --csv) csv=$2 ;; --device) dev=$2 ;;
             --driver) drv=$2 ;; --date) date=$2 ;; esac
  shift
done
for d in ${ds//,/ }; do for c in ${cs//,/ }; do for n in ${ns//,/ }; do
  awk -v n="$n" -v d="$d" -v c="$c" -v dev="$dev" -v drv="$drv" -v date="$date" 'BEGIN {
    b = 16384 / n; h = 2048 / d; t = n / 512 * 0.0005; f = 4 * b * h * n * n * d / (c == 1 ? 2 : 1)
    printf "%s,%s,%s,torch-sdpa-fa2,%s,%s,%s,%s,%s,%.9g,%.6g\n", dev, drv, date, c, b, h, n, d, t, f / t / 1e12 }' >>"$csv"
  echo "torch-sdpa-cudnn d=$d causal=$c N=$n: unavailable: fake"
done; done; done
FAKE
chmod +x "$tmp/fasim" "$tmp/python"
out=$(cd "$tmp" && OUT="$tmp/run" FASIM_BIN="$tmp/fasim" PYTHON="$tmp/python" NS="512 1024" TEACH_N=512 \
      TILE_N=1024 RUNS=20 "$bench" 2>"$tmp/stderr")
rc=$?
[ "$rc" -eq 1 ] || fail "with one failed point the exit is $rc, not 1: $(cat "$tmp/stderr")"
has "$(cat "$tmp/stderr")" "fasim-v5-naive-cublas d=64 causal=1 N=1024: FAILED (exit 1; fasim: error: fake failure)"
csv="$tmp/run/gpu-bench.csv"
[ -f "$csv" ] && [ ! -e "$csv.partial" ] || fail "gpu-bench.csv missing or still partial"
[ -f "$tmp/run/gpu-bench-table.txt" ] && [ -f "$tmp/run/gpu-bench.log" ] || fail "table or log missing"
[ "$(head -1 "$csv")" = "device,driver,date,impl,causal,batch,heads,N,d,time_s,tflops" ] || fail "CSV header: $(head -1 "$csv")"
# v7, v6, v4: 8 points each; v5: 8 - 2 failed (d = 64 and 128, causal, N = 1024); teaching: 12; PyTorch: 8
[ "$(($(wc -l <"$csv") - 1))" -eq $((8 + 8 + 8 + 6 + 12 + 8)) ] || fail "$(($(wc -l <"$csv") - 1)) CSV rows"
[ "$(awk -F, 'NR > 1 && NF != 11' "$csv" | wc -l)" -eq 0 ] || fail "a CSV row without 11 fields"
# 4 * 32 * 32 * 512^2 * 64 FLOP in 1 ms: 68.7195 TFLOP/s; causal: half.
has "$(cat "$csv")" ",fasim-v4-flash2-mma,0,32,32,512,64,0.001,68.7195"
has "$(cat "$csv")" ",fasim-v4-flash2-mma,1,32,32,512,64,0.001,34.3597"
has "$(cat "$csv")" ",fasim-v3-flash1-fp32,1,32,16,512,128,0.001,"
has "$out" "version 4 tiles at d=64, timed at N=1024 non-causal: 128x128 2.000 ms, 128x64 3.000 ms, 64x64 3.000 ms, using 128x128"
has "$out" "using 128x64"
has "$out" "version 6 tiles at d=128, timed at N=1024 non-causal: 128x64 1.000 ms, 64x64 1.500 ms, using 128x64"
has "$out" "version 7 tiles at d=128, timed at N=1024 non-causal: 128x128 0.500 ms, 128x64 0.750 ms, using 128x128"
has "$out" "torch-sdpa-cudnn d=64 causal=0 N=512: unavailable: fake"
table=$(cat "$tmp/run/gpu-bench-table.txt")
has "$table" "d = 128, causal"
has "$table" "68.7 (0.50)"  # version 4 at half torch-sdpa-fa2's speed
has "$table" "137.4 (1.00)"  # version 6 at torch-sdpa-fa2's speed
has "$table" "274.9 (2.00)"  # version 7 at twice it
has "$table" "34.4 (0.25)"  # version 5 non-causal at N = 512, d = 64
[ "$(grep -c '^ *1024 ' <<<"$table")" -eq 4 ] || fail "table rows for N = 1024"

# 4. bench_torch.py itself: bad arguments exit 2 in one line; no PyTorch or no
#    GPU is reported as unavailable, exit 0, no row.
if command -v python3 >/dev/null; then
  py="$root/scripts/bench_torch.py"
  for bad in "--ns 1000" "--ds 80" "--causal 2" "--runs 5" "--impls torch-flash3"; do
    # shellcheck disable=SC2086
    err=$(python3 "$py" --csv "$tmp/t.csv" $bad 2>&1 >/dev/null)
    rc=$?
    [ "$rc" -eq 2 ] || fail "bench_torch.py $bad: exit $rc"
    [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "bench_torch.py $bad: not one line: $err"
  done
  : >"$tmp/t.csv"
  out=$(python3 "$py" --csv "$tmp/t.csv" --ns 512 --ds 64 --causal 0 2>&1) || fail "bench_torch.py without a GPU: exit $?"
  has "$out" "torch-sdpa-fa2"
  has "$out" "unavailable:"
  [ ! -s "$tmp/t.csv" ] || fail "bench_torch.py wrote rows without a GPU"
else
  echo "skipped: no python3 here; bench_torch.py not checked"
fi
echo "gpu-bench.sh and bench_torch.py: all checks passed"
