"""The benchmark's cases and the targets each one is held to.

A case names its inputs by shape, dtype and data pattern; the inputs
themselves are made by :func:`make_input` so that every implementation times
the very same bytes.  Targets are ratios measured within one run: to the read
floor (one pass over the input), to a named peer or the fastest one, or, for
an adversarial pattern, to its *twin*: the case with random data of the same
shape and k.

Rows: the core shapes, the workloads people run (mixture-of-experts routing,
LLM sampling, kNN), the gathers, and adversarial patterns found by review.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

__all__ = ["CASES", "QUANTILES", "SELECT_OPS", "Case", "Target", "make_index", "make_input",
           "quick_cases"]


@dataclass(frozen=True)
class Target:
    """One goal, met when any of its parts holds.

    ``max_floor``: axisops' time at most that multiple of the read floor;
    ``min_speedup``: ``peer``'s time over axisops' at least that (``peer`` is a
    name or ``"best"``, the fastest peer of the case); ``max_twin``: axisops'
    time at most that multiple of its time on the case's twin.
    """

    max_floor: float | None = None
    peer: str | None = None
    min_speedup: float | None = None
    max_twin: float | None = None

    def describe(self) -> str:
        parts = []
        if self.min_speedup is not None:
            parts.append(f">= {self.min_speedup:g}x faster than {self.peer}")
        if self.max_floor is not None:
            parts.append(f"<= {self.max_floor:g}x floor")
        if self.max_twin is not None:
            parts.append(f"<= {self.max_twin:g}x random data")
        return " or ".join(parts)


#: the selection family's operations; ``Case.k`` is kthvalue's k (1-based) and partition's
#: kth (0-based), unused by the others; the quantile rows take :data:`QUANTILES`.
SELECT_OPS = ("sort", "argsort", "kthvalue", "median", "partition", "argpartition",
              "quantile", "nanquantile")
#: the probabilities of every quantile row (a float64 array, as NumPy's users pass them).
QUANTILES = (0.01, 0.5, 0.99)


@dataclass(frozen=True)
class Case:
    """One benchmark case: top-k (``op == "topk"``), ``"gather"``, or one of
    :data:`SELECT_OPS`."""

    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    k: int = 0
    axis: int = -1
    pattern: str = "random"  # see make_input
    op: str = "topk"
    index_shape: tuple[int, ...] = ()
    largest: bool = True
    twin: str = ""  # the random-data case this pattern is compared with
    targets: tuple[Target, ...] = field(default=())

    @property
    def nbytes(self) -> int:
        from axisops.dtypes import as_dtype

        return int(np.prod(self.shape)) * as_dtype(self.dtype).itemsize

    def scaled(self, factor: int) -> Case:
        """The same case with every dimension of 1000 or more divided by ``factor``,
        named by its real shape and held to no target (they are for the full size)."""

        def shrink(shape: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(s // factor if s >= 1000 else s for s in shape)

        shape = shrink(self.shape)
        n = shape[self.axis]
        k = min(self.k, n)
        if self.k == self.shape[self.axis] - 1 or self.k >= self.shape[self.axis]:
            k = n - (self.shape[self.axis] - self.k)
        if self.op in ("kthvalue", "partition", "argpartition"):  # the same place in the row
            k = self.k * n // self.shape[self.axis]
            k = max(1, k) if self.op == "kthvalue" else min(k, n - 1)
        else:
            k = max(1, k) if self.op == "topk" else 0
        what = f"{self.dtype} {shape}" + (f" k={k}" if self.op == "topk" else "")
        if self.op in SELECT_OPS:
            what = f"{self.op} {what}" + (f" k={k}" if self.op in ("kthvalue", "partition",
                                                                   "argpartition") else "")
        return replace(self, name=f"quick {what} ({self.name})", shape=shape, k=k,
                       index_shape=shrink(self.index_shape), twin="", targets=())


def _peers(speedup: float, floor: float | None = None) -> Target:
    return Target(peer="best", min_speedup=speedup, max_floor=floor)


#: every top-k row: at least 2x the fastest peer, or within 1.3x of one read.
_ANY = _peers(2, 1.3)


def _vs(peer: str, speedup: float) -> Target:
    return Target(peer=peer, min_speedup=speedup)


def _adversarial(name: str, shape: tuple[int, ...], k: int, pattern: str, twin: str,
                 axis: int = -1, largest: bool = True) -> Case:
    return Case(name, shape, k=k, axis=axis, pattern=pattern, largest=largest, twin=twin,
                targets=(Target(max_twin=3),))


CASES: tuple[Case, ...] = (
    Case("(1, 10M) k=10", (1, 10_000_000), k=10,
         targets=(Target(max_floor=1.5), _peers(3))),
    Case("(1, 10M) k=1000", (1, 10_000_000), k=1000, targets=(Target(max_floor=2), _peers(3))),
    Case("int32 (1, 10M) k=1000", (1, 10_000_000), "int32", k=1000,
         targets=(Target(max_floor=2), _peers(3))),
    Case("float16 (1, 10M) k=1000", (1, 10_000_000), "float16", k=1000,
         targets=(Target(max_floor=2), _peers(3))),
    Case("(1000, 10k) k=10", (1000, 10_000), k=10, targets=(Target(max_floor=2), _ANY)),
    Case("int32 (1000, 10k) k=10", (1000, 10_000), "int32", k=10,
         targets=(Target(max_floor=2), _ANY)),
    Case("(1000, 10k) k=100", (1000, 10_000), k=100, targets=(Target(max_floor=4), _ANY)),
    Case("(1000, 10k) k=100 ascending", (1000, 10_000), k=100, pattern="ascending",
         targets=(Target(max_floor=3), _ANY)),
    Case("axis 0 of (10k, 1000) k=10", (10_000, 1000), k=10, axis=0,
         targets=(Target(max_floor=3), _ANY)),
    Case("float16 (1000, 10k) k=10", (1000, 10_000), "float16", k=10,
         targets=(Target(max_floor=3), _ANY)),
    Case("(100k, 100) k=10", (100_000, 100), k=10, targets=(Target(max_floor=6), _ANY)),
    Case("(100k, 100) k=32", (100_000, 100), k=32, targets=(_ANY,)),
    Case("(20k, 512) k=8", (20_000, 512), k=8, targets=(_ANY,)),
    Case("(10k, 1000) k=1000 full sort", (10_000, 1000), k=1000,
         targets=(Target(peer="torch", min_speedup=4), _ANY)),
    Case("int64 (1, 10M) k=100", (1, 10_000_000), "int64", k=100, targets=(_ANY,)),
    # Workloads.
    Case("MoE router (8192, 64) k=2", (8192, 64), k=2, targets=(_peers(3, 2),)),
    Case("MoE router (65536, 128) k=8", (65536, 128), k=8, targets=(_peers(3, 2),)),
    Case("bfloat16 MoE router (8192, 64) k=2", (8192, 64), "bfloat16", k=2,
         targets=(_ANY,)),
    Case("float16 MoE router (8192, 64) k=2", (8192, 64), "float16", k=2, targets=(_ANY,)),
    Case("sampling (32, 128000) k=50", (32, 128_000), k=50, targets=(_peers(3, 2),)),
    Case("kNN (2000, 100000) k=10", (2000, 100_000), k=10,
         targets=(Target(max_floor=1.5), _ANY)),
    # Gathers.
    *(
        Case(name, shape, op="gather", axis=axis, index_shape=ishape,
             targets=(_peers(1.25),))
        for name, shape, axis, ishape in (
            ("gather (4096, 4096) idx (4096, 64) axis 1", (4096, 4096), 1, (4096, 64)),
            ("gather (4096, 4096) idx (64, 4096) axis 0", (4096, 4096), 0, (64, 4096)),
            ("gather 1-D 10M", (10_000_000,), 0, (10_000_000,)),
        )
    ),
    # Adversarial patterns, each against random data of the same shape and k.
    Case("(10M,) k=624999 random", (10_000_000,), k=624_999),
    _adversarial("(10M,) ones, every 16th 0, k=n/16-1", (10_000_000,), 624_999, "every16zero",
                 "(10M,) k=624999 random"),
    _adversarial("(10M,) zeros, every 16th 1, k=n/16-1", (10_000_000,), 624_999, "spike16",
                 "(10M,) k=624999 random"),
    Case("axis 0 of (10k, 1000) k=32", (10_000, 1000), k=32, axis=0),
    _adversarial("axis 0 of (10k, 1000) k=32 ascending", (10_000, 1000), 32, "ascending",
                 "axis 0 of (10k, 1000) k=32", axis=0),
    _adversarial("axis 0 of (10k, 1000) k=10 ascending", (10_000, 1000), 10, "ascending",
                 "axis 0 of (10k, 1000) k=10", axis=0),
    _adversarial("axis 0 of (10k, 1000) k=10 organ pipe", (10_000, 1000), 10, "organ",
                 "axis 0 of (10k, 1000) k=10", axis=0),
    Case("axis 0 of (10k, 1000) k=10 smallest", (10_000, 1000), k=10, axis=0, largest=False),
    _adversarial("axis 0 of (10k, 1000) k=10 smallest descending", (10_000, 1000), 10,
                 "descending", "axis 0 of (10k, 1000) k=10 smallest", axis=0, largest=False),
    _adversarial("(1, 10M) k=1000 interleaved ascending", (1, 10_000_000), 1000, "interleaved",
                 "(1, 10M) k=1000"),
    _adversarial("(1, 10M) k=1000 sawtooth plus ramp", (1, 10_000_000), 1000, "sawramp",
                 "(1, 10M) k=1000"),
    _adversarial("(1000, 10k) k=10 on +-0.0", (1000, 10_000), 10, "zeros", "(1000, 10k) k=10"),
    _adversarial("(1000, 10k) k=10 three values", (1000, 10_000), 10, "three",
                 "(1000, 10k) k=10"),
    # The selection family (issue 35): stable sort, kthvalue and median, partition.
    Case("sort (10k, 1000)", (10_000, 1000), op="sort",
         targets=(_vs("torch", 4), _vs("numpy", 4))),
    Case("argsort (10k, 1000)", (10_000, 1000), op="argsort",
         targets=(_vs("torch", 4), _vs("numpy", 4))),
    Case("sort (1, 10M)", (1, 10_000_000), op="sort", targets=(_vs("torch", 3), _vs("numpy", 3))),
    Case("argsort (1, 10M)", (1, 10_000_000), op="argsort",
         targets=(_vs("torch", 3), _vs("numpy", 3))),
    Case("int32 sort (1, 10M)", (1, 10_000_000), "int32", op="sort",
         targets=(_vs("torch", 5), _vs("numpy-default", 3))),
    Case("float64 sort (1, 10M)", (1, 10_000_000), "float64", op="sort",
         targets=(_vs("torch", 5), _vs("numpy-default", 3))),
    Case("kthvalue (1000, 10k) k=5000", (1000, 10_000), k=5000, op="kthvalue",
         targets=(_vs("torch", 3), Target(max_floor=2))),
    Case("median (1000, 10k)", (1000, 10_000), op="median",
         targets=(_vs("torch", 3), Target(max_floor=2))),
    Case("kthvalue (1, 10M) k=5M", (1, 10_000_000), k=5_000_000, op="kthvalue",
         targets=(_vs("torch", 3), Target(max_floor=1.5))),
    Case("median (1, 10M)", (1, 10_000_000), op="median",
         targets=(_vs("torch", 3), Target(max_floor=1.5))),
    Case("partition (1000, 10k) kth=5000", (1000, 10_000), k=5000, op="partition",
         targets=(_vs("numpy", 2),)),
    Case("argpartition (1000, 10k) kth=5000", (1000, 10_000), k=5000, op="argpartition",
         targets=(_vs("numpy", 2),)),
    Case("partition (1, 10M) kth=5M", (1, 10_000_000), k=5_000_000, op="partition",
         targets=(_vs("numpy", 2),)),
    # The quantile family (issue 43): q = QUANTILES, linear.
    Case("quantile (1000, 10k)", (1000, 10_000), op="quantile",
         targets=(_vs("numpy", 10), _vs("torch", 10))),
    Case("quantile (1, 10M)", (1, 10_000_000), op="quantile", targets=(Target(max_floor=3),)),
    Case("nanquantile (1000, 10k) 10% NaN", (1000, 10_000), op="nanquantile", pattern="nan10",
         targets=(_vs("numpy", 10),)),
)


def quick_cases() -> tuple[Case, ...]:
    """Every case at about 1/100 of its size (a smoke run of the whole pipeline)."""
    return tuple(c.scaled(100) if c.op == "gather" or c.shape[0] == 1 or len(c.shape) == 1
                 or c.nbytes > 100_000_000 else c.scaled(10) for c in CASES)


def _along(values: np.ndarray, case: Case) -> np.ndarray:
    """``values`` (one per position along the axis) laid along the case's axis."""
    shape = [1] * len(case.shape)
    shape[case.axis] = values.shape[0]
    return np.ascontiguousarray(np.broadcast_to(values.reshape(shape), case.shape))


