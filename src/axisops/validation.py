"""Every rule on the arguments, once: the specs and the rule functions the fronts call.

The public functions (:mod:`axisops.api`), :class:`axisops.StreamingTopK`, the
file jobs, the command line and the DirectML and Ascend facades call these before
any engine runs.  What comes out is a clean value or a frozen *spec*
(:class:`TopKSpec`, :class:`GatherSpec`, :class:`SortSpec`, :class:`KthSpec`,
:class:`PartitionSpec`) whose fields are already checked: axes
are non-negative, ``k`` is a Python int within range, dtypes are NumPy dtypes.
Engines receive only specs and never validate arguments again; the one
data-dependent check (gather index values) is :func:`check_index_values`.

Each rule raises an error that carries its data (``name``, ``value``,
``allowed`` and the rule's own fields) and a message in the Python API's words,
naming the argument, the value and what was allowed, not the function: the
public function adds its name where the user called it (see
:mod:`axisops.errors`).  Fronts with words of their own (the command line's
flags, DirectML's HRESULT texts, Ascend's status messages) write them from the
fields.  No other module raises an argument error of its own making
(``tests/test_layering.py`` checks it).
"""

from __future__ import annotations

import operator
import os
from collections.abc import Sequence
from dataclasses import dataclass
from math import prod
from typing import Any, NoReturn

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
from .errors import (
    Arg,
    IndexOutOfRangeError,
    InvalidArgumentError,
    UnsupportedDTypeError,
    with_fields,
)

__all__ = [
    "ArrayMeta",
    "GatherSpec",
    "KthSpec",
    "PartitionSpec",
    "SortSpec",
    "TopKSpec",
    "as_bool",
    "as_chunk_bytes",
    "as_int",
    "as_kth",
    "check_index_values",
    "check_k",
    "check_one_chunk",
    "check_topk_dtype",
    "gather_spec",
    "index_dtype",
    "kthvalue_spec",
    "median_spec",
    "normalize_axis",
    "partition_spec",
    "raise_index_error",
    "sort_spec",
    "take_along_axis_shapes",
    "topk_spec",
]

#: Global indices are int64: every index of a streamed sequence stays below this.
INT64_END = 2**63


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


class _AlongAxis:
    """What every request along one axis derives from its ``shape``, ``axis`` and ``dtype``."""

    shape: tuple[int, ...]
    dtype: np.dtype
    axis: int

    @property
    def n(self) -> int:
        return self.shape[self.axis]

    @property
    def out_dtype(self) -> np.dtype:
        return native(self.dtype)


@dataclass(frozen=True)
class TopKSpec(_AlongAxis):
    """A validated top-k request.  ``axis`` is in ``[0, ndim)``, ``0 <= k <= n``."""

    shape: tuple[int, ...]
    dtype: np.dtype
    axis: int
    k: int
    largest: bool
    sorted: bool
    index_dtype: np.dtype

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.shape[: self.axis] + (self.k,) + self.shape[self.axis + 1 :]


@dataclass(frozen=True)
class GatherSpec:
    """A validated gather request; ``dim`` is in ``[0, ndim)``.

    ``index_shape[d] <= shape[d]`` for every ``d != dim``; index *values* are
    checked by the engine (see :func:`check_index_values`).  A spec holds no
    wording: the messages of its errors name ``index`` and ``dim``, and the
    function that was called words them its own way (``take_along_axis`` says
    ``indices`` and ``axis``, see :data:`axisops.errors.FUNCTION_WORDS`).
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    dim: int
    index_shape: tuple[int, ...]
    index_dtype: np.dtype

    @property
    def n(self) -> int:
        return self.shape[self.dim]

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.index_shape

    @property
    def out_dtype(self) -> np.dtype:
        return native(self.dtype)


@dataclass(frozen=True)
class SortSpec(_AlongAxis):
    """A validated sort or argsort request.  ``axis`` is in ``[0, ndim)``.

    The order is stable in both directions: equal keys keep their index order
    whether ``descending`` or not.
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    axis: int
    descending: bool

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.shape


