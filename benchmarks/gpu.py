"""GPU benchmark: axisops against torch.topk / torch.gather, exactness first.

For every case the script first checks axisops on the device bit for bit
against axisops on the CPU (tie-heavy data with NaN payloads and both zeros:
``largest=True`` puts the NaNs and the tied maxima at the cut,
``largest=False`` the tied +0.0/-0.0), then times axisops and torch with CUDA
events (warm-up, then the median over inputs rotated so that no call finds
its input in L2).  It reports the ratio to torch, and the fraction of the
measured copy bandwidth each call reaches, counting the bytes it must read
once (the input for top-k; the index plus one element per index for gather)
against the read+write rate of a device-to-device copy.  It writes JSON.

    python benchmarks/gpu.py                          # on a CUDA machine, < 5 minutes
    python benchmarks/gpu.py --profile                # plus each call's kernels and their times
    python benchmarks/gpu.py --interpret --quick      # small cases, Triton interpreter on CPU

``--interpret`` runs the Triton kernels on CPU tensors in Triton's interpreter
(``backend="triton"``) and times with the wall clock: a correctness run of
the very code the GPU runs, not a measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any

#: CPU memory the tie-heavy generator and the CPU reference may use is bounded by
#: the largest case: (1, 2**28) float32 is 1 GiB.
FULL_CASES: list[dict[str, Any]] = [
    {"op": "topk", "shape": (1, 2**28), "k": 10, "label": "one long row"},
    {"op": "topk", "shape": (1, 2**28), "k": 1000, "label": "one long row"},
    {"op": "topk", "shape": (256, 131072), "k": 10, "label": "batched long rows"},
    {"op": "topk", "shape": (256, 131072), "k": 100, "label": "batched long rows"},
    {"op": "topk", "shape": (16384, 4096), "k": 8, "label": "MoE routing"},
    {"op": "topk", "shape": (32, 128256), "k": 50, "label": "LLM sampling"},
    {"op": "gather", "shape": (8192, 8192), "index": (8192, 64), "label": "gather rows"},
]
QUICK_CASES: list[dict[str, Any]] = [
    {"op": "topk", "shape": (1, 2**15), "k": 10, "label": "long row, block-max filter"},
    {"op": "topk", "shape": (1, 2**15), "k": 1000, "label": "long row, packed torch.topk"},
    {"op": "topk", "shape": (4, 8192), "k": 10, "label": "batched long rows"},
    {"op": "topk", "shape": (64, 512), "k": 8, "label": "MoE-like short rows"},
    {"op": "topk", "shape": (2, 100), "k": 20, "label": "per-row bitonic top-k"},
    {"op": "gather", "shape": (256, 256), "index": (256, 16), "label": "gather rows"},
]
DTYPE = "float32"
TIME_BUDGET_S = 270.0


@dataclass
class Result:
    """One case's outcome (one JSON record)."""

    op: str
    label: str
    shape: tuple[int, ...]
    k: int | None
    index_shape: tuple[int, ...] | None
    dtype: str
    backend: str
    exact: bool = False
    torch_matches_contract: bool | None = None
    axisops_s: float | None = None
    torch_s: float | None = None
    speedup_vs_torch: float | None = None
    bytes_read_once: int = 0
    fraction_of_copy_bw: float | None = None
    case_s: float | None = None
    notes: list[str] = field(default_factory=list)
    #: with --profile: (kernel name, device microseconds) of one axisops call, longest first.
    kernels: list[tuple[str, float]] = field(default_factory=list)
    #: with --profile: the device time of that call (its kernels' sum); the rest of
    #: ``axisops_s`` is the device waiting for the host.
    device_s: float | None = None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--interpret", action="store_true",
                   help="run the Triton kernels on CPU tensors in Triton's interpreter")
    p.add_argument("--quick", action="store_true", help="small cases (seconds, not minutes)")
    p.add_argument("--json", default="gpu-benchmark.json", help="where to write the results")
    p.add_argument("--reps", type=int, default=None, help="timed calls per case")
    p.add_argument("--profile", action="store_true",
                   help="also list the GPU kernels of one axisops call per case (torch.profiler)")
    args = p.parse_args(argv)
    if args.interpret and not args.quick:
        p.error("--interpret needs --quick (the full cases would take hours in the interpreter)")
    if args.interpret and args.profile:
        p.error("--profile needs a GPU (the interpreter runs no device kernels)")
    if args.reps is None:
        args.reps = 2 if args.interpret else 20
    return args