def _pattern(case: Case, rng: np.random.Generator) -> np.ndarray:
    n = case.shape[case.axis]
    i = np.arange(n, dtype=np.float64)
    if case.pattern == "ascending":
        return _along(i, case)
    if case.pattern == "descending":
        return _along(i[::-1].copy(), case)
    if case.pattern == "organ":  # up, then down
        return _along(np.minimum(i, n - 1 - i), case)
    if case.pattern == "every16zero":
        x = np.ones(case.shape)
        x.reshape(-1)[::16] = 0
        return x
    if case.pattern == "spike16":
        x = np.zeros(case.shape)
        x.reshape(-1)[::16] = 1
        return x
    if case.pattern == "interleaved":  # ascending by blocks of 16, shuffled inside each
        return _along((i // 16) * 16 + (i * 7) % 16, case)
    if case.pattern == "sawramp":  # a sawtooth of period 1000 on a slow ramp
        return _along((i % 1000) + i / 1000, case)
    if case.pattern == "zeros":  # +0.0 and -0.0 only: every element ties
        return np.where(rng.random(case.shape) < 0.5, -0.0, 0.0)
    if case.pattern == "three":
        return rng.integers(-1, 2, size=case.shape).astype(np.float64)
    if case.pattern == "nan10":  # standard normal, a tenth of it NaN
        x = rng.standard_normal(case.shape)
        x[rng.random(case.shape) < 0.1] = np.nan
        return x
    raise ValueError(f"unknown pattern {case.pattern!r}")


def make_input(case: Case, seed: int) -> np.ndarray:
    """The case's input: standard-normal floats (float16 rounds them into many ties),
    integers uniform over the dtype's whole range, or the case's pattern."""
    from axisops.dtypes import as_dtype

    rng = np.random.default_rng(seed)
    dtype = as_dtype(case.dtype)
    if case.pattern != "random":
        return _pattern(case, rng).astype(dtype)
    if dtype.kind == "f" or dtype.name == "bfloat16":
        return rng.standard_normal(case.shape, dtype=np.float32).astype(dtype, copy=False)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=case.shape, dtype=dtype, endpoint=True)


def make_index(case: Case, seed: int) -> np.ndarray:
    """A gather index for the case: uniform positions along its axis (int64)."""
    rng = np.random.default_rng(seed + 10_000)
    n = case.shape[case.axis]
    return rng.integers(0, n, size=case.index_shape, dtype=np.int64)
