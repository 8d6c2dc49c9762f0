"""The contract's samples: one declarative table per operation, and the pairs that run them.

In the manner of PyTorch's OpInfo: :data:`TOPK_SAMPLES`, :data:`GATHER_SAMPLES`,
:data:`SORT_SAMPLES` (sort and argsort), :data:`KTH_SAMPLES` (kthvalue and median),
:data:`PARTITION_SAMPLES` (partition and argpartition) and :data:`QUANTILE_SAMPLES`
(quantile, nanquantile and nanmedian) list the inputs that pin the contract (tie-heavy data with every special value of
every dtype, NaN above +inf with its payload kept, -0.0 equal to +0.0 with its sign
kept, integer extremes: INT_MIN, UINT64_MAX, int64 beyond 2**53; k in {0, 1, n};
any axis; every layout: C, Fortran, transposed, negative and non-unit strides,
read-only, memory-mapped, unaligned, non-native byte order; empty arrays; NumPy's
time types, every unit, NaT the greatest; ``axis=None``, the flattened array), and
:data:`PAIRS` the adapter x engine pairs that run them (a pair whose arrays cannot hold
a sample's dtype, torch's and JAX's for the time types, checks that its framework
refuses to make one: :meth:`Pair.holds`).  ``tests/test_contract.py``
runs every sample on every pair against ``tests/oracle.py`` (plain Python), bit for
bit; a new engine or adapter adds a row to :data:`PAIRS`, a new rule a row to a table.

A sample builds its array with ``make(folder)`` (a memory-mapped one needs a file).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from strategies import GATHER_DTYPES, INT_DTYPES, TIME_DTYPES, TOPK_DTYPES, tie_heavy, with_layout
from strategies import LAYOUTS as STRATEGY_LAYOUTS

BF16 = np.dtype(ml_dtypes.bfloat16)


# ---- layouts ---------------------------------------------------------------------------------


def in_layout(a: np.ndarray, layout: str, folder: Path) -> np.ndarray:
    """The values of ``a`` in another memory layout (``folder`` holds a memory-mapped one)."""
    if layout in STRATEGY_LAYOUTS:
        return with_layout(a, layout)
    if layout == "memmap":
        np.save(folder / "x.npy", a)
        return np.load(folder / "x.npy", mmap_mode="r")
    if layout == "unaligned":
        raw = np.zeros(a.nbytes + 1, np.uint8)[1:]
        b = raw.view(a.dtype).reshape(a.shape)
        b[...] = a
        assert not b.flags.aligned or a.itemsize == 1
        return b
    if layout == "byteswapped":
        return a.astype(a.dtype.newbyteorder())
    raise ValueError(layout)


LAYOUTS = (*STRATEGY_LAYOUTS, "memmap", "unaligned", "byteswapped")


# ---- the tables ------------------------------------------------------------------------------


@dataclass(frozen=True)
class TopKSample:
    """``topk(make(folder), k, axis)`` in both directions (``largest`` True and False);
    ``axis=None`` flattens."""

    name: str
    make: Callable[[Path], np.ndarray]
    k: int
    axis: int | None = -1


@dataclass(frozen=True)
class GatherSample:
    """``gather(make(folder), dim, index)``; the index values are in range."""

    name: str
    make: Callable[[Path], np.ndarray]
    dim: int
    index: np.ndarray = field(compare=False)


def _fixed(values: Any, dtype: Any) -> Callable[[Path], np.ndarray]:
    return lambda folder: np.array(values, dtype)


def _bits(values: list[int], dtype: str) -> Callable[[Path], np.ndarray]:
    width = np.dtype(dtype).itemsize
    return lambda folder: np.array(values, f"u{width}").view(dtype)


def _tie_heavy(dtype: Any, shape: tuple[int, ...], seed: int = 7,
               layout: str = "C") -> Callable[[Path], np.ndarray]:
    return lambda folder: in_layout(tie_heavy(dtype, shape, seed, width=None), layout, folder)


#: Times with NaT (the greatest, as NaN) among ties, and the least time (INT64_MIN + 1).
_NAT_TIES = [7, "NaT", -3, 7, "NaT", -(2**63) + 1, 0, -3, "NaT"]
#: The time samples the tables share: NaT among ties in two types, a unit of days, a
#: non-native byte order (each table adds every time type's specials).
_TIMES = [
    ("datetime64 NaT greatest, ties by index", _fixed(_NAT_TIES, "M8[ns]")),
    ("timedelta64 NaT greatest, ties by index", _fixed(_NAT_TIES, "m8[ms]")),
    ("datetime64[D] dates", _fixed(["2024-02-29", "NaT", "1970-01-01", "2024-02-29",
                                    "1969-12-31", "NaT"], "M8[D]")),
    ("timedelta64 byteswapped", _fixed(_NAT_TIES, ">m8[s]")),
]
#: Arrays ``axis=None`` flattens: 3-D, in several layouts, a time type (1-element and 0-d
#: ones are in each table, whose k and kth they limit).
_FLAT = [
    ("axis None", _tie_heavy("float32", (3, 4, 5), 13)),
    ("axis None F", _tie_heavy("int64", (3, 4, 5), 13, "F")),
    ("axis None transposed", _tie_heavy("uint16", (4, 5), 13, "transposed")),
    ("axis None negative strides", _tie_heavy("float64", (4, 5), 13, "negative")),
    ("axis None byteswapped", _tie_heavy("int32", (4, 5), 13, "byteswapped")),
    ("axis None datetime64", _tie_heavy("M8[ns]", (3, 7), 13)),
]


def _topk_samples() -> list[TopKSample]:
    s = [TopKSample(f"{np.dtype(d)} specials", _tie_heavy(d, (3, 17)), 5) for d in TOPK_DTYPES]
    s += [
        TopKSample("float32 k=0", _tie_heavy("float32", (3, 17)), 0),
        TopKSample("float32 k=1", _tie_heavy("float32", (3, 17)), 1),
        TopKSample("float32 k=n", _tie_heavy("float32", (3, 17)), 17),
        TopKSample("bfloat16 k=n", _tie_heavy(BF16, (2, 14)), 14),
        TopKSample("int64 k=n", _tie_heavy("int64", (2, 15)), 15),
        TopKSample("uint64 k=n", _tie_heavy("uint64", (2, 15)), 15),
        TopKSample("NaN above +inf", _fixed([1.0, np.inf, np.nan, -np.inf, np.nan], "float32"), 5),
        TopKSample("-0.0 equals +0.0", _fixed([0.0, -0.0, 0.0, -0.0], "float64"), 4),
        TopKSample("NaN payloads and signs kept",
                   _bits([0x7FC00001, 0xFFC00000, 0x3F800000, 0x7FC00002], "float32"), 3),
        TopKSample("int64 beyond 2**53",
                   _fixed([2**53, 2**53 + 1, -(2**63), 2**63 - 1, 2**53 + 1], "int64"), 5),
        TopKSample("uint64 max", _fixed([2**64 - 1, 0, 2**63, 2**53 + 1, 2**64 - 2], "uint64"), 5),
        TopKSample("int32 INT_MIN", _fixed([-(2**31), 2**31 - 1, 0, -1, -(2**31)], "int32"), 5),
        TopKSample("int8 extremes", _fixed([-128, 127, -1, 0, 127], "int8"), 5),
        TopKSample("uint8 extremes", _fixed([255, 0, 128, 127, 255], "uint8"), 5),
        TopKSample("bool", _fixed([False, True, False, True], "bool"), 4),
        TopKSample("ties go to the lower index", _fixed([5, 7, 5, 7, 5, 7], "int16"), 4),
        TopKSample("float16 specials", _fixed([1.0, np.nan, -np.inf, 0.5, np.inf], "float16"), 3),
        TopKSample("empty axis, k=0", lambda folder: np.zeros((2, 0), np.int16), 0),
        TopKSample("empty batch", lambda folder: np.zeros((0, 5, 3), np.float32), 2, axis=1),
    ]
    s += [TopKSample(f"3-D axis {a}", _tie_heavy("int64", (4, 5, 6), 11), 3, axis=a)
          for a in (0, 1, 2, -2)]
    s += [TopKSample(f"{layout} axis {a}", _tie_heavy("float32", (6, 9), 2, layout), 4, axis=a)
          for layout in LAYOUTS for a in (0, 1)]
    s += [TopKSample(f"{np.dtype(d)} specials", _tie_heavy(d, (3, 17)), 5) for d in TIME_DTYPES]
    s += [TopKSample(name, make, 6) for name, make in _TIMES]
    s += [TopKSample(f"{layout} datetime64 axis 0", _tie_heavy("M8[ns]", (6, 9), 2, layout), 4,
                     axis=0) for layout in LAYOUTS]
    s += [TopKSample(name, make, 7, axis=None) for name, make in _FLAT]
    s += [TopKSample("axis None k=size", _tie_heavy("int8", (2, 3, 2), 13), 12, axis=None),
          TopKSample("axis None 0-d", _fixed(-0.0, "float64"), 1, axis=None),
          TopKSample("axis None empty", lambda folder: np.zeros((2, 0, 3), np.int16), 0,
                     axis=None)]
    return s


def _index(shape: tuple[int, ...], n: int, seed: int, dtype: Any = np.int64) -> np.ndarray:
    """Index values in ``[-n, n-1]`` (negatives count from the end) of ``dtype``."""
    low = -n if np.dtype(dtype).kind == "i" else 0
    return np.random.default_rng(seed).integers(low, n, size=shape).astype(dtype)


def _gather_samples() -> list[GatherSample]:
    s = [GatherSample(f"{np.dtype(d)} specials", _tie_heavy(d, (4, 6), 1), 1,
                      _index((3, 9), 6, 1)) for d in GATHER_DTYPES]
    s += [GatherSample(f"index {np.dtype(d)}", _tie_heavy("int32", (5, 6), 2), 0,
                       _index((2, 3), 5, 2, d)) for d in INT_DTYPES]
    s += [
        GatherSample("negative indices count from the end",
                     lambda folder: np.arange(10, 16), 0, np.array([-1, -6, 0, 5])),
        GatherSample("index smaller than x off dim", lambda folder: np.arange(20).reshape(4, 5),
                     1, np.array([[4, 0], [1, 1]])),
        GatherSample("index longer than x along dim", lambda folder: np.array([[1, 2], [3, 4]]),
                     1, np.array([[0, 1, 1, 0, 1]])),
        GatherSample("empty index", _tie_heavy("float64", (2, 3)), 1, np.zeros((2, 0), np.int64)),
        GatherSample("empty x and index", lambda folder: np.zeros((2, 0)), 1,
                     np.zeros((2, 0), np.int32)),
        GatherSample("int64 beyond 2**53 moved exactly",
                     _fixed([[2**53 + 1, -(2**63), 2**63 - 1]], "int64"), 1, np.array([[2, 0, 1]])),
        GatherSample("3-D dim 0", _tie_heavy("uint16", (3, 4, 5), 3), 0, _index((2, 4, 5), 3, 3)),
        GatherSample("3-D dim 2", _tie_heavy("uint16", (3, 4, 5), 3), 2, _index((3, 2, 7), 5, 4)),
    ]
    s += [GatherSample(f"{layout} dim {d}", _tie_heavy("float32", (5, 7), 4, layout), d,
                       _index((4, 6), 5 if d == 0 else 7, 5 + d))
          for layout in LAYOUTS for d in (0, 1)]
    s += [GatherSample(f"{np.dtype(d)} specials", _tie_heavy(d, (4, 6), 1), 1,
                       _index((3, 9), 6, 1)) for d in TIME_DTYPES]
    s += [GatherSample(name, make, 0, _index((12,), len(_NAT_TIES), 3))
          for name, make in _TIMES if "dates" not in name]
    return s


@dataclass(frozen=True)
class SortSample:
    """``sort`` and ``argsort`` of ``make(folder)`` along ``axis``, in both directions
    (``axis=None`` flattens)."""

    name: str
    make: Callable[[Path], np.ndarray]
    axis: int | None = -1


@dataclass(frozen=True)
class KthSample:
    """``kthvalue(make(folder), k, axis, keepdims=...)`` and ``median`` of the same
    (``axis=None`` flattens: 0-d results, every dimension kept as 1 with ``keepdims``)."""

    name: str
    make: Callable[[Path], np.ndarray]
    k: int
    axis: int | None = -1
    keepdims: bool = False


@dataclass(frozen=True)
class PartitionSample:
    """``partition`` and ``argpartition`` of ``make(folder)`` at ``kth`` along ``axis``
    (``axis=None`` flattens)."""

    name: str
    make: Callable[[Path], np.ndarray]
    kth: Any
    axis: int | None = -1


#: Fixed sequences with the contract's special values, shared by the selection tables.
_SPECIALS = [
    ("NaN above +inf", _fixed([1.0, np.inf, np.nan, -np.inf, np.nan], "float32")),
    ("-0.0 equals +0.0", _fixed([0.0, -0.0, 0.0, -0.0, -0.0], "float64")),
    ("NaN payloads and signs kept",
     _bits([0x7FC00001, 0xFFC00000, 0x3F800000, 0x7FC00002, 0x80000000], "float32")),
    ("int64 beyond 2**53",
     _fixed([2**53, 2**53 + 1, -(2**63), 2**63 - 1, 2**53 + 1], "int64")),
    ("uint64 max", _fixed([2**64 - 1, 0, 2**63, 2**53 + 1, 2**64 - 2], "uint64")),
    ("int32 INT_MIN", _fixed([-(2**31), 2**31 - 1, 0, -1, -(2**31)], "int32")),
    ("int8 extremes", _fixed([-128, 127, -1, 0, 127], "int8")),
    ("bool", _fixed([False, True, False, True, True], "bool")),
    ("ties keep index order", _fixed([5, 7, 5, 7, 5, 7], "int16")),
    ("float16 specials", _fixed([1.0, np.nan, -np.inf, 0.5, np.inf, -0.0], "float16")),
]


def _sort_samples() -> list[SortSample]:
    s = [SortSample(f"{np.dtype(d)} specials", _tie_heavy(d, (3, 17))) for d in TOPK_DTYPES]
    s += [SortSample(name, make) for name, make in _SPECIALS]
    s += [
        SortSample("empty axis", lambda folder: np.zeros((2, 0), np.int16)),
        SortSample("empty batch", lambda folder: np.zeros((0, 5, 3), np.float32), axis=1),
        SortSample("one element", _fixed([[np.nan], [-0.0]], "float64")),
    ]
    s += [SortSample(f"3-D axis {a}", _tie_heavy("int64", (4, 5, 6), 11), axis=a)
          for a in (0, 1, -2)]
    s += [SortSample(f"{layout} axis {a}", _tie_heavy("float16" if a else "float32", (6, 9), 2,
                                                      layout), axis=a)
          for layout in LAYOUTS for a in (0, 1)]
    s += [SortSample(f"{np.dtype(d)} specials", _tie_heavy(d, (3, 17))) for d in TIME_DTYPES]
    s += [SortSample(name, make) for name, make in _TIMES]
    s += [SortSample(f"{layout} timedelta64 axis 0", _tie_heavy("m8[s]", (6, 9), 2, layout),
                     axis=0) for layout in LAYOUTS]
    s += [SortSample(name, make, axis=None) for name, make in _FLAT]
    s += [SortSample("axis None 0-d", _fixed(np.nan, "float32"), axis=None),
          SortSample("axis None empty", lambda folder: np.zeros((2, 0, 3), np.int16), axis=None)]
    return s


def _kth_samples() -> list[KthSample]:
    s = [KthSample(f"{np.dtype(d)} specials", _tie_heavy(d, (3, 17)), 5) for d in TOPK_DTYPES]
    s += [KthSample(name, make, 3) for name, make in _SPECIALS]
    s += [
        KthSample("float32 k=1", _tie_heavy("float32", (3, 17)), 1),
        KthSample("float32 k=n", _tie_heavy("float32", (3, 17)), 17),
        KthSample("uint64 k=n", _tie_heavy("uint64", (2, 15)), 15),
        KthSample("int64 k=1 keepdims", _tie_heavy("int64", (2, 15)), 1, keepdims=True),
        KthSample("one element", _fixed([[np.nan], [-0.0]], "float64"), 1),
        KthSample("empty batch", lambda folder: np.zeros((0, 5, 3), np.float32), 2, axis=1),
        KthSample("1-D", _tie_heavy("float64", (23,), 3), 12),
    ]
    s += [KthSample(f"3-D axis {a}", _tie_heavy("int64", (4, 5, 6), 11), 3, axis=a,
                    keepdims=a == 1) for a in (0, 1, -1)]
    s += [KthSample(f"{layout} axis {a}", _tie_heavy("uint16" if a else "float32", (6, 9), 2,
                                                     layout), 4, axis=a)
          for layout in LAYOUTS for a in (0, 1)]
    s += [KthSample(f"{np.dtype(d)} specials", _tie_heavy(d, (3, 17)), 5) for d in TIME_DTYPES]
    s += [KthSample(f"{np.dtype(d)} k=n", _tie_heavy(d, (3, 17)), 17) for d in TIME_DTYPES]
    s += [KthSample(name, make, 4) for name, make in _TIMES]
    s += [KthSample(f"{layout} datetime64 axis 0", _tie_heavy("M8[ns]", (6, 9), 2, layout), 4,
                    axis=0) for layout in LAYOUTS]
    s += [KthSample(name, make, 9, axis=None) for name, make in _FLAT]
    s += [KthSample("axis None keepdims", _tie_heavy("float32", (3, 4, 5), 13), 33, axis=None,
                    keepdims=True),
          KthSample("axis None k=size", _tie_heavy("int8", (2, 3, 2), 13), 12, axis=None),
          KthSample("axis None 0-d", _fixed(np.nan, "float32"), 1, axis=None),
          KthSample("axis None 0-d keepdims", _fixed(7, "M8[s]"), 1, axis=None, keepdims=True)]
    return s


def _partition_samples() -> list[PartitionSample]:
    s = [PartitionSample(f"{np.dtype(d)} specials", _tie_heavy(d, (3, 17)), [2, -3])
         for d in TOPK_DTYPES]
    s += [PartitionSample(name, make, 2) for name, make in _SPECIALS]
    s += [
        PartitionSample("kth 0", _tie_heavy("float32", (3, 17)), 0),
        PartitionSample("kth n-1", _tie_heavy("float32", (3, 17)), -1),
        PartitionSample("kths with negatives and repeats", _tie_heavy("int32", (3, 17)),
                        [5, -12, 0, 16, -1, 5]),
        PartitionSample("every kth", _tie_heavy("uint8", (2, 9)), list(range(9))),
        PartitionSample("no kth", _tie_heavy("float64", (2, 9)), np.array([], np.int64)),
        PartitionSample("kth tuple", _tie_heavy("int8", (2, 9)), (3, 4)),
        PartitionSample("kth array", _tie_heavy("int8", (2, 9)), np.array([1, -2], np.int16)),
        PartitionSample("empty batch", lambda folder: np.zeros((0, 5, 3), np.float32), 2,
                        axis=1),
    ]
    s += [PartitionSample(f"3-D axis {a}", _tie_heavy("int64", (4, 5, 6), 11), [1, -2], axis=a)
          for a in (0, 1, -1)]
    s += [PartitionSample(f"{layout} axis {a}", _tie_heavy("float64", (6, 9), 2, layout),
                          [2, 4], axis=a)
          for layout in LAYOUTS for a in (0, 1)]
    s += [PartitionSample(f"{np.dtype(d)} specials", _tie_heavy(d, (3, 17)), [2, -3])
          for d in TIME_DTYPES]
    s += [PartitionSample(name, make, [1, -2]) for name, make in _TIMES]
    s += [PartitionSample(f"{layout} datetime64 axis 0", _tie_heavy("M8[ns]", (6, 9), 2, layout),
                          [2, 4], axis=0) for layout in LAYOUTS]
    s += [PartitionSample(name, make, [3, -5], axis=None) for name, make in _FLAT]
    s += [PartitionSample("axis None 0-d", _fixed(-0.0, "float16"), 0, axis=None),
          PartitionSample("axis None no kth", _tie_heavy("float64", (2, 9)), [], axis=None)]
    return s


@dataclass(frozen=True)
class QuantileSample:
    """``quantile`` and ``nanquantile`` of ``make(folder)`` at ``q`` with ``method`` along
    ``axis`` (``keepdims``), and ``nanmedian`` of the same."""

    name: str
    make: Callable[[Path], np.ndarray]
    q: Any
    method: str = "linear"
    axis: int | None = -1
    keepdims: bool = False


#: q at and next to the ends, and the middle (the issue's {0, tiny, 0.5, 1 - tiny, 1}).
Q_EDGES = [0.0, 5e-324, 2.0**-53, 0.5, 1 - 2.0**-53, 1.0]
#: NumPy's 13 methods (axisops.rules.quantile.METHODS), written out.
Q_METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
             "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
             "normal_unbiased", "lower", "higher", "nearest", "midpoint")


def _with_nan_rows(dtype: Any, shape: tuple[int, ...], seed: int) -> Callable[[Path], np.ndarray]:
    """Tie-heavy data with a row of NaN only and a row without NaN."""
    def make(folder: Path) -> np.ndarray:
        a = tie_heavy(dtype, shape, seed, width=None)
        a[0] = np.nan
        a[1] = tie_heavy(dtype, shape[1:], seed, width=3)
        return a
    return make


def _quantile_samples() -> list[QuantileSample]:
    s = [QuantileSample(f"{np.dtype(d)} specials", _tie_heavy(d, (3, 17)),
                        Q_EDGES if d != np.bool_ else 0.5,
                        "linear" if d != np.bool_ else "nearest")
         for d in TOPK_DTYPES]
    s += [QuantileSample(f"method {m}", _tie_heavy("float32", (4, 13), 5), Q_EDGES, m)
          for m in Q_METHODS]
    s += [QuantileSample(f"int64 beyond 2**53, {m}", _tie_heavy("int64", (3, 11), 6), Q_EDGES, m)
          for m in ("lower", "higher", "nearest", "inverted_cdf", "closest_observation",
                    "hazen")]
    s += [QuantileSample(f"{name}, {m}", make, Q_EDGES, m) for name, make in _SPECIALS
          for m in ("linear", "nearest") if not (name == "bool" and m == "linear")]
    s += [
        QuantileSample("python float q on float32", _tie_heavy("float32", (3, 17)), 0.3),
        QuantileSample("float32 q", _tie_heavy("float32", (3, 17)),
                       np.array([0.1, 0.9], np.float32), "hazen"),
        QuantileSample("float16 q on float16", _tie_heavy("float16", (3, 17)),
                       np.array([0.2, 0.7], np.float16), "weibull"),
        QuantileSample("integer q", _tie_heavy("uint64", (3, 9)), [0, 1]),
        QuantileSample("2-D q", _tie_heavy("int16", (3, 9)), [[0.1, 0.5], [0.9, 1.0]],
                       "midpoint"),
        QuantileSample("NaN rows", _with_nan_rows("float64", (4, 10), 8), [0.25, 0.5, 0.99]),
        QuantileSample("NaN rows float16", _with_nan_rows("float16", (4, 10), 9), 0.5,
                       "averaged_inverted_cdf"),
        QuantileSample("NaN rows bfloat16", _with_nan_rows(BF16, (4, 10), 9), [0.5, 1.0],
                       "median_unbiased"),
        QuantileSample("one element", _fixed([[np.nan], [-0.0]], "float64"), Q_EDGES),
        QuantileSample("1-D", _tie_heavy("float64", (23,), 3), Q_EDGES),
        QuantileSample("axis None", _tie_heavy("float32", (3, 5, 2), 3), [0.3, 0.8], axis=None),
        QuantileSample("axis None keepdims", _tie_heavy("int32", (3, 5), 3), 0.3, axis=None,
                       keepdims=True),
        QuantileSample("keepdims", _tie_heavy("float32", (3, 5, 4), 3), [0.3, 0.8], axis=1,
                       keepdims=True),
        QuantileSample("empty batch", lambda folder: np.zeros((0, 5, 3), np.float32), 0.5,
                       axis=1),
    ]
    s += [QuantileSample(f"3-D axis {a}", _tie_heavy("float64", (4, 5, 6), 11), [0.1, 0.5],
                         "normal_unbiased", axis=a) for a in (0, 1, -1)]
    s += [QuantileSample(f"{layout} axis {a}", _tie_heavy("float32" if a else "int64", (6, 9),
                                                          2, layout), Q_EDGES, axis=a)
          for layout in LAYOUTS for a in (0, 1)]
    return s


TOPK_SAMPLES = _topk_samples()
GATHER_SAMPLES = _gather_samples()
SORT_SAMPLES = _sort_samples()
KTH_SAMPLES = _kth_samples()
PARTITION_SAMPLES = _partition_samples()
QUANTILE_SAMPLES = _quantile_samples()


# ---- the pairs -------------------------------------------------------------------------------


def _numpy_result(a: Any) -> np.ndarray:
    if type(a).__module__.partition(".")[0] == "torch":
        import torch

        if a.dtype == torch.bfloat16:
            return a.view(torch.int16).numpy().view(BF16)
        return a.numpy()
    if hasattr(a, "compute"):
        return np.asarray(a.compute(scheduler="synchronous"))
    return np.asarray(a)


@dataclass(frozen=True)
class Pair:
    """An adapter and an engine: the user's array type (``to_user``) and ``backend=``.

    ``direct`` runs the pair without the registry (an adapter whose arrays cannot be
    made here, such as CuPy's: the DLPack adapter is fed JAX arrays, which export
    through DLPack the same way).
    """

    adapter: str
    engine: str
    needs: tuple[str, ...] = ()
    direct: bool = False

    @property
    def id(self) -> str:
        return f"{self.adapter}-{self.engine}"

    def holds(self, dtype: np.dtype) -> bool:
        """Whether this pair's arrays can hold ``dtype``: torch tensors and JAX arrays (and
        so the DLPack pairs, fed JAX arrays) have no time types, and their frameworks
        refuse to make one (``TypeError``), so no engine of theirs is ever given one."""
        return self.adapter in ("numpy", "dask") or np.dtype(dtype).kind not in "mM"

    def to_user(self, a: np.ndarray) -> Any:
        if self.adapter == "numpy":
            return a
        native = np.ascontiguousarray(a, a.dtype.newbyteorder("="))
        if self.adapter == "dask":
            import dask.array as da

            return da.from_array(a, chunks=tuple(max(1, (s + 1) // 2) for s in a.shape))
        if self.adapter == "torch":
            import torch

            if native.dtype == BF16:
                return torch.from_numpy(native.view(np.int16).copy()).view(torch.bfloat16)
            return torch.from_numpy(native.copy())
        import jax.numpy as jnp  # "jax", and "dlpack" (JAX arrays are DLPack producers)

        return jnp.asarray(native)

    def context(self) -> Any:
        if self.adapter in ("jax", "dlpack"):
            import jax

            return jax.enable_x64(True)  # int64/uint64/float64 stay themselves
        from contextlib import nullcontext

        return nullcontext()

    def topk(self, x: Any, k: int, axis: int | None, largest: bool
             ) -> tuple[np.ndarray, np.ndarray]:
        if self.direct:
            from axisops.validation import topk_spec

            call = self._direct(x)
            axis = _flattened(call, axis)
            values, indices = call.run(topk_spec(call.meta(), k, axis, largest, True, None))
        else:
            import axisops

            values, indices = axisops.topk(x, k, axis, largest=largest, backend=self.engine)
        return _numpy_result(values), _numpy_result(indices)

    def gather(self, x: Any, dim: int, index: np.ndarray) -> np.ndarray:
        if self.direct:
            from axisops.validation import gather_spec

            call = self._direct(x)
            idx = call.index(index)
            return _numpy_result(call.run(gather_spec(call.meta(), dim, call.meta(idx, "index")),
                                          idx))
        import axisops

        return _numpy_result(axisops.gather(x, dim, index, backend=self.engine))

    def select(self, op: str, x: Any, *args: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        """``axisops.<op>(x, *args, **kwargs)`` for an operation of the selection family,
        its results as NumPy arrays (a tuple).  A Dask array is given in one chunk along
        the axis to the operations that need it (sort, partition and their arg forms)."""
        import axisops

        axis = kwargs.get("axis", -1)
        if self.adapter == "dask" and op not in CHUNKED_OK:
            x = x.rechunk(-1 if axis is None else {axis % x.ndim: -1})
        if self.direct:
            got = self._direct_select(op, x, *args, **kwargs)
        else:
            got = getattr(axisops, op)(x, *args, backend=self.engine, **kwargs)
        return tuple(_numpy_result(r) for r in (got if isinstance(got, tuple) else (got,)))

    def _direct_select(self, op: str, x: Any, *args: Any, **kwargs: Any) -> Any:
        from axisops import validation

        call = self._direct(x)
        axis = kwargs.get("axis", -1)
        keepdims = kwargs.get("keepdims", False)
        if op in ("quantile", "nanquantile", "nanmedian"):
            return self._direct_quantile(call, op, axis, keepdims, args, kwargs)
        ndim, flat = call.meta().ndim, axis is None
        axis = _flattened(call, axis)
        meta = call.meta()
        if op in ("sort", "argsort"):
            spec = validation.sort_spec(meta, axis, kwargs.get("descending", False))
            return call.run(spec, want=(op == "sort", op == "argsort"))[op == "argsort"]
        if op in ("partition", "argpartition"):
            spec = validation.partition_spec(meta, args[0], axis)
            return call.run(spec, want=(op == "partition", op == "argpartition"))[
                op == "argpartition"]
        keep = keepdims and not flat
        spec = (validation.median_spec(meta, axis, keep) if op == "median"
                else validation.kthvalue_spec(meta, args[0], axis, keep))
        got = tuple(call.run(spec))
        return got if not (flat and keepdims) else tuple(g.reshape((1,) * ndim) for g in got)

    def _direct_quantile(self, call: Any, op: str, axis: Any, keepdims: bool,
                         args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        from axisops.rules.quantile import nanmedian_spec, quantile_spec

        ndim = None
        if axis is None:
            ndim = call.meta().ndim
            call.reshape((-1,))
            axis = 0
        if op == "nanmedian":
            spec = nanmedian_spec(call.meta(), axis, keepdims and ndim is None)
            got = tuple(call.run(spec, want=(False, True))[:2])
            return got if ndim is None or not keepdims else tuple(
                g.reshape((1,) * ndim) for g in got)
        spec = quantile_spec(call.meta(), args[0], axis, kwargs.get("method", "linear"),
                             keepdims and ndim is None, op == "nanquantile")
        got = call.run(spec, want=(True, False))
        return got if ndim is None or not keepdims else got.reshape(spec.q_shape + (1,) * ndim)

    def _direct(self, x: Any) -> Any:
        """A call of the runner on ``x`` through the DLPack adapter (not x's family's)."""
        from axisops.adapters.dlpack import ADAPTER
        from axisops.runner import Call

        assert self.adapter == "dlpack"
        return Call(x, self.engine, adapter=ADAPTER)


def _flattened(call: Any, axis: int | None) -> int:
    """The runner's ``axis=None`` (as the public functions do it): ``x`` flattened, axis 0."""
    if axis is None:
        call.reshape((-1,))
        return 0
    return axis