@dataclass(frozen=True)
class KthSpec(_AlongAxis):
    """A validated kthvalue (or median) request: ``k`` is 1-based, ``1 <= k <= n``.

    The answer is position ``k - 1`` of the stable ascending sort along ``axis``
    and its index; ``out_shape`` is the shape without the axis, or with it kept
    as 1 when ``keepdims``.
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    axis: int
    k: int
    keepdims: bool

    @property
    def out_shape(self) -> tuple[int, ...]:
        kept = (1,) if self.keepdims else ()
        return self.shape[: self.axis] + kept + self.shape[self.axis + 1 :]


@dataclass(frozen=True)
class PartitionSpec(_AlongAxis):
    """A validated partition or argpartition request.

    ``kth`` holds the positions, non-negative, ascending and unique (NumPy's
    negative ones already counted from the end); it may be empty.
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    axis: int
    kth: tuple[int, ...]

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.shape


# ---- reading scalars -------------------------------------------------------------------------


def _invalid(*parts: Any, **fields: Any) -> NoReturn:
    raise with_fields(InvalidArgumentError(*parts), **fields)



def as_int(name: str, value: Any, *, exact: bool = False) -> int:
    """``value`` as a Python int; bool, float and non-integers are rejected.

    ``exact`` accepts Python and NumPy integer *types* only, without calling any
    method of the value's class (``__index__`` included): for facades that take
    values from hostile callers.

    A ``torch.SymInt`` (a size while ``torch.compile`` traces with dynamic
    shapes) is returned as it is: ``operator.index`` would fix it to the value
    seen while tracing, one compiled graph per value.  Comparisons on it then
    become conditions of the graph instead.  (Dynamo, which traces this
    function, presents a SymInt as an ``int``; the operators' fake
    implementations, which it does not trace, see the SymInt itself.)

    >>> as_int("k", np.int8(3))
    3
    """
    if type(value) is int:
        return value
    if exact and (not issubclass(type(value), (int, np.integer))
                  or issubclass(type(value), (bool, np.bool_))):
        # No repr: the value's class may run code of its own (the facades' callers).
        _invalid(f"{name} is not a Python or NumPy integer", name=name, value=value,
                 allowed="an integer")
    if isinstance(value, (bool, np.bool_)):
        _invalid(f"{name}={value!r} is a bool (need a Python or NumPy integer)",
                 name=name, value=value, allowed="an integer")
    if not exact and type(value).__name__ == "SymInt" and type(value).__module__ == "torch":
        return value
    try:
        return operator.index(value)
    except TypeError:
        _invalid(f"{name}={_describe(value)} is not an integer "
                 f"(need a Python or NumPy integer, not bool or float)",
                 name=name, value=value, allowed="an integer")


def as_bool(name: str, value: Any, *, c_bool: bool = False) -> bool:
    """``value`` as a Python bool; only True/False (Python or NumPy) are accepted.

    ``c_bool`` also takes the integers 0 and 1 (a C ``bool``), for the facades.
    """
    if issubclass(type(value), (bool, np.bool_)):
        return bool(value)
    if c_bool:
        if issubclass(type(value), (int, np.integer)) and value in (0, 1):
            return bool(value)
        _invalid(f"{name} is not True, False, 0 or 1", name=name, value=value,
                 allowed="True or False")
    _invalid(f"{name}={_describe(value)} is not a bool (need True or False)",
             name=name, value=value, allowed="True or False")


def _describe(value: Any) -> str:
    return f"{value!r} ({type(value).__name__})"


