"""Framework rows: axisops inside torch and JAX programs against the frameworks' own ops.

    axisops bench --frameworks          # these rows only (about a minute)
    axisops bench --frameworks --quick  # smaller shapes, for a smoke test

Each row times two implementations of the same step in one process and prints
their ratio with the target it is held to:

- ``torch op layer``: ``axisops.topk`` on a CPU tensor (through the
  ``axisops::topk`` operator) against the direct kernel call it wraps, on
  (1000, 10000) float32, k=10: the operator adds no copies (target <= 1.2x);
- ``torch router fwd+bwd``: a top-2 mixture-of-experts router step (top-2 of
  the logits, softmax of the two scores, backward into the logits) on
  (16384, 64) float32 with ``axisops.topk`` against ``torch.topk``
  (target <= 1.0x);
- ``jax jit top-k``: jitted ``axisops.topk`` against jitted
  ``jax.lax.top_k`` on (1000, 10000) k=10 (target <= 1.3x) and on
  (256, 32768) k=32 (reported).

Every row also checks that both sides agree (the inputs are tie-free, so the
framework's own op gives the contract's answer).  The two sides alternate in
blocks of calls (each block warmed up first); each figure is a median.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.util import find_spec
from typing import Any

import numpy as np

__all__ = ["Row", "run"]


@dataclass
class Row:
    """One framework row: what was timed, the two medians and the target."""

    name: str
    ours: str
    theirs: str
    seconds: dict[str, float]
    max_ratio: float | None
    agree: bool

    @property
    def ratio(self) -> float:
        return self.seconds[self.ours] / self.seconds[self.theirs]

    def record(self) -> dict[str, Any]:
        met = None if self.max_ratio is None else self.ratio <= self.max_ratio
        return {"row": self.name, "seconds": self.seconds, "ratio": self.ratio,
                "max_ratio": self.max_ratio, "met": met, "agree": self.agree}


def _medians(calls: dict[str, Callable[[], Any]], repeats: int, blocks: int = 3
             ) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(blocks):
        for name, call in calls.items():
            call()  # warm-up: thread pools, caches
            for _ in range(repeats):
                t0 = time.perf_counter()
                call()
                samples[name].append(time.perf_counter() - t0)
    return {name: statistics.median(s) for name, s in samples.items()}


def _torch_rows(quick: bool, repeats: int) -> list[Row]:
    import torch

    import axisops
    from axisops import engines
    from axisops.adapters.torch import ADAPTER
    from axisops.requests import ArrayMeta
    from axisops.rules.operations import topk_spec

    rows, n, tokens = (100, 10_000, 2048) if quick else (1000, 10_000, 16384)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(rows, n, generator=g)
    spec = topk_spec(ArrayMeta(tuple(x.shape), np.dtype("float32")), 10, -1, True,
                     True, None)
    cpu = engines.get("cpu")
    layer = {"axisops.topk": lambda: axisops.topk(x, 10),
             "direct kernel": lambda: ADAPTER.compute(cpu, spec, x, x)}
    agree = all(torch.equal(a, b) for a, b in zip(layer["axisops.topk"](),
                                                  layer["direct kernel"]()))
    out = [Row(f"torch op layer ({rows}, {n}) k=10", "axisops.topk", "direct kernel",
               _medians(layer, repeats), 1.2, agree)]

    logits = torch.randn(tokens, 64, generator=g)
    weights = torch.randn(tokens, 2, generator=g)

    def router(topk: Callable[..., Any]) -> Callable[[], Any]:
        def step() -> Any:
            leaf = logits.detach().requires_grad_()
            scores, _ = topk(leaf, 2)
            (torch.softmax(scores, dim=-1) * weights).sum().backward()
            return leaf.grad

        return step

    steps = {"axisops.topk": router(axisops.topk), "torch.topk": router(torch.topk)}
    agree = torch.equal(steps["axisops.topk"](), steps["torch.topk"]())
    out.append(Row(f"torch router fwd+bwd ({tokens}, 64) top-2", "axisops.topk", "torch.topk",
                   _medians(steps, repeats), 1.0, agree))
    return out


def _jax_rows(quick: bool, repeats: int) -> list[Row]:
    import jax
    from jax import lax

    import axisops

    shapes = ((100, 10_000, 10, 1.3), (64, 32768, 32, None)) if quick else (
        (1000, 10_000, 10, 1.3), (256, 32768, 32, None))
    out = []
    rng = np.random.default_rng(0)
    for rows, n, k, target in shapes:
        x = jax.device_put(rng.standard_normal((rows, n)).astype(np.float32))
        ours = jax.jit(lambda a, k=k: axisops.topk(a, k))
        theirs = jax.jit(lambda a, k=k: lax.top_k(a, k))
        calls = {"axisops.topk": lambda f=ours, a=x: jax.block_until_ready(f(a)),
                 "lax.top_k": lambda f=theirs, a=x: jax.block_until_ready(f(a))}
        got, want = calls["axisops.topk"](), calls["lax.top_k"]()
        agree = all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(got, want))
        out.append(Row(f"jax jit top-k ({rows}, {n}) k={k}", "axisops.topk", "lax.top_k",
                       _medians(calls, repeats), target, agree))
    return out


def run(out: Any = sys.stdout, quick: bool = False, repeats: int | None = None
        ) -> list[dict[str, Any]]:
    """Time the framework rows that can run here; print them; return their records."""
    repeats = repeats or (3 if quick else 7)
    rows: list[Row] = []
    if find_spec("torch") is not None:
        rows += _torch_rows(quick, repeats)
    if find_spec("jax") is not None:
        rows += _jax_rows(quick, repeats)
    print(f"\n# axisops inside torch and JAX programs (median of {3 * repeats}; ms)", file=out)
    print(f"{'row':<42} {'axisops':>9} {'theirs':>9} {'ratio':>6}  target  agree", file=out)
    for row in rows:
        record = row.record()
        target = "-" if row.max_ratio is None else f"<={row.max_ratio:g}x"
        verdict = {True: "met", False: "MISSED", None: ""}[record["met"]]
        print(f"{row.name:<42} {row.seconds[row.ours] * 1e3:>9.2f} "
              f"{row.seconds[row.theirs] * 1e3:>9.2f} {row.ratio:>5.2f}x  "
              f"{target:<6} {verdict:<6} {row.agree}  (vs {row.theirs})", file=out)
    return [row.record() for row in rows]
