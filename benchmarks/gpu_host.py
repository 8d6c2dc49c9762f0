"""Where the host time of a GPU call goes: per-call host microseconds and a profile.

The GPU figures (benchmarks/gpu.py --profile) show mid-sized calls waiting for
the host.  This script takes small inputs (device time negligible), measures
the host time per call (calls queued back to back, one synchronisation at the
end), the same for torch's own op, and an empty Triton kernel's launch, then
profiles the axisops calls with cProfile and prints the functions that take
the host time.

    python benchmarks/gpu_host.py            # on a CUDA machine, < 1 minute
    python benchmarks/gpu_host.py --interpret  # the same code paths on the CPU (slow)
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import time
from typing import Any


def per_call_us(fn: Any, sync: Any, calls: int) -> float:
    """Host microseconds per call, calls queued back to back (min over 5 batches)."""
    for _ in range(min(20, calls)):
        fn()
    sync()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e6


def profile(fn: Any, calls: int, top: int) -> str:
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--interpret", action="store_true", help="CPU tensors, Triton's interpreter")
    p.add_argument("--calls", type=int, default=None)
    p.add_argument("--top", type=int, default=25, help="profile lines per case")
    args = p.parse_args(argv)
    if args.interpret:
        os.environ["TRITON_INTERPRET"] = "1"
    import torch
    import triton
    import triton.language as tl

    import axisops

    device = "cpu" if args.interpret else "cuda"
    if device == "cuda" and not torch.cuda.is_available():
        print("no CUDA device here; use --interpret", file=sys.stderr)
        return 2
    calls = args.calls or (3 if args.interpret else 300)
    backend = "triton" if args.interpret else None

    def sync() -> None:
        if device == "cuda":
            torch.cuda.synchronize()

    @triton.jit
    def empty(x, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x + i, tl.load(x + i, mask=i < n), mask=i < n)

    g = torch.Generator(device=device).manual_seed(0)
    x = torch.randn(64, 64, device=device, generator=g)
    idx = torch.randint(0, 64, (64, 8), device=device, generator=g)
    router = torch.randn(256, 64, device=device, generator=g)
    long_rows = torch.randn(4, 8192, device=device, generator=g)
    small = torch.zeros(128, device=device)
    cases = {
        "empty Triton kernel": (lambda: empty[(1,)](small, 128, BLOCK=128), None),
        "gather (64, 64) by (64, 8)": (lambda: axisops.gather(x, 1, idx, backend=backend),
                                       lambda: torch.gather(x, 1, idx)),
        "topk (256, 64) k=2": (lambda: axisops.topk(router, 2, backend=backend),
                               lambda: torch.topk(router, 2)),
        "topk (4, 8192) k=10": (lambda: axisops.topk(long_rows, 10, backend=backend),
                                lambda: torch.topk(long_rows, 10)),
    }
    name = torch.cuda.get_device_name() if device == "cuda" else "CPU (interpreter)"
    print(f"{name}; torch {torch.__version__}; triton {triton.__version__}")
    for label, (ours, theirs) in cases.items():
        us = per_call_us(ours, sync, calls)
        line = f"{label:28} host {us:8.1f} us/call"
        if theirs is not None:
            line += f"   torch {per_call_us(theirs, sync, calls):8.1f} us/call"
        print(line, flush=True)
    for label, (ours, _) in list(cases.items())[1:]:
        print(f"\n==== {label}: cProfile of {calls} calls, by own time")
        print(profile(ours, calls, args.top))
        sync()
    return 0


if __name__ == "__main__":
    sys.exit(main())