# torch x triton runs the kernels in Triton's interpreter on CPU tensors; it must be
# chosen before Triton is first used (tests/test_triton_kernels.py does the same).
if os.environ.get("AXISOPS_TEST_DEVICE", "cpu") == "cpu":
    os.environ["TRITON_INTERPRET"] = "1"

#: Every adapter x engine pair this checkout has.
PAIRS = [
    Pair("numpy", "cpu", ("axisops._core",)),
    Pair("numpy", "numpy"),
    Pair("dask", "dask", ("dask",)),
    Pair("torch", "cpu", ("torch", "axisops._core")),  # CPU tensors as NumPy views
    Pair("torch", "torch", ("torch",)),  # stock torch operations
    Pair("torch", "triton", ("torch", "triton")),  # 64-bit types: given to "torch"
    Pair("jax", "cpu", ("jax", "axisops._core")),  # concrete CPU arrays through DLPack
    Pair("jax", "jax", ("jax",)),  # jitted: on the CPU, the host callback
    Pair("dlpack", "cpu", ("jax", "axisops._core"), direct=True),
    Pair("dlpack", "numpy", ("jax",), direct=True),
]
INSTALLED = [p for p in PAIRS if all(find_spec(m) is not None for m in p.needs)]

#: The pairs that run the selection family's tables (sort, kthvalue, partition...).  The
#: jitted JAX engine ("jax-jax": one compile per sample and call) runs a subset, in
#: tests/test_family_fronts.py.
SELECTING = {"numpy-cpu", "numpy-numpy", "dask-dask", "dlpack-cpu", "dlpack-numpy",
             "torch-cpu", "torch-torch", "torch-triton", "jax-cpu"}
SELECT_INSTALLED = [p for p in INSTALLED if p.id in SELECTING]
#: The pairs that run the quantile family's table (the engines that compute it so far).
QUANTILE_INSTALLED = [p for p in SELECT_INSTALLED
                      if p.id in {"numpy-cpu", "numpy-numpy", "dlpack-cpu", "dlpack-numpy",
                                  "torch-cpu", "torch-torch", "torch-triton", "jax-cpu", "dask-dask"}]
#: The operations a Dask array takes in any chunking along the axis.
CHUNKED_OK = ("kthvalue", "median", "quantile", "nanquantile", "nanmedian")
