"""Validation and normalisation of every argument, in one place.

The public functions in :mod:`axisops.ops` call these before any backend runs.
What comes out is a frozen *spec* (:class:`TopKSpec`, :class:`GatherSpec`) whose
fields are already clean: axes are non-negative, ``k`` is a Python int within
range, dtypes are NumPy dtypes.  Backends receive only specs and never validate
arguments again; the one data-dependent check (gather index values) is
:func:`check_index_values`, shared by every NumPy-family backend.

Messages name the argument, the value and what was allowed, not the function:
the public function adds its name where the user called it (see
:func:`axisops.errors.boundary`).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from math import prod
from typing import Any

import numpy as np

from .dtypes import (
    GATHER_DTYPES,
    INDEX_DTYPES,
    TOPK_DTYPES,
    is_gather_dtype,
    is_index_dtype,
    is_topk_dtype,
    native,
)
from .errors import IndexOutOfRangeError, InvalidArgumentError, UnsupportedDTypeError

__all__ = [
    "ArrayMeta",
    "GatherSpec",
    "TopKSpec",
    "as_bool",
    "as_int",
    "check_index_values",
    "gather_spec",
    "normalize_axis",
    "take_along_axis_shapes",
    "topk_spec",
]


@dataclass(frozen=True)
class ArrayMeta:
    """What validation needs to know of an array: its shape and NumPy dtype."""

    shape: tuple[int, ...]
    dtype: np.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return prod(self.shape)


@dataclass(frozen=True)
class TopKSpec:
    """A validated top-k request.  ``axis`` is in ``[0, ndim)``, ``0 <= k <= n``."""

    shape: tuple[int, ...]
    dtype: np.dtype
    axis: int
    k: int
    largest: bool
    sorted: bool
    index_dtype: np.dtype

    @property
    def n(self) -> int:
        return self.shape[self.axis]

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.shape[: self.axis] + (self.k,) + self.shape[self.axis + 1 :]

    @property
    def out_dtype(self) -> np.dtype:
        return native(self.dtype)


@dataclass(frozen=True)
class GatherSpec:
    """A validated gather request; ``dim`` is in ``[0, ndim)``.

    ``index_shape[d] <= shape[d]`` for every ``d != dim``; index *values* are
    checked by the backend (see :func:`check_index_values`).
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    dim: int
    index_shape: tuple[int, ...]
    index_dtype: np.dtype
    index_name: str = "index"
    dim_name: str = "dim"

    @property
    def n(self) -> int:
        return self.shape[self.dim]

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.index_shape

    @property
    def out_dtype(self) -> np.dtype:
        return native(self.dtype)


def _describe(value: Any) -> str:
    return f"{value!r} ({type(value).__name__})"


def as_int(name: str, value: Any) -> int:
    """``value`` as a Python int; bool, float and non-integers are rejected.

    A ``torch.SymInt`` (a size while ``torch.compile`` traces with dynamic
    shapes) is returned as it is: ``operator.index`` would fix it to the value
    seen while tracing, one compiled graph per value.  Comparisons on it then
    become conditions of the graph instead.  (Dynamo, which traces this
    function, presents a SymInt as an ``int``; the operators' fake
    implementations, which it does not trace, see the SymInt itself.)
    """
    if type(value) is int:
        return value
    if isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentError(
            f"{name}={value!r} is a bool (need a Python or NumPy integer)"
        )
    if type(value).__name__ == "SymInt" and type(value).__module__ == "torch":
        return value
    try:
        return operator.index(value)
    except TypeError:
        raise InvalidArgumentError(
            f"{name}={_describe(value)} is not an integer "
            f"(need a Python or NumPy integer, not bool or float)"
        ) from None