def as_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of the strings ``choices``.

    >>> as_choice("mode", "smallest", ("largest", "smallest"))
    'smallest'
    """
    if isinstance(value, str) and value in choices:
        return value
    need = " or ".join(repr(c) for c in choices)
    _invalid(f"{name}={value!r} is not allowed (need {need})", name=name, value=value,
             allowed=need)


def normalize_axis(name: str, value: Any, ndim: int, *, negative: bool = True,
                   exact: bool = False) -> int:
    """An axis in ``[-ndim, ndim)`` mapped to ``[0, ndim)``.

    ``negative=False`` allows ``[0, ndim)`` only (an unsigned axis).  The error's
    fields are ``name``, ``value``, ``ndim`` and the bounds ``low``, ``high``.
    """
    axis = as_int(name, value, exact=exact)
    low = -ndim if negative else 0
    if not low <= axis < ndim:
        plural = "s" if ndim != 1 else ""
        _invalid(f"{name}={axis} is out of range for an array of {ndim} dimension{plural} "
                 f"(need {low} <= {name} <= {ndim - 1})",
                 name=name, value=axis, ndim=ndim, low=low, high=ndim - 1,
                 allowed=f"{low} <= {name} <= {ndim - 1}")
    return axis % ndim


def check_k(value: Any, n: int | None = None, *, axis: int | None = None, low: int = 0,
            high: int | None = None, exact: bool = False) -> int:
    """``k`` as an int in ``[low, high]`` (``high`` defaults to ``n``; no bound above
    when ``n`` is None too).  The error's fields are ``value``, ``size`` (n),
    ``axis``, ``low`` and ``high``.

    >>> check_k(2, 5)
    2
    """
    k = as_int("k", value, exact=exact)
    top = n if high is None else high
    if top is None:
        if k < low:
            _invalid(f"k={k} is negative (need k >= {low})", name="k", value=k, size=None,
                     axis=axis, low=low, high=None, allowed=f"k >= {low}")
        return k
    if not low <= k <= top:
        _invalid(f"k={k} is out of range for axis {axis} of size {n} (need {low} <= k <= {top})",
                 name="k", value=k, size=n, axis=axis, low=low, high=top,
                 allowed=f"{low} <= k <= {top}")
    return k


def require_rank(name: str, meta: ArrayMeta) -> None:
    """At least one dimension."""
    if meta.ndim == 0:
        _invalid(f"{name} must have at least one dimension, got a 0-d array", name=name,
                 value=meta.shape, allowed="at least one dimension")


def check_topk_dtype(name: str, dtype: np.dtype, what: str = "top-k") -> None:
    """A dtype top-k takes (every real type, bool, float16 and bfloat16); ``what`` names
    the operation in the message (the selection family takes the same dtypes)."""
    if not is_topk_dtype(dtype):
        allowed = ", ".join(TOPK_DTYPES)
        raise with_fields(UnsupportedDTypeError(
            f"{name} has dtype {dtype}, which {what} does not support (supported: {allowed})"),
            name=name, dtype=dtype, allowed=allowed)


def check_gather_dtype(name: str, dtype: np.dtype) -> None:
    """A dtype gather takes (top-k's and complex)."""
    if not is_gather_dtype(dtype):
        allowed = ", ".join(GATHER_DTYPES)
        raise with_fields(UnsupportedDTypeError(
            f"{name} has dtype {dtype}, which gather does not support (supported: {allowed})"),
            name=name, dtype=dtype, allowed=allowed)


def index_dtype(value: Any) -> np.dtype:
    """The ``index_dtype`` argument as a native integer dtype (None: int64).

    >>> index_dtype("uint16")
    dtype('uint16')
    """
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
    allowed = ", ".join(INDEX_DTYPES)
    if dtype is None:
        raise with_fields(UnsupportedDTypeError(
            f"index_dtype={value!r} is not a dtype (allowed: {allowed})"),
            name="index_dtype", dtype=value, allowed=allowed)
    if not is_index_dtype(dtype):
        raise with_fields(UnsupportedDTypeError(
            f"index_dtype={dtype.name} is not an integer type (allowed: {allowed})"),
            name="index_dtype", dtype=dtype, allowed=allowed)
    return native(dtype)


_index_dtype = index_dtype  # topk_spec's argument of that name hides the function


def _int_max(dtype: np.dtype) -> int:
    """The largest value of an integer dtype (``np.iinfo(dtype).max``, without its cost)."""
    return (1 << (8 * dtype.itemsize - (dtype.kind == "i"))) - 1


def check_index_capacity(dtype: np.dtype, top: int, axis: int, size: int | None = None,
                         offset: int | None = None) -> None:
    """``dtype`` can hold index ``top``, the last of an axis of ``size``, or the last of
    ``size`` elements given at ``offset`` (a stream's block)."""
    if top <= _int_max(dtype):
        return  # no message built: sizes may be symbolic (torch.compile) until here
    need = f"need an integer type whose maximum is >= {top}"
    where = (f"of axis {axis} of size {size} ({need})" if offset is None
             else f"(offset={offset} plus {size} elements along axis {axis}; {need})")
    _invalid(f"index_dtype={dtype.name} cannot hold index {top} {where}",
             name="index_dtype", value=dtype, allowed=f"a maximum >= {top}")


def check_axis_length(n: int, axis: int, most: int, what: str) -> None:
    """An axis of size ``n`` is at most ``most`` long, the longest ``what`` takes."""
    if n > most:
        _invalid(f"axis {axis} of size {n} is too long for {what} (need at most {most} "
                 f"elements)", name="x", value=n, axis=axis, high=most,
                 allowed=f"at most {most} elements along the axis")


def check_narrowed_index(wanted: np.dtype, got: np.dtype, n: int, axis: int, by: str) -> None:
    """A producer that narrows ``wanted`` to ``got`` (JAX without 64-bit types) can still
    hold the last index of an axis of size ``n``."""
    if got != wanted and n - 1 > _int_max(got):
        _invalid(f"index_dtype={wanted.name} is narrowed to {got.name} by {by}, which cannot "
                 f"hold index {n - 1} of axis {axis} of size {n} (enable 64-bit types in the "
                 f"producer)", name="index_dtype", value=wanted, allowed=f"a maximum >= {n - 1}")


# ---- the operations --------------------------------------------------------------------------


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
    check_topk_dtype("x", meta.dtype)
    ax = normalize_axis("axis", axis, meta.ndim)
    n = meta.shape[ax]
    kk = check_k(k, n, axis=ax)
    big = as_bool("largest", largest)
    srt = as_bool("sorted", sorted)
    idt = _index_dtype(index_dtype)
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
    check_topk_dtype("x", meta.dtype, "sort")
    ax = normalize_axis("axis", axis, meta.ndim)
    desc = as_bool("descending", descending)
    return SortSpec(meta.shape, meta.dtype, ax, desc)


def kthvalue_spec(meta: ArrayMeta, k: Any, axis: Any, keepdims: Any) -> KthSpec:
    """Validate a kthvalue call (``k`` 1-based, ``1 <= k <= n``); returns a clean spec.

    >>> kthvalue_spec(ArrayMeta((4, 5), np.dtype("int8")), 5, 1, False).out_shape
    (4,)
    """
    require_rank("x", meta)
    check_topk_dtype("x", meta.dtype, "kthvalue")
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
    check_topk_dtype("x", meta.dtype, "median")
    ax = normalize_axis("axis", axis, meta.ndim)
    n = meta.shape[ax]
    if n == 0:
        _invalid(f"x has size 0 along axis {ax} (shape {meta.shape}), which has no median "
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
        _invalid(f"kth has {value.ndim} dimensions (need an integer or a sequence of "
                 f"integers)", name="kth", value=value, allowed="an integer or a 1-D sequence")
    if (isinstance(value, Sequence) and not isinstance(value, (str, bytes))) or \
            (isinstance(value, np.ndarray) and value.ndim == 1):
        if isinstance(value, np.ndarray) and value.dtype.kind not in "iu":
            _invalid(f"kth has dtype {value.dtype} (need integers)", name="kth", value=value,
                     allowed="integers")
        wanted = [as_int("kth", v) for v in value]
    else:
        wanted = [as_int("kth", value)]
    for k in wanted:
        if not -n <= k < n:
            _invalid(f"kth={k} is out of range for axis {axis} of size {n} "
                     f"(need {-n} <= kth <= {n - 1})", name="kth", value=k, size=n, axis=axis,
                     low=-n, high=n - 1, allowed=f"{-n} <= kth <= {n - 1}")
    return tuple(sorted({k + n if k < 0 else k for k in wanted}))


def partition_spec(meta: ArrayMeta, kth: Any, axis: Any) -> PartitionSpec:
    """Validate a partition or argpartition call; returns a clean spec.

    >>> partition_spec(ArrayMeta((3, 7), np.dtype("uint8")), (-1, 3), -1).kth
    (3, 6)
    """
    require_rank("x", meta)
    check_topk_dtype("x", meta.dtype, "partition")
    ax = normalize_axis("axis", axis, meta.ndim)
    positions = as_kth(kth, meta.shape[ax], ax)
    return PartitionSpec(meta.shape, meta.dtype, ax, positions)


def check_index_type(dtype: np.dtype, name: str = "index") -> None:
    """A gather index is of an integer dtype."""
    if not is_index_dtype(dtype):
        allowed = ", ".join(INDEX_DTYPES)
        raise with_fields(UnsupportedDTypeError(
            f"{name} has dtype {dtype}, need an integer dtype ({allowed})"),
            name=name, dtype=dtype, allowed=allowed)


def check_same_rank(ndim: int, index_ndim: int, name: str = "index") -> None:
    """The index has x's number of dimensions."""
    if index_ndim != ndim:
        _invalid(f"{name} must have the same number of dimensions as x (x has {ndim}, "
                 f"{name} has {index_ndim})", name=name, value=index_ndim, ndim=ndim,
                 allowed=f"{ndim} dimensions")


def check_index_extents(shape: tuple[int, ...], dim: int, index_shape: tuple[int, ...],
                        name: str = "index", dim_name: str = "dim") -> None:
    """``index.shape[d] <= x.shape[d]`` for every ``d != dim``.  Fields: ``axis`` (the
    dimension that fails), ``value`` (the index's size there) and ``size`` (x's)."""
    for ax, (si, sx) in enumerate(zip(index_shape, shape)):
        if ax != dim and si > sx:
            _invalid(f"{name}.shape[{ax}]={si} exceeds x.shape[{ax}]={sx} (need "
                     f"{name}.shape[d] <= x.shape[d] for every d != {dim_name}={dim})",
                     name=name, axis=ax, value=si, size=sx,
                     allowed=f"{name}.shape[{ax}] <= {sx}")


def check_gather_source(shape: tuple[int, ...], dim: int, index_size: int,
                        name: str = "index", dim_name: str = "dim") -> None:
    """Something to gather from along ``dim`` when the index is not empty."""
    if index_size > 0 and shape[dim] == 0:
        _invalid(f"{name} is non-empty but {dim_name} {dim} of x has size 0 (there is "
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
            _invalid(f"x.shape[{d}]={a} and indices.shape[{d}]={b} cannot be broadcast "
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


# ---- backends (engines) ----------------------------------------------------------------------


def backend_name(value: Any) -> str | None:
    """The ``backend`` argument: a name or None."""
    if value is None or isinstance(value, str):
        return value
    _invalid(f"backend={value!r} is not a backend name (need a str or None)", name="backend",
             value=value, allowed="a str or None")


def check_backend(value: str, *, known: list[str] | None = None,
                  for_type: tuple[str, list[str]] | None = None,
                  missing: tuple[tuple[str, ...], str] | None = None,
                  device_of: str | None = None) -> None:
    """Refuse ``backend=value`` for the first reason given: not a ``known`` name; not one
    that takes arrays of a type (``for_type``: the type's name and the names that do);
    its modules ``missing`` (and the pip extra that installs them); or it cannot take
    this array of type ``device_of`` (its device, say)."""
    fields = dict(name="backend", value=value)
    if known is not None:
        _invalid(f"backend={value!r} is not a backend (known: {', '.join(sorted(known))})",
                 allowed=", ".join(sorted(known)), **fields)
    if for_type is not None:
        type_name, names = for_type
        _invalid(f"backend={value!r} does not take {type_name} inputs "
                 f"(backends for them: {', '.join(names) or 'none'})",
                 allowed=", ".join(names), **fields)
    if missing is not None:
        modules, extra = missing
        hint = f" (pip install 'axisops[{extra}]')" if extra else ""
        _invalid(f"backend={value!r} is not available here: "
                 f"{', '.join(modules)} is not installed{hint}", allowed="an installed backend",
                 **fields)
    _invalid(f"backend={value!r} cannot take this {device_of} (for example its device)",
             allowed="a backend for this array", **fields)


def no_backend(type_name: str, registered: list[str]) -> NoReturn:
    """No installed backend takes arrays of ``type_name``."""
    _invalid(f"no installed backend takes {type_name} inputs "
             f"(registered for them: {', '.join(registered) or 'none'})",
             name="x", value=type_name, allowed=", ".join(registered))


def check_new_backend(engine: Any, is_engine: bool, taken: bool) -> None:
    """``register_backend``: a named engine, under a name not taken (unless replacing)."""
    if not is_engine:
        _invalid(f"backend={engine!r} is not a named axisops Engine instance", name="backend",
                 value=engine, allowed="an axisops.engines.base.Engine instance")
    if taken:
        _invalid(f"a backend named {engine.name!r} exists (pass replace=True to replace it)",
                 name="backend", value=engine.name, allowed="a new name, or replace=True")


# ---- array inputs, by family -----------------------------------------------------------------


def type_name(x: Any) -> str:
    """``module.QualName`` of ``x``'s type, for messages."""
    t = type(x)
    return f"{t.__module__}.{t.__qualname__}"


def refuse_masked(name: str, x: Any) -> NoReturn:
    """Masked arrays are refused: their mask would be ignored (docs/contract.md)."""
    _invalid(f"{name} is a masked array ({type(x).__module__}.{type(x).__name__}), "
             f"which axisops does not take (its mask would be ignored); pass {name}.filled(v) "
             f"to give masked elements the value v, np.ma.getdata({name}) to ignore the mask, "
             f"or {name}.compressed() for the unmasked elements as a 1-D array",
             name=name, value=x, allowed="an unmasked array")


def unreadable(name: str, x: Any, problem: str, need: str | None = None,
               short: bool = False) -> NoReturn:
    """``x`` cannot be read as an array of its family: ``problem`` says why, ``need`` what
    would do (``short`` names the type by its bare name)."""
    kind = type(x).__name__ if short else type_name(x)
    tail = f" ({need})" if need and not need.startswith(";") else (need or "")
    _invalid(f"{name} of type {kind} {problem}{tail}", name=name, value=x,
             allowed=need or "an array")


def refuse_array(name: str, x: Any, problem: str) -> NoReturn:
    """An array of a family axisops reads, in a state it cannot read (``problem``)."""
    _invalid(f"{name} {problem}", name=name, value=x, allowed="a readable array")


def refuse_dtype(name: str, dtype: Any, framework: str) -> NoReturn:
    """A ``framework`` dtype with no NumPy dtype axisops takes (torch's complex32, say)."""
    allowed = ", ".join(GATHER_DTYPES)
    raise with_fields(UnsupportedDTypeError(
        f"{name} has {framework} dtype {dtype}, which axisops does not support "
        f"(supported: {allowed})"), name=name, dtype=dtype, allowed=allowed)


def check_known_chunks(name: str, shape: tuple[Any, ...]) -> tuple[int, ...]:
    """A dask array's shape, every size known."""
    for d, size in enumerate(shape):
        if isinstance(size, float) and np.isnan(size):
            _invalid(f"{name} has unknown chunk sizes along axis {d} (shape {shape}); call "
                     f"{name}.compute_chunk_sizes() first", name=name, value=shape,
                     allowed="known chunk sizes")
    return tuple(int(s) for s in shape)


def check_one_chunk(name: str, chunks: tuple[int, ...], axis: int, what: str) -> None:
    """A dask array in one chunk along ``axis``, for ``what`` (sort, partition...), which
    cannot be done chunk by chunk; the message says how to rechunk."""
    if len(chunks) > 1:
        shown = chunks if len(chunks) <= 6 else (*chunks[:3], "...", *chunks[-2:])
        _invalid(f"{name} has {len(chunks)} chunks along axis {axis} {shown}, and {what} "
                 f"along a chunked axis would need every chunk at once; call "
                 f"{name}.rechunk({{{axis}: -1}}) first (kthvalue and median need no rechunk)",
                 name=name, value=chunks, axis=axis,
                 allowed=f"one chunk along axis {axis} ({name}.rechunk({{{axis}: -1}}))")


def as_fan_in(value: Any, axis: int, source: str = "split_every") -> int:
    """A tree reduction's fan-in: an integer >= 2 (``source`` names where it came from)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < 2:
        _invalid(f"{source}={value!r} is not allowed (need an integer >= 2, "
                 f"or a dict mapping axis {axis} to one)", name="split_every", value=value,
                 allowed="an integer >= 2")
    return int(value)


# ---- threads ---------------------------------------------------------------------------------


def _shown(n: int) -> str:
    """``n`` for a message: in full unless it is huge (str() refuses > 4300 digits)."""
    if abs(n) < 10**18:
        return str(n)
    return f"{'-' if n < 0 else ''}<an integer of {n.bit_length()} bits>"


def check_threads(name: str, n: int, top: int, why: str) -> int:
    """A thread count in ``[1, top]``; ``why`` says where ``top`` comes from."""
    if not 1 <= n <= top:
        _invalid(f"{name}={_shown(n)} is out of range (need 1 <= {name} <= {top}, {why})",
                 name=name, value=n, low=1, high=top, allowed=f"1 <= {name} <= {top}")
    return n


# ---- files and jobs (topk_file, gather_file, the command line) -------------------------------


def as_path(name: str, value: Any, optional: bool = False) -> str | None:
    """A path argument as a str (None allowed when ``optional``)."""
    if value is None and optional:
        return None
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        if isinstance(path, str):
            return path
    _invalid(f"{name}={value!r} ({type(value).__name__}) is not a path "
             f"(need a str or os.PathLike{' or None' if optional else ''})",
             name=name, value=value, allowed="a path")


def as_key(name: str, value: Any) -> str | None:
    """The name of an array in an archive or group (or None)."""
    if value is None or isinstance(value, str):
        return value
    _invalid(f"{name}={value!r} is not an array name (need a str or None)", name=name,
             value=value, allowed="a str or None")


def no_index_key(value: str | None) -> None:
    """``index_key`` names an array in an index *file*: refused beside an index array."""
    if value is not None:
        _invalid(f"index_key={value!r} names an array in an index file, but index is an array "
                 f"(pass a path, or no index_key)", name="index_key", value=value,
                 allowed="None when index is an array")


def as_progress(value: Any) -> bool | None:
    """``progress``: True, False or None."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return None if value is None else bool(value)
    _invalid(f"progress={value!r} is not allowed (need True, False or None)", name="progress",
             value=value, allowed="True, False or None")


def check_scheduler(value: Any, is_client: bool) -> None:
    """``scheduler``: an address, a ``distributed.Client`` (``is_client``) or None."""
    if not (value is None or isinstance(value, str) or is_client):
        _invalid(f"scheduler={value!r} is not a scheduler (need an address such as "
                 f"'tcp://host:8786', a distributed.Client, or None)", name="scheduler",
                 value=value, allowed="an address, a distributed.Client or None")


def as_chunk_bytes(value: Any) -> int:
    """``chunk_bytes`` (``--chunk-bytes``): an integer >= 1."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < 1:
        _invalid(Arg("chunk_bytes", value, "assign"), " is not allowed (need an integer >= 1)",
                 name="chunk_bytes", value=value, allowed="an integer >= 1")
    return int(value)


# ---- axisops.torch: torch's signatures and out= rules ----------------------------------------


def need_type(name: str, value: Any, ok: bool, kind: str, why: str = "") -> None:
    """``value`` is a ``kind`` (``ok``: the caller's test, which needs no import here);
    ``why`` adds a reason in parentheses."""
    if not ok:
        tail = f" ({why})" if why else ""
        _invalid(f"{name} is a {type(value).__name__}, not a {kind}{tail}", name=name,
                 value=value, allowed=f"a {kind}")


def check_out_pair(value: Any, ok: bool) -> None:
    """``out=`` of ``torch.topk``: a pair of tensors (``ok``: the caller's test)."""
    if not ok:
        _invalid(f"out is a {type(value).__name__}, need a tuple of two tensors (values, "
                 f"indices)", name="out", value=value, allowed="a tuple of two tensors")


def check_out_tensor(name: str, dtype: Any, need_dtype: Any, device: Any, need_device: Any,
                     function: str) -> None:
    """An ``out=`` tensor of the result's dtype (never cast, as torch's ``function`` does)
    on the input's device."""
    if dtype != need_dtype:
        raise with_fields(UnsupportedDTypeError(
            f"{name} has dtype {dtype}, need {need_dtype} (out= tensors are written as they "
            f"are, never cast, as torch.{function} does)"),
            name=name, dtype=dtype, allowed=str(need_dtype))
    if device != need_device:
        _invalid(f"{name} is on {device}, need input's device {need_device}", name=name,
                 value=device, allowed=str(need_device))


def refuse_shared_out(name: str, shape: tuple[int, ...], result_shape: tuple[int, ...],
                      other: str, shares: bool) -> None:
    """An ``out=`` tensor of ``shape`` that shares memory with ``other``, an input or another
    ``out=`` tensor, as it is or once resized to ``result_shape`` (``shares``: the caller's
    test): out= is written, and an input never is."""
    if shares:
        resized = f", resized to {result_shape}" if shape != result_shape else ""
        _invalid(f"{name} (shape {shape}{resized}) shares memory with {other} (need out= "
                 f"tensors that share no memory with an input or with each other: out= is "
                 f"written, an input never is)", name=name, value=shape,
                 allowed=f"memory not shared with {other}")


def refuse_out_with_grad(records: bool, function: str) -> None:
    """``out=`` records no autograd history: refused while an argument requires grad."""
    if records:
        _invalid(f"out= cannot record autograd history, but an argument requires grad (as "
                 f"torch.{function} refuses; call it without out=, or under torch.no_grad())",
                 name="out", value=None, allowed="no out= with autograd")


# ---- StreamingTopK ---------------------------------------------------------------------------


def check_next_block(meta: ArrayMeta, spec: TopKSpec) -> None:
    """A block of a stream: the first block's rank and dtype, its size off the axis."""
    if meta.ndim != len(spec.shape):
        _invalid(f"block has {meta.ndim} dimensions, the first block had {len(spec.shape)} "
                 f"(every block has the same rank)", name="block", value=meta.shape,
                 allowed=f"{len(spec.shape)} dimensions")
    if native(meta.dtype) != spec.dtype:
        _invalid(f"block has dtype {meta.dtype}, the first block had {spec.dtype} "
                 f"(every block has one dtype; convert it first if you mean to)",
                 name="block", value=meta.dtype, allowed=str(spec.dtype))
    axis = spec.axis
    off = meta.shape[:axis] + meta.shape[axis + 1 :]
    if off != spec.shape[:axis] + spec.shape[axis + 1 :]:
        _invalid(f"block.shape={meta.shape} differs from the first block's {spec.shape} off "
                 f"axis {axis} (every block has the same size in every dimension but the axis)",
                 name="block", value=meta.shape, allowed=f"{spec.shape} off axis {axis}")


def as_offset(value: Any) -> int:
    """A block's global offset: an integer >= 0."""
    start = as_int("offset", value)
    if start < 0:
        _invalid(f"offset={start} is negative (need >= 0)", name="offset", value=start,
                 allowed=">= 0")
    return start


def check_block_range(start: int, n: int, axis: int, dtype: np.dtype,
                      overlap: tuple[int, int] | None) -> None:
    """``[start, start + n)`` along ``axis`` is indexable (int64, and ``dtype``) and
    overlaps no range given before (``overlap``: the one it meets, if any)."""
    end = start + n
    if end > INT64_END:
        _invalid(f"offset={start} with {n} elements along axis {axis} reaches index {end - 1}, "
                 f"beyond int64 (need offset + block size <= 2**63)", name="offset",
                 value=start, allowed="offset + block size <= 2**63")
    if n:
        check_index_capacity(dtype, end - 1, axis, n, offset=start)
    if overlap is not None:
        s, e = overlap
        _invalid(f"offset={start} with {n} elements along axis {axis} covers [{start}, {end}), "
                 f"which overlaps [{s}, {e}) given before (every element may be given once)",
                 name="offset", value=start, allowed="a range not given before")


def check_stream_result(started: bool, ranges: list[tuple[int, int]], seen: int, k: int,
                        axis: int) -> None:
    """A stream can give its result: a block was given, the blocks cover ``[0, n)`` with
    no gap, and at least ``k`` elements."""
    if not started:
        _invalid("no block has been given (call update() first)", name="block", value=None,
                 allowed="at least one block")
    if ranges and (ranges[0][0] != 0 or len(ranges) > 1):
        gap = (0, ranges[0][0]) if ranges[0][0] else (ranges[0][1], ranges[1][0])
        covered = ", ".join(f"[{s}, {e})" for s, e in ranges[:4])
        more = ", ..." if len(ranges) > 4 else ""
        _invalid(f"elements [{gap[0]}, {gap[1]}) along axis {axis} were never given (the "
                 f"blocks cover {covered}{more}; need every element from 0 on)",
                 name="offset", value=gap, allowed="no gap")
    if seen < k:
        _invalid(f"k={k} but only {seen} elements have been given along axis {axis} "
                 f"(need at least k)", name="k", value=k, size=seen, allowed=f"k <= {seen}")
