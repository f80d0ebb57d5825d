#!/usr/bin/env python3
"""PyTorch's attention on the FlashAttention-2 paper's forward benchmark (the
PyTorch half of scripts/gpu-bench.sh; run it through that script).

Per point (d, causal, N), fp16, batch = 16384 / N, heads = 2048 / d, inputs
(batch, heads, N, d) from torch.randn, it times:
  torch-sdpa-fa2    scaled_dot_product_attention, sdpa_kernel(SDPBackend.FLASH_ATTENTION)
  torch-sdpa-cudnn  scaled_dot_product_attention, sdpa_kernel(SDPBackend.CUDNN_ATTENTION)
  torch-eager       standard attention in PyTorch ops, as the FlashAttention repo's
                    benchmark writes it: S = baddbmm(Q, K^T, alpha=scale); causal:
                    S.masked_fill_(j > i, -inf); P = softmax(S); O = bmm(P, V)
Protocol, the same as `fasim gpu run`: --warmup untimed calls, then --runs
calls, each timed alone with torch.cuda.Event (record, call, record,
synchronize); the time is their median. --l2 cold writes a buffer of twice the
L2 size before each timed call (outside the events), as fasim's --l2 cold does.
FLOPs = 4 * batch * heads * N^2 * d, halved when causal.

Appends long-form CSV rows device,driver,date,impl,causal,batch,heads,N,d,
time_s,tflops to --csv (the caller writes the header). An implementation that
cannot run a point (no PyTorch, no GPU, backend missing or refusing the shape,
out of memory) prints "<impl> ...: unavailable: <reason>" and writes no row.
Exit status: 0, or 2 for bad arguments.
"""
import argparse
import csv
import datetime
import statistics
import sys

