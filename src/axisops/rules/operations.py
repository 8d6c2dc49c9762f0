"""The rules of each operation: a user's arguments in, a validated spec out; and the
one data-dependent rule, gather index values, checked where they are read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NoReturn

import numpy as np

from ..dtypes import native
from ..errors import Arg, IndexOutOfRangeError, with_fields
from ..requests import ArrayMeta, GatherSpec, KthSpec, PartitionSpec, SortSpec, TopKSpec
from . import invalid
from .arguments import as_bool, as_int, check_k, normalize_axis
from .types import check_gather_dtype, check_index_capacity, check_index_type, check_ordered_dtype
from .types import index_dtype as as_index_dtype

__all__ = ["as_kth", "check_gather_source", "check_index_extents", "check_index_values",
           "check_same_rank", "gather_spec", "kthvalue_spec", "median_spec", "partition_spec",
           "raise_index_error", "require_rank", "sort_spec", "take_along_axis_shapes",
           "topk_spec"]


def require_rank(name: str, meta: ArrayMeta) -> None:
    """At least one dimension."""
    if meta.ndim == 0:
        invalid(f"{name} must have at least one dimension, got a 0-d array", name=name,
                value=meta.shape, allowed="at least one dimension")


def topk_spec(
    meta: ArrayMeta,
    k: Any,
    axis: Any,
    largest: Any,
    sorted: Any,
    index_dtype: Any,
) -> TopKSpec:
    """Validate a top-k call; raises the library's errors, returns a clean spec."""
    require_rank("x", meta)
    check_ordered_dtype("x", meta.dtype)
    ax = normalize_axis("axis", axis, meta.ndim)
    n = meta.shape[ax]
    kk = check_k(k, n, axis=ax)
    big = as_bool("largest", largest)
    srt = as_bool("sorted", sorted)
    idt = as_index_dtype(index_dtype)
    # A 64-bit type holds every index there can be; not comparing then also keeps
    # a symbolic n (torch.export, dynamic shapes) free of a needless condition.
    if idt.itemsize < 8 and n > 0:
        check_index_capacity(idt, n - 1, ax, n)
    return TopKSpec(meta.shape, meta.dtype, ax, kk, big, srt, idt)


def sort_spec(meta: ArrayMeta, axis: Any, descending: Any) -> SortSpec:
    """Validate a sort or argsort call; raises the library's errors, returns a clean spec.

    >>> sort_spec(ArrayMeta((2, 3), np.dtype("float32")), -1, True).axis
    1
    """
    require_rank("x", meta)
    check_ordered_dtype("x", meta.dtype, "sort")
    ax = normalize_axis("axis", axis, meta.ndim)
    desc = as_bool("descending", descending)
    return SortSpec(meta.shape, meta.dtype, ax, desc)


def kthvalue_spec(meta: ArrayMeta, k: Any, axis: Any, keepdims: Any) -> KthSpec:
    """Validate a kthvalue call (``k`` 1-based, ``1 <= k <= n``); returns a clean spec.

    >>> kthvalue_spec(ArrayMeta((4, 5), np.dtype("int8")), 5, 1, False).out_shape
    (4,)
    """
    require_rank("x", meta)
    check_ordered_dtype("x", meta.dtype, "kthvalue")
    ax = normalize_axis("axis", axis, meta.ndim)
    kk = check_k(k, meta.shape[ax], axis=ax, low=1)
    keep = as_bool("keepdims", keepdims)
    return KthSpec(meta.shape, meta.dtype, ax, kk, keep)


