"""The benchmark's cases and the targets each one is held to.

A case names its inputs by shape, dtype and data pattern; the inputs
themselves are made by :func:`make_input` so that every implementation times
the very same bytes.  Targets are ratios measured within one run: to the read
floor (one pass over the input) or to a named peer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["CASES", "Case", "Target", "make_index", "make_input", "quick_cases"]


@dataclass(frozen=True)
class Target:
    """One goal: ``axisops <= floor * max_floor`` or ``peer / axisops >= min_speedup``.

    ``peer`` is a peer's name, or ``"best"`` for the fastest peer of the case.
    A ``max_peer_ratio`` bounds axisops' time relative to that peer instead.
    """

    max_floor: float | None = None
    peer: str | None = None
    min_speedup: float | None = None
    max_peer_ratio: float | None = None

    def describe(self) -> str:
        if self.max_floor is not None:
            return f"<= {self.max_floor:g}x floor"
        if self.min_speedup is not None:
            return f">= {self.min_speedup:g}x faster than {self.peer}"
        return f"<= {self.max_peer_ratio:g}x {self.peer}'s time"


@dataclass(frozen=True)
class Case:
    """One benchmark case (top-k unless ``op == "gather"``)."""

    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    k: int = 0
    axis: int = -1
    pattern: str = "random"  # or "ascending": every row sorted ascending
    op: str = "topk"
    index_shape: tuple[int, ...] = ()
    targets: tuple[Target, ...] = field(default=())

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape)) * np.dtype(self.dtype).itemsize

    def scaled(self, factor: int) -> Case:
        """The same case with every dimension of 1000 or more divided by ``factor``."""

        def shrink(shape: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(s // factor if s >= 1000 else s for s in shape)

        shape = shrink(self.shape)
        axis_n = shape[self.axis]
        k = min(self.k, axis_n) if self.k < self.shape[self.axis] else axis_n
        return Case(self.name, shape, self.dtype, k, self.axis, self.pattern, self.op,
                    shrink(self.index_shape), self.targets)


def _floor(x: float) -> tuple[Target, ...]:
    return (Target(max_floor=x),)


CASES: tuple[Case, ...] = (
    Case("(1, 10M) k=10", (1, 10_000_000), k=10,
         targets=(Target(max_floor=1.5), Target(peer="best", min_speedup=20))),
    Case("(1, 10M) k=1000", (1, 10_000_000), k=1000, targets=_floor(3)),
    Case("(1000, 10k) k=10", (1000, 10_000), k=10, targets=_floor(2)),
    Case("(1000, 10k) k=100", (1000, 10_000), k=100, targets=_floor(5)),
    Case("(100k, 100) k=10", (100_000, 100), k=10,
         targets=(Target(peer="torch", min_speedup=2),)),
    Case("(10k, 1000) k=1000 full sort", (10_000, 1000), k=1000,
         targets=(Target(peer="torch", min_speedup=8),)),
    Case("axis 0 of (10k, 1000) k=10", (10_000, 1000), k=10, axis=0, targets=_floor(3)),
    Case("(1000, 10k) k=100 ascending", (1000, 10_000), k=100, pattern="ascending",
         targets=_floor(3)),
    Case("int32 (1000, 10k) k=10", (1000, 10_000), "int32", k=10, targets=_floor(2)),
    Case("int32 (1, 10M) k=1000", (1, 10_000_000), "int32", k=1000, targets=_floor(3)),
    Case("float16 (1000, 10k) k=10", (1000, 10_000), "float16", k=10, targets=_floor(4)),
    Case("int64 (1, 10M) k=100", (1, 10_000_000), "int64", k=100),
    *(
        Case(name, shape, op="gather", axis=axis, index_shape=ishape,
             targets=(Target(peer="jax", max_peer_ratio=1.2),
                      Target(peer="torch", min_speedup=2), Target(peer="numpy", min_speedup=2)))
        for name, shape, axis, ishape in (
            ("gather (4096, 4096) idx (4096, 64) axis 1", (4096, 4096), 1, (4096, 64)),
            ("gather (4096, 4096) idx (64, 4096) axis 0", (4096, 4096), 0, (64, 4096)),
            ("gather 1-D 10M", (10_000_000,), 0, (10_000_000,)),
        )
    ),
)


def quick_cases() -> tuple[Case, ...]:
    """Every case at about 1/100 of its size (a smoke run of the whole pipeline)."""
    return tuple(c.scaled(100) if c.op == "gather" or len(c.shape) == 1 or c.shape[0] == 1
                 else c.scaled(10) for c in CASES)


def make_input(case: Case, seed: int) -> np.ndarray:
    """The case's input: standard-normal floats (float16 rounds them into many ties),
    integers uniform over the dtype's whole range, or rows in ascending order."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(case.dtype)
    if case.pattern == "ascending":
        n = case.shape[case.axis]
        row = np.arange(n, dtype=np.float64)
        return np.ascontiguousarray(np.broadcast_to(row, case.shape).astype(dtype))
    if dtype.kind == "f":
        return rng.standard_normal(case.shape, dtype=np.float32).astype(dtype, copy=False)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=case.shape, dtype=dtype, endpoint=True)


def make_index(case: Case, seed: int) -> np.ndarray:
    """A gather index for the case: uniform positions along its axis (int64)."""
    rng = np.random.default_rng(seed + 10_000)
    n = case.shape[case.axis]
    return rng.integers(0, n, size=case.index_shape, dtype=np.int64)