IMPLS = ("torch-sdpa-fa2", "torch-sdpa-cudnn", "torch-eager")


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments: one line naming the problem and the fix, exit 2."""

    def error(self, message):
        sys.stderr.write(f"bench_torch.py: error: {message}; see --help\n")
        sys.exit(2)


def int_list(text, what, ok, rule):
    try:
        values = [int(x) for x in text.split(",") if x != ""]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} '{text}' is not a comma-separated list of integers")
    if not values or not all(ok(v) for v in values):
        raise argparse.ArgumentTypeError(f"{what} '{text}': {rule}")
    return values


def parse_args(argv):
    p = OneLineParser(description="PyTorch SDPA (FlashAttention-2, cuDNN) and eager attention on the "
                                  "FlashAttention-2 benchmark shapes; appends CSV rows.")
    p.add_argument("--ns", default="512,1024,2048,4096,8192,16384",
                   type=lambda t: int_list(t, "--ns", lambda n: 16 <= n <= 16384 and 16384 % n == 0,
                                           "each N must divide 16384 (batch = 16384 / N), 16 <= N <= 16384"),
                   help="sequence lengths, comma-separated (default the paper's 512..16384)")
    p.add_argument("--ds", default="64,128",
                   type=lambda t: int_list(t, "--ds", lambda d: d in (64, 128), "d must be 64 or 128"),
                   help="head dimensions (default 64,128)")
    p.add_argument("--causal", default="0,1",
                   type=lambda t: int_list(t, "--causal", lambda c: c in (0, 1), "use 0 (non-causal) and/or 1"),
                   help="0 non-causal, 1 causal (default 0,1)")
    p.add_argument("--impls", default=",".join(IMPLS), help="implementations (default all: %(default)s)")
    p.add_argument("--runs", type=int, default=30, help="timed calls per point, at least 20 (default 30)")
    p.add_argument("--warmup", type=int, default=5, help="untimed calls first (default 5)")
    p.add_argument("--l2", choices=("warm", "cold"), default="warm", help="flush L2 before each timed call: cold")
    p.add_argument("--csv", required=True, help="CSV file to append rows to")
    p.add_argument("--device", default="", help="device name for the CSV (default: PyTorch's name of GPU 0)")
    p.add_argument("--driver", default="unknown", help="driver version for the CSV")
    p.add_argument("--date", default="", help="date for the CSV (default: today, UTC)")
    a = p.parse_args(argv)
    a.impls = [x for x in a.impls.split(",") if x]
    bad = [x for x in a.impls if x not in IMPLS]
    if bad or not a.impls:
        p.error(f"unknown implementation '{','.join(bad)}' in --impls; use some of {','.join(IMPLS)}")
    if a.runs < 20:
        p.error(f"--runs {a.runs} is too few for a median; use --runs 20 or more")
    if a.warmup < 0:
        p.error("--warmup must be 0 or more")
    if not a.date:
        a.date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    return a


def first_line(e):
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__)[:300]


def say_unavailable(impls, why):
    for impl in impls:
        print(f"{impl}: unavailable: {why}", flush=True)


def main(argv):
    a = parse_args(argv)
    try:
        import torch
        import torch.nn.functional as F
    except Exception as e:  # ImportError, or a broken install
        say_unavailable(a.impls, f"PyTorch cannot be imported ({first_line(e)})")
        return 0
    if not torch.cuda.is_available():
        say_unavailable(a.impls, "PyTorch sees no CUDA device")
        return 0
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except Exception as e:
        SDPBackend = sdpa_kernel = None
        sdpa_why = f"torch.nn.attention is missing in PyTorch {torch.__version__} ({first_line(e)})"

    device = a.device or torch.cuda.get_device_name(0)
    print(f"PyTorch {torch.__version__}, CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()}, "
          f"{torch.cuda.get_device_name(0)}", flush=True)

    def backend(name):
        """The SDPBackend member, or None and why not."""
        if SDPBackend is None:
            return None, sdpa_why
        b = getattr(SDPBackend, name, None)
        return (b, "") if b is not None else (None, f"SDPBackend.{name} is missing in PyTorch {torch.__version__}")

    flush_buf = None
    if a.l2 == "cold":
        l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 0) or (64 << 20)
        flush_buf = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")

    def time_it(fn):
        """Warm-up, then the median of --runs calls, each between two events."""
        for _ in range(a.warmup):
            fn()
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(a.runs):
            if flush_buf is not None:
                flush_buf.fill_(0x5A)
                torch.cuda.synchronize()
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) * 1e-3)
        return statistics.median(times)

    out = open(a.csv, "a", newline="")
    rows = csv.writer(out, lineterminator="\n")
    for d in a.ds:
        for causal in a.causal:
            for n in a.ns:
                b, h = 16384 // n, 2048 // d
                where = f"d={d} causal={causal} N={n} batch={b} heads={h}"
                flops = 4.0 * b * h * n * n * d / (2 if causal else 1)
                scale = d ** -0.5
                try:
                    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.float16) for _ in range(3))
                except torch.cuda.OutOfMemoryError as e:
                    say_unavailable([f"{i} {where}" for i in a.impls], f"out of memory for Q, K, V ({first_line(e)})")
                    torch.cuda.empty_cache()
                    continue
                mask = torch.triu(torch.ones(n, n, dtype=torch.bool, device="cuda"), 1) if causal else None

                def eager():
                    qf, kf, vf = (x.reshape(b * h, n, d) for x in (q, k, v))
                    s = torch.empty(b * h, n, n, device="cuda", dtype=torch.float16)
                    s = torch.baddbmm(s, qf, kf.transpose(1, 2), beta=0, alpha=scale)
                    if mask is not None:
                        s.masked_fill_(mask, float("-inf"))
                    return torch.bmm(torch.softmax(s, dim=-1), vf)

                for impl in a.impls:
                    fn, why, ctx = None, "", None
                    if impl == "torch-eager":
                        fn = eager
                    else:
                        kind, why = backend("FLASH_ATTENTION" if impl == "torch-sdpa-fa2" else "CUDNN_ATTENTION")
                        if kind is not None:
                            ctx = kind
                            fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
                    if fn is None:
                        say_unavailable([f"{impl} {where}"], why)
                        continue
                    try:
                        if ctx is not None:
                            with sdpa_kernel(ctx):  # outside the timed calls: no host overhead inside them
                                t = time_it(fn)
                        else:
                            t = time_it(fn)
                    except Exception as e:  # no kernel for this shape, out of memory, ...
                        say_unavailable([f"{impl} {where}"], first_line(e))
                        torch.cuda.synchronize()
                        torch.cuda.empty_cache()
                        continue
                    tflops = flops / t / 1e12
                    rows.writerow([device, a.driver, a.date, impl, causal, b, h, n, d, f"{t:.9g}", f"{tflops:.6g}"])
                    out.flush()
                    print(f"{impl} {where}: {t * 1e3:.3f} ms, {tflops:.1f} TFLOP/s", flush=True)
                del q, k, v, mask
                torch.cuda.empty_cache()
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
