"""GPU experiment: routes the Triton top-k could take, and gather's two paths, side by side.

For each case every variant is checked bit for bit against axisops on the CPU, then
timed three ways: CUDA-event median of single calls (as ``gpu.py`` does), device time
of one call's kernels (torch.profiler), and calls queued back to back (host-bound rate).

- top-k, long rows with k > 16 whose selections fit a row tile:
  ``fused-bitonic`` (the default: one fused kernel, ``tl.topk``), ``fused-iterate``
  (the fused kernel with k rounds of max), ``separate`` (block maxima, then the row
  kernel, candidates and ``torch.topk`` where a selection exceeds a tile: the route
  before the fused kernel took k > 16);
- gather: the Triton kernel against the exact torch-ops path and ``torch.gather``.

    python benchmarks/gpu_variants.py --json variants.json     # on a CUDA machine, ~1 minute
    python benchmarks/gpu_variants.py --interpret              # tiny cases, Triton interpreter
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

CASES = [((32, 128256), 50), ((256, 131072), 17), ((256, 131072), 50),
         ((256, 131072), 100), ((64, 65536), 32)]
GATHERS = [((8192, 8192), (8192, 64)), ((64, 64), (64, 8)), ((8192, 8192), (8192, 2048))]
TINY_CASES = [((1, 4608), 17)]
TINY_GATHERS = [((64, 64), (64, 8))]


def _gpu_module() -> Any:
    path = Path(__file__).with_name("gpu.py")
    spec = importlib.util.spec_from_file_location("gpu_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["gpu_benchmark"] = module
    spec.loader.exec_module(module)
    return module


class Bench:
    def __init__(self, interpret: bool):
        if interpret:
            os.environ["TRITON_INTERPRET"] = "1"
        import torch

        import axisops
        from axisops.kernels.triton import topk as triton_topk

        self.G = _gpu_module()
        self.torch, self.axisops, self.T = torch, axisops, triton_topk
        self.device = "cpu" if interpret else "cuda"
        self.backend = "triton" if interpret else None
        self.clock = self.G.Clock(torch, self.device, 1 if interpret else 20, 1 if interpret else 3)
        self.queued = 1 if interpret else 50
        self.rotate = 1 if interpret else 4  # inputs timed in turn (the interpreter only checks)
        self.rows: list[dict] = []

    def variants(self) -> dict[str, tuple[int, Any]]:
        fit = self.T._Job.selections_fit
        return {"fused-bitonic": (16, fit), "fused-iterate": (128, fit),
                "separate": (16, lambda job, b: False)}

    def device_us(self, call: Any, arg: Any) -> tuple[float, list]:
        if self.device != "cuda":  # no device: the interpreter's run has no kernel times
            return 0.0, []
        profiler = self.torch.profiler
        with profiler.profile(activities=[profiler.ProfilerActivity.CUDA]) as prof:
            call(arg)
            self.clock.sync()
        kernels = self.G.kernel_times(prof)
        return sum(us for _, us in kernels), kernels[:6]

    def queued_us(self, call: Any, inputs: list) -> float:
        self.clock.sync()
        t0 = time.perf_counter()
        for i in range(self.queued):
            call(inputs[i % len(inputs)])
        self.clock.sync()
        return (time.perf_counter() - t0) / self.queued * 1e6

    def host_us(self, call: Any, inputs: list, seconds: float) -> float:
        """Host microseconds per call queued back to back; on the CPU (the interpreter)
        nothing is queued, and it is the timed call's."""
        return self.queued_us(call, inputs) if self.device == "cuda" else seconds * 1e6

    def record(self, row: dict) -> None:
        self.rows.append(row)
        what = f"k={row['k']}" if "k" in row else f"index={row['index']}"
        print(f"{row['op']:6} {row['shape']!s:>15} {what:>18} {row['variant']:14} "
              f"exact={row['exact']!s:5} {row['ms']:8.3f} ms  torch {row['torch_ms']:8.3f} ms "
              f"x{row['vs_torch']:5.2f}  device {row['device_us']:7.1f} us  queued "
              f"{row['queued_us']:8.1f} us  {row['kernels'][:3]}", flush=True)

    def topk(self, shape: tuple, k: int) -> None:
        torch, ax, T = self.torch, self.axisops, self.T
        xs = [self.G.tie_heavy(torch, shape, s, self.device) for s in range(self.rotate)]
        ref = {d: ax.topk(xs[0].cpu(), k, largest=d) for d in (True, False)}
        torch_s = self.clock.median(lambda a: torch.topk(a, k, dim=1), xs)
        saved = T.ITERATE_MAX_K, T._Job.selections_fit
        try:
            for name, (iterate_max, fit) in self.variants().items():
                T.ITERATE_MAX_K, T._Job.selections_fit = iterate_max, fit
                exact = True
                for d in (True, False):
                    r = ax.topk(xs[0], k, largest=d, backend=self.backend)
                    exact &= self.G.same_bits(torch, r.values, ref[d].values)
                    exact &= self.G.same_bits(torch, r.indices, ref[d].indices)
                call = functools.partial(ax.topk, k=k, backend=self.backend)
                s = self.clock.median(call, xs)
                dev, kernels = self.device_us(call, xs[0])
                self.record(dict(op="topk", shape=shape, k=k, variant=name, exact=bool(exact),
                                 ms=s * 1e3, torch_ms=torch_s * 1e3, vs_torch=torch_s / s,
                                 device_us=dev, queued_us=self.host_us(call, xs, s),
                                 kernels=kernels))
        finally:
            T.ITERATE_MAX_K, T._Job.selections_fit = saved

    def gather_pair(self, pair: tuple, backend: str | None) -> Any:
        return self.axisops.gather(pair[0], 1, pair[1], backend=backend)

    def gather(self, shape: tuple, ishape: tuple) -> None:
        torch, ax = self.torch, self.axisops
        xs = [self.G.tie_heavy(torch, shape, s, self.device)
              for s in range(max(1, self.rotate // 2))]
        g = torch.Generator(device=self.device).manual_seed(1)
        pairs = [(x, torch.randint(0, shape[1], ishape, generator=g, device=self.device))
                 for x in xs]
        ref = ax.gather(pairs[0][0].cpu(), 1, pairs[0][1].cpu())
        torch_s = self.clock.median(lambda p: torch.gather(p[0], 1, p[1]), pairs)
        for backend in (self.backend, "torch"):
            call = functools.partial(self.gather_pair, backend=backend)
            exact = self.G.same_bits(torch, call(pairs[0]), ref)
            s = self.clock.median(call, pairs)
            dev, kernels = self.device_us(call, pairs[0])
            self.record(dict(op="gather", shape=shape, index=ishape,
                             variant=f"backend={backend or 'default'}", exact=bool(exact),
                             ms=s * 1e3, torch_ms=torch_s * 1e3, vs_torch=torch_s / s,
                             device_us=dev, queued_us=self.host_us(call, pairs, s),
                             kernels=kernels))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--interpret", action="store_true", help="tiny cases, Triton interpreter")
    p.add_argument("--json", default="gpu-variants.json", help="where to write the rows")
    args = p.parse_args(argv)
    bench = Bench(args.interpret)
    if not args.interpret and not bench.torch.cuda.is_available():
        print("no CUDA device; try --interpret", file=sys.stderr)
        return 2
    for shape, k in TINY_CASES if args.interpret else CASES:
        bench.topk(shape, k)
    for shape, ishape in TINY_GATHERS if args.interpret else GATHERS:
        bench.gather(shape, ishape)
    Path(args.json).write_text(json.dumps(bench.rows, indent=1))
    exact = all(r["exact"] for r in bench.rows)
    print(f"all exact: {exact}")
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