class Clock:
    """Times a callable: CUDA events on a GPU, the wall clock otherwise."""

    def __init__(self, torch: Any, device: str, reps: int, warmup: int):
        self.torch, self.device, self.reps, self.warmup = torch, device, reps, warmup

    def sync(self) -> None:
        if self.device == "cuda":
            self.torch.cuda.synchronize()

    def median(self, fn: Any, inputs: list[Any]) -> float:
        for i in range(self.warmup):
            fn(inputs[i % len(inputs)])  # warm-up: compilation, autotuning, allocator
        self.sync()
        times = []
        for i in range(self.reps):
            a = inputs[i % len(inputs)]
            if self.device == "cuda":
                start = self.torch.cuda.Event(enable_timing=True)
                end = self.torch.cuda.Event(enable_timing=True)
                start.record()
                fn(a)
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end) / 1e3)
            else:
                t0 = time.perf_counter()
                fn(a)
                times.append(time.perf_counter() - t0)
        return statistics.median(times)


def copy_bandwidth(torch: Any, clock: Clock, device: str, quick: bool) -> float:
    """Read+write bytes per second of a device-to-device copy of a large buffer."""
    nbytes = (64 << 20) if quick else (1 << 30)
    src = torch.empty(nbytes // 4, dtype=torch.float32, device=device).fill_(1.0)
    dst = torch.empty_like(src)
    seconds = clock.median(dst.copy_, [src])
    return 2 * nbytes / seconds


def tie_heavy(torch: Any, shape: tuple[int, ...], seed: int, device: str) -> Any:
    """float32 data with ties at every cut, NaN payloads and both zeros.

    Values are multiples of 0.25 from about n/64 levels, so the top and bottom
    levels hold ~64 tied elements per row; each row gets three NaNs (distinct
    payloads, one negative) and every zero has a random sign.
    """
    g = torch.Generator(device=device).manual_seed(seed)
    rows, n = shape
    levels = max(16, n // 64)
    x = torch.randint(0, levels, shape, generator=g, device=device).to(torch.float32) * 0.25
    signs = torch.randint(0, 2, shape, generator=g, device=device).bool()
    x = torch.where((x == 0) & signs, torch.tensor(-0.0, device=device), x)
    bits = x.view(torch.int32)
    cols = torch.randint(0, n, (rows, 3), generator=g, device=device)
    payloads = torch.tensor([0x7FC00001, 0x7FC12345, -0x3FFFFF], dtype=torch.int32,
                            device=device)  # the last is 0xFFC00001 as int32
    bits.scatter_(1, cols, payloads.expand(rows, 3).contiguous())
    return x


def same_bits(torch: Any, a: Any, b: Any) -> bool:
    """Bit equality of two tensors of one dtype and shape (on any devices)."""
    from axisops.kernels.torch.dtypes import signed_view

    a, b = a.cpu(), b.cpu()
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(signed_view(a),
                                                                      signed_view(b))


class Runner:
    """Runs the cases: the exactness check first, then the timings."""

    def __init__(self, args: argparse.Namespace):
        if args.interpret:
            os.environ["TRITON_INTERPRET"] = "1"  # before any Triton kernel is built
        import torch

        import axisops

        self.torch, self.axisops, self.args = torch, axisops, args
        self.device = "cpu" if args.interpret else "cuda"
        self.backend = "triton" if args.interpret else None
        self.clock = Clock(torch, self.device, args.reps, 1 if args.interpret else 3)
        self.refs: dict[tuple, Any] = {}
        self.started = time.perf_counter()

    def device_name(self) -> str:
        if self.device == "cuda":
            return self.torch.cuda.get_device_name()
        return "CPU (Triton interpreter)"

    def inputs(self, shape: tuple[int, ...], count: int) -> list[Any]:
        return [tie_heavy(self.torch, shape, seed, self.device) for seed in range(count)]

    def rotation(self, nbytes: int) -> int:
        """How many distinct inputs to rotate through: enough to defeat L2."""
        if self.args.quick:
            return 2
        return max(2, min(8, -(-(256 << 20) // nbytes)))

    def cpu_topk(self, x: Any, shape: tuple, k_max: int, largest: bool) -> Any:
        """axisops on the CPU, once per input and direction, for the largest k asked."""
        key = (shape, largest)
        if key not in self.refs:
            self.refs[key] = self.axisops.topk(x.cpu(), k_max, largest=largest)
        return self.refs[key]

    def check_topk(self, x: Any, case: dict, k_max: int, result: Result) -> None:
        k = case["k"]
        ok = True
        for largest in (True, False):
            got = self.axisops.topk(x, k, largest=largest, backend=self.backend)
            ref = self.cpu_topk(x, case["shape"], k_max, largest)
            ok &= same_bits(self.torch, got.values, ref.values[:, :k].contiguous())
            ok &= same_bits(self.torch, got.indices, ref.indices[:, :k].contiguous())
            if largest:
                peer = self.torch.topk(x, k, dim=1)
                result.torch_matches_contract = bool(
                    self.torch.equal(peer.indices.cpu(), ref.indices[:, :k]))
        result.exact = bool(ok)

    def run_topk(self, case: dict, k_max: int) -> Result:
        torch, shape, k = self.torch, case["shape"], case["k"]
        result = Result("topk", case["label"], shape, k, None, DTYPE, self.backend_name(),
                        bytes_read_once=shape[0] * shape[1] * 4)
        xs = self.inputs(shape, self.rotation(result.bytes_read_once))
        self.check_topk(xs[0], case, k_max, result)
        result.axisops_s = self.clock.median(
            lambda a: self.axisops.topk(a, k, backend=self.backend), xs)
        result.torch_s = self.clock.median(lambda a: torch.topk(a, k, dim=1), xs)
        self.profile(lambda: self.axisops.topk(xs[0], k, backend=self.backend), result)
        return result

    def run_gather(self, case: dict) -> Result:
        torch, shape, ishape = self.torch, case["shape"], case["index"]
        result = Result("gather", case["label"], shape, None, ishape, DTYPE, self.backend_name(),
                        bytes_read_once=ishape[0] * ishape[1] * (8 + 4))
        count = self.rotation(shape[0] * shape[1] * 4)
        xs = self.inputs(shape, count)
        g = torch.Generator(device=self.device).manual_seed(99)
        idx = [torch.randint(-shape[1], shape[1], ishape, generator=g, device=self.device)
               for _ in range(count)]
        got = self.axisops.gather(xs[0], 1, idx[0], backend=self.backend)
        ref = self.axisops.gather(xs[0].cpu(), 1, idx[0].cpu())
        result.exact = same_bits(torch, got, ref)
        # torch.gather refuses negative indices: both are timed on the same wrapped ones.
        pairs = [(x, i % shape[1]) for x, i in zip(xs, idx)]
        x0, i0 = pairs[0]
        result.torch_matches_contract = same_bits(torch, torch.gather(x0, 1, i0), ref)
        result.axisops_s = self.clock.median(
            lambda p: self.axisops.gather(p[0], 1, p[1], backend=self.backend), pairs)
        result.torch_s = self.clock.median(lambda p: torch.gather(p[0], 1, p[1]), pairs)
        self.profile(lambda: self.axisops.gather(x0, 1, i0, backend=self.backend), result)
        result.notes.append("checked on indices of both signs; timed on them wrapped to >= 0")
        return result

    def profile(self, call: Any, result: Result) -> None:
        """With --profile: the device kernels of one (warm) call and their times."""
        if not self.args.profile:
            return
        profiler = self.torch.profiler
        try:
            with profiler.profile(activities=[profiler.ProfilerActivity.CUDA]) as prof:
                call()
                self.clock.sync()
        except RuntimeError as e:  # no CUPTI, say: the timings above stand without it
            result.notes.append(f"--profile failed: {e}")
            return
        result.kernels = kernel_times(prof)
        result.device_s = sum(us for _, us in result.kernels) / 1e6

    def backend_name(self) -> str:
        probe = self.torch.zeros(1, device=self.device)
        return self.backend or self.axisops.registry.pick(probe)[1].name

    def run(self, cases: list[dict]) -> dict:
        bandwidth = copy_bandwidth(self.torch, self.clock, self.device, self.args.quick)
        k_max = {}
        for c in cases:
            if c["op"] == "topk":
                k_max[c["shape"]] = max(k_max.get(c["shape"], 0), c["k"])
        results = []
        for i, case in enumerate(cases):
            if time.perf_counter() - self.started > TIME_BUDGET_S:
                print(f"time budget spent; not run: {case}", file=sys.stderr)
                continue
            t0 = time.perf_counter()
            if case["op"] == "gather":
                r = self.run_gather(case)
            else:
                r = self.run_topk(case, k_max[case["shape"]])
            r.case_s = time.perf_counter() - t0
            r.speedup_vs_torch = r.torch_s / r.axisops_s
            r.fraction_of_copy_bw = (r.bytes_read_once / r.axisops_s) / bandwidth
            results.append(r)
            if all(c["shape"] != case["shape"] for c in cases[i + 1 :]):
                self.refs = {key: v for key, v in self.refs.items() if key[0] != case["shape"]}
            print_row(r)
        return {
            "device": self.device_name(),
            "interpreted": self.args.interpret,
            "quick": self.args.quick,
            "torch": self.torch.__version__,
            "copy_bandwidth_GBps": bandwidth / 1e9,
            "seconds": time.perf_counter() - self.started,
            "all_exact": all(r.exact for r in results) and len(results) == len(cases),
            "cases": [asdict(r) for r in results],
        }


def kernel_times(prof: Any) -> list[tuple[str, float]]:
    """(name, device microseconds) per kernel of a torch.profiler run, longest first."""
    rows = []
    for event in prof.key_averages():
        us = getattr(event, "device_time_total", None)
        if us is None:  # torch < 2.4 named it after CUDA
            us = getattr(event, "cuda_time_total", 0.0)
        if us > 0:
            rows.append((event.key[:80], round(float(us), 1)))
    return sorted(rows, key=lambda row: -row[1])


def print_row(r: Result) -> None:
    what = f"k={r.k}" if r.op == "topk" else f"index={r.index_shape}"
    print(f"{r.op:6} {r.shape!s:>14} {what:>16}  exact={r.exact!s:5}  "
          f"axisops {r.axisops_s * 1e3:9.3f} ms  torch {r.torch_s * 1e3:9.3f} ms  "
          f"x{r.speedup_vs_torch:5.2f}  {100 * r.fraction_of_copy_bw:5.1f}% of copy bw  "
          f"[{r.label}]", flush=True)
    if r.device_s is not None:
        print(f"        device {r.device_s * 1e3:.3f} ms of the call's {r.axisops_s * 1e3:.3f} "
              f"(the rest waits for the host):", flush=True)
    for name, us in r.kernels:
        print(f"        {us:10.1f} us  {name}", flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.interpret:
        import torch

        if not torch.cuda.is_available():
            print("no CUDA device here; for a small CPU run use --interpret --quick",
                  file=sys.stderr)
            return 2
    runner = Runner(args)
    report = runner.run(QUICK_CASES if args.quick else FULL_CASES)
    print(f"device: {report['device']}; copy bandwidth {report['copy_bandwidth_GBps']:.1f} GB/s; "
          f"all exact: {report['all_exact']}; {report['seconds']:.1f} s")
    with open(args.json, "w") as f:
        json.dump(report, f, indent=2)
    return 0 if report["all_exact"] else 1


if __name__ == "__main__":
    sys.exit(main())