def as_bool(name: str, value: Any) -> bool:
    """``value`` as a Python bool; only True/False (Python or NumPy) are accepted."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InvalidArgumentError(
        f"{name}={_describe(value)} is not a bool (need True or False)"
    )


def normalize_axis(name: str, value: Any, ndim: int) -> int:
    """An axis in ``[-ndim, ndim)`` mapped to ``[0, ndim)``."""
    axis = as_int(name, value)
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(
            f"{name}={axis} is out of range for an array of {ndim} "
            f"dimension{'s' if ndim != 1 else ''} (need {-ndim} <= {name} <= {ndim - 1})"
        )
    return axis % ndim


def _require_rank(name: str, meta: ArrayMeta) -> None:
    if meta.ndim == 0:
        raise InvalidArgumentError(
            f"{name} must have at least one dimension, got a 0-d array"
        )


def _as_index_dtype(value: Any) -> np.dtype:
    if value is None:
        return np.dtype(np.int64)
    # A framework dtype such as torch.int32 is spelled "torch.int32".  torch's
    # are read by name, never through np.dtype(): torch.compile cannot trace the
    # exception np.dtype() raises for them.
    name = str(value).rpartition(".")[2]
    if type(value).__module__ == "torch":
        dtype = np.dtype(name) if name in INDEX_DTYPES else None
    else:
        try:
            dtype = np.dtype(value)
        except (TypeError, ValueError):
            ok = name in INDEX_DTYPES and not isinstance(value, str)
            dtype = np.dtype(name) if ok else None
    if dtype is None:
        raise UnsupportedDTypeError(
            f"index_dtype={value!r} is not a dtype (allowed: {', '.join(INDEX_DTYPES)})"
        )
    if not is_index_dtype(dtype):
        raise UnsupportedDTypeError(
            f"index_dtype={dtype.name} is not an integer type "
            f"(allowed: {', '.join(INDEX_DTYPES)})"
        )
    return native(dtype)


def _int_max(dtype: np.dtype) -> int:
    """The largest value of an integer dtype (``np.iinfo(dtype).max``, without its cost)."""
    return (1 << (8 * dtype.itemsize - (dtype.kind == "i"))) - 1


def topk_spec(
    meta: ArrayMeta,
    k: Any,
    axis: Any,
    largest: Any,
    sorted: Any,
    index_dtype: Any,
) -> TopKSpec:
    """Validate a top-k call; raises the library's errors, returns a clean spec."""
    _require_rank("x", meta)
    if not is_topk_dtype(meta.dtype):
        raise UnsupportedDTypeError(
            f"x has dtype {meta.dtype}, which top-k does not support "
            f"(supported: {', '.join(TOPK_DTYPES)})"
        )
    ax = normalize_axis("axis", axis, meta.ndim)
    kk = as_int("k", k)
    n = meta.shape[ax]
    if not 0 <= kk <= n:
        raise InvalidArgumentError(
            f"k={kk} is out of range for axis {ax} of size {n} (need 0 <= k <= {n})"
        )
    big = as_bool("largest", largest)
    srt = as_bool("sorted", sorted)
    idt = _as_index_dtype(index_dtype)
    # A 64-bit type holds every index there can be; not comparing then also keeps
    # a symbolic n (torch.export, dynamic shapes) free of a needless condition.
    if idt.itemsize < 8 and n > 0 and _int_max(idt) < n - 1:
        raise InvalidArgumentError(
            f"index_dtype={idt.name} cannot hold index {n - 1} of axis {ax} "
            f"of size {n} (need an integer type whose maximum is >= {n - 1})"
        )
    return TopKSpec(meta.shape, meta.dtype, ax, kk, big, srt, idt)