def median_spec(meta: ArrayMeta, axis: Any, keepdims: Any) -> KthSpec:
    """Validate a median call: the lower median is ``kthvalue(x, (n - 1) // 2 + 1)``.

    An empty axis has no median (the error names ``x``).

    >>> median_spec(ArrayMeta((4, 6), np.dtype("float64")), -1, True).k
    3
    """
    require_rank("x", meta)
    check_ordered_dtype("x", meta.dtype, "median")
    ax = normalize_axis("axis", axis, meta.ndim)
    n = meta.shape[ax]
    if n == 0:
        invalid(f"x has size 0 along axis {ax} (shape {meta.shape}), which has no median "
                f"(need at least one element)", name="x", value=meta.shape, axis=ax, size=0,
                allowed="at least one element along the axis")
    keep = as_bool("keepdims", keepdims)
    return KthSpec(meta.shape, meta.dtype, ax, (n - 1) // 2 + 1, keep)


def as_kth(value: Any, n: int, axis: int) -> tuple[int, ...]:
    """``kth`` of partition (NumPy's meaning): an integer or a sequence of them (a list,
    tuple, range or 1-D integer array), each in ``[-n, n)``; returned as the positions,
    non-negative, ascending and unique.  The error's fields are ``name``, ``value``
    (the offending entry), ``size`` (n), ``axis``, ``low`` and ``high``.

    >>> as_kth([-1, 2, 2, 0], 5, 0)
    (0, 2, 4)
    """
    if isinstance(value, np.ndarray) and value.ndim > 1:
        invalid(f"kth has {value.ndim} dimensions (need an integer or a sequence of "
                f"integers)", name="kth", value=value, allowed="an integer or a 1-D sequence")
    if (isinstance(value, Sequence) and not isinstance(value, (str, bytes))) or \
            (isinstance(value, np.ndarray) and value.ndim == 1):
        if isinstance(value, np.ndarray) and value.dtype.kind not in "iu":
            invalid(f"kth has dtype {value.dtype} (need integers)", name="kth", value=value,
                    allowed="integers")
        wanted = [as_int("kth", v) for v in value]
    else:
        wanted = [as_int("kth", value)]
    for k in wanted:
        if not -n <= k < n:
            invalid(f"kth={k} is out of range for axis {axis} of size {n} "
                    f"(need {-n} <= kth <= {n - 1})", name="kth", value=k, size=n, axis=axis,
                    low=-n, high=n - 1, allowed=f"{-n} <= kth <= {n - 1}")
    return tuple(sorted({k + n if k < 0 else k for k in wanted}))


def partition_spec(meta: ArrayMeta, kth: Any, axis: Any) -> PartitionSpec:
    """Validate a partition or argpartition call; returns a clean spec.

    >>> partition_spec(ArrayMeta((3, 7), np.dtype("uint8")), (-1, 3), -1).kth
    (3, 6)
    """
    require_rank("x", meta)
    check_ordered_dtype("x", meta.dtype, "partition")
    ax = normalize_axis("axis", axis, meta.ndim)
    positions = as_kth(kth, meta.shape[ax], ax)
    return PartitionSpec(meta.shape, meta.dtype, ax, positions)


def check_same_rank(ndim: int, index_ndim: int, name: str = "index") -> None:
    """The index has x's number of dimensions."""
    if index_ndim != ndim:
        invalid(f"{name} must have the same number of dimensions as x (x has {ndim}, "
                f"{name} has {index_ndim})", name=name, value=index_ndim, ndim=ndim,
                allowed=f"{ndim} dimensions")


def check_index_extents(shape: tuple[int, ...], dim: int, index_shape: tuple[int, ...],
                        name: str = "index", dim_name: str = "dim") -> None:
    """``index.shape[d] <= x.shape[d]`` for every ``d != dim``.  Fields: ``axis`` (the
    dimension that fails), ``value`` (the index's size there) and ``size`` (x's)."""
    for ax, (si, sx) in enumerate(zip(index_shape, shape)):
        if ax != dim and si > sx:
            invalid(f"{name}.shape[{ax}]={si} exceeds x.shape[{ax}]={sx} (need "
                    f"{name}.shape[d] <= x.shape[d] for every d != {dim_name}={dim})",
                    name=name, axis=ax, value=si, size=sx,
                    allowed=f"{name}.shape[{ax}] <= {sx}")


def check_gather_source(shape: tuple[int, ...], dim: int, index_size: int,
                        name: str = "index", dim_name: str = "dim") -> None:
    """Something to gather from along ``dim`` when the index is not empty."""
    if index_size > 0 and shape[dim] == 0:
        invalid(f"{name} is non-empty but {dim_name} {dim} of x has size 0 (there is "
                f"nothing to gather from)", name=name, axis=dim, value=index_size, size=0,
                allowed="an empty index")


def gather_spec(
    meta: ArrayMeta,
    dim: Any,
    index: ArrayMeta,
    *,
    index_name: str = "index",
    dim_name: str = "dim",
) -> GatherSpec:
    """Validate a gather call (torch.gather semantics); returns a clean spec.

    ``index_name`` and ``dim_name`` are the caller's names of the arguments, for
    the messages of these checks (``take_along_axis`` says ``indices`` and
    ``axis``); the spec does not keep them.
    """
    require_rank("x", meta)
    check_gather_dtype("x", meta.dtype)
    check_index_type(index.dtype, index_name)
    check_same_rank(meta.ndim, index.ndim, index_name)
    d = normalize_axis(dim_name, dim, meta.ndim)
    check_index_extents(meta.shape, d, index.shape, index_name, dim_name)
    check_gather_source(meta.shape, d, index.size, index_name, dim_name)
    return GatherSpec(meta.shape, meta.dtype, d, index.shape, native(index.dtype))


def take_along_axis_shapes(
    x: ArrayMeta, indices: ArrayMeta, axis: Any
) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """Broadcast shapes for the array-API ``take_along_axis``.

    Returns ``(axis, x_shape, indices_shape)``: both shapes agree in every
    dimension but ``axis``, where each keeps its own size.
    """
    require_rank("x", x)
    check_same_rank(x.ndim, indices.ndim, "indices")
    ax = normalize_axis("axis", axis, x.ndim)
    xs, js = list(x.shape), list(indices.shape)
    for d, (a, b) in enumerate(zip(x.shape, indices.shape)):
        if d == ax or a == b:
            continue
        if a != 1 and b != 1:
            invalid(f"x.shape[{d}]={a} and indices.shape[{d}]={b} cannot be broadcast "
                    f"(need equal sizes or one of them 1 in every dimension but axis={ax})",
                    name="indices", axis=d, value=b, size=a, allowed="broadcastable shapes")
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


def raise_index_error(spec: GatherSpec, position: tuple[int, ...], value: int | None) -> NoReturn:
    """Raise the contract's out-of-range error for ``index[position] == value``.

    ``value=None``: a kernel met an out-of-range value at or after ``position``
    while reading, and the index no longer holds one (another thread changed it).
    """
    n, dim = spec.n, spec.dim
    where = ", ".join(map(str, position))
    fields = dict(name="index", position=tuple(position), value=value, size=n, dim=dim,
                  dim_name="dim")
    index, axis = Arg("index"), Arg("dim")
    if value is None:
        raise with_fields(IndexOutOfRangeError(
            index, " held an out-of-range value at or after ", index, f"[{where}] when it "
            f"was read, for ", axis, f" {dim} of size {n}, but holds none now (was it changed "
            f"during the call?); need {-n} <= ", index, f" <= {n - 1}"), **fields)
    raise with_fields(IndexOutOfRangeError(
        index, f"[{where}]={value} is out of range for ", axis, f" {dim} of size {n} "
        f"(need {-n} <= ", index, f" <= {n - 1})"), **fields)