def gather_spec(
    meta: ArrayMeta,
    dim: Any,
    index: ArrayMeta,
    *,
    index_name: str = "index",
    dim_name: str = "dim",
) -> GatherSpec:
    """Validate a gather call (torch.gather semantics); returns a clean spec."""
    _require_rank("x", meta)
    if not is_gather_dtype(meta.dtype):
        raise UnsupportedDTypeError(
            f"x has dtype {meta.dtype}, which gather does not support "
            f"(supported: {', '.join(GATHER_DTYPES)})"
        )
    if not is_index_dtype(index.dtype):
        raise UnsupportedDTypeError(
            f"{index_name} has dtype {index.dtype}, need an integer dtype "
            f"({', '.join(INDEX_DTYPES)})"
        )
    if index.ndim != meta.ndim:
        raise InvalidArgumentError(
            f"{index_name} must have the same number of dimensions as x "
            f"(x has {meta.ndim}, {index_name} has {index.ndim})"
        )
    d = normalize_axis(dim_name, dim, meta.ndim)
    for ax, (si, sx) in enumerate(zip(index.shape, meta.shape)):
        if ax != d and si > sx:
            raise InvalidArgumentError(
                f"{index_name}.shape[{ax}]={si} exceeds x.shape[{ax}]={sx} "
                f"(need {index_name}.shape[d] <= x.shape[d] for every d != {dim_name}={d})"
            )
    if index.size > 0 and meta.shape[d] == 0:
        raise InvalidArgumentError(
            f"{index_name} is non-empty but {dim_name} {d} of x has size 0 "
            f"(there is nothing to gather from)"
        )
    return GatherSpec(
        meta.shape, meta.dtype, d, index.shape, native(index.dtype), index_name, dim_name
    )


def take_along_axis_shapes(
    x: ArrayMeta, indices: ArrayMeta, axis: Any
) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """Broadcast shapes for the array-API ``take_along_axis``.

    Returns ``(axis, x_shape, indices_shape)``: both shapes agree in every
    dimension but ``axis``, where each keeps its own size.
    """
    _require_rank("x", x)
    if indices.ndim != x.ndim:
        raise InvalidArgumentError(
            f"indices must have the same number of dimensions as x "
            f"(x has {x.ndim}, indices has {indices.ndim})"
        )
    ax = normalize_axis("axis", axis, x.ndim)
    xs, js = list(x.shape), list(indices.shape)
    for d, (a, b) in enumerate(zip(x.shape, indices.shape)):
        if d == ax or a == b:
            continue
        if a != 1 and b != 1:
            raise InvalidArgumentError(
                f"x.shape[{d}]={a} and indices.shape[{d}]={b} cannot be broadcast "
                f"(need equal sizes or one of them 1 in every dimension but axis={ax})"
            )
        xs[d] = js[d] = max(a, b)
    return ax, tuple(xs), tuple(js)


def check_index_values(
    index: np.ndarray, spec: GatherSpec, offset: tuple[int, ...] | None = None
) -> None:
    """Raise :class:`IndexOutOfRangeError` unless every value is in ``[-n, n-1]``.

    Two reductions and no temporary the size of ``index``; the slow search for
    the first offender runs only when there is one.  ``offset`` is where
    ``index`` starts inside the whole index when it is one block of it (the
    error then names the position in the whole index).
    """
    if index.size == 0:
        return
    n = spec.n
    lo, hi = index.min(), index.max()
    if int(lo) >= -n and int(hi) <= n - 1:
        return
    bad = (index < -n) | (index > n - 1) if index.dtype.kind == "i" else index > n - 1
    pos = np.unravel_index(int(np.argmax(bad)), index.shape)
    where = tuple(int(p) + (offset[d] if offset else 0) for d, p in enumerate(pos))
    raise_index_error(spec, where, int(index[pos]))


def raise_index_error(spec: GatherSpec, position: tuple[int, ...], value: int) -> None:
    """Raise the contract's out-of-range error for ``index[position] == value``."""
    n = spec.n
    where = ", ".join(map(str, position))
    raise IndexOutOfRangeError(
        f"{spec.index_name}[{where}]={value} is out of range for "
        f"{spec.dim_name} {spec.dim} of size {n} (need {-n} <= {spec.index_name} <= {n - 1})"
    )
