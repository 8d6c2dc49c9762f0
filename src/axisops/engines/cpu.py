"""The ``"cpu"`` engine: the compiled C++ core (:mod:`axisops._core`), default for NumPy arrays.

It reads every layout in place, maps elements to order keys of their own width,
picks a strategy per request (see ``csrc/topk/driver.cpp``) and splits the work
over the core's threads.  Results are bit-identical to the ``"numpy"`` oracle
for every thread count and instruction-set level.

The core reads every layout in place (any strides, negative and zero included), so
only arrays it cannot address in whole elements are copied first: non-native byte
order, misaligned data, strides that are not multiples of the item size.  Elements
travel as their raw bits (unsigned integers of their width; complex128 as itself),
with a key *kind* saying how those bits order, so every dtype is exact.

The strategy for top-k depends on (n, k, layout, threads) only, never on the data,
and every strategy returns the same bits; tests force each one with ``strategy=``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._forksafe import imported
from ..config import get_num_threads
from ..dtypes import is_bfloat16, is_time_dtype, native
from ..kernels.cpu_caches import data_cache_bytes
from ..requests import GatherSpec, KthSpec, PartitionSpec, QuantileSpec, SortSpec, TopKSpec
from ..rules.operations import check_index_values, raise_index_error
from .base import Engine

__all__ = ["ENGINE", "PREFETCH_DISTANCE", "CpuEngine", "describe", "gather",
           "gather_prefetch_distance", "kth_many", "kthvalue", "partition", "select_strategy",
           "sort",
           "sort_strategy", "strategy", "topk", "topk_into", "unpartitioned"]

#: The index types the top-k kernels write themselves.
_WRITTEN_INDICES = (np.dtype(np.int64), np.dtype(np.int32))

#: The core's names for what NumPy's dtype kinds hold (its codes: ``_core.kernels.KINDS``).
_KIND_OF = {"u": "unsigned", "i": "signed", "f": "float", "b": "bool"}
_RAW = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
        8: np.dtype(np.uint64), 16: np.dtype(np.complex128)}

#: reads a gather prefetches ahead when ``x`` is larger than half a core's L2 (measured
#: on Zen 4: 96-256 equally fast, 64 up to 15% slower, 384-512 up to 35% slower).
PREFETCH_DISTANCE = 256


_core_kernels: Any = None  # the compiled module, once imported (every call needs it)
_kind_codes: dict[np.dtype, int] = {}


def _kernels() -> Any:
    global _core_kernels
    if _core_kernels is None:
        imported("axisops", "axisops._core")
        from .. import _core

        _core_kernels = _core.kernels
    return _core_kernels


def __getattr__(name: str) -> tuple[str, ...]:
    """``STRATEGIES``: every strategy :func:`topk` takes (``csrc/topk/request.hpp``);
    ``SELECT_STRATEGIES``: those of :func:`sort`, :func:`kthvalue` and :func:`partition`
    (each sequence whole, or one sequence by parts across the threads; :func:`kthvalue`
    also takes ``"radix"``, its exact fallback). Read from the core, never copied."""
    if name == "STRATEGIES":
        return tuple(_kernels().TOPK_STRATEGIES)
    if name == "SELECT_STRATEGIES":
        return tuple(_kernels().SELECT_STRATEGIES)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _kind(dtype: np.dtype) -> int:
    code = _kind_codes.get(dtype)
    if code is None:
        code = _kernels().KINDS["bfloat" if is_bfloat16(dtype) else _KIND_OF[dtype.kind]]
        _kind_codes[dtype] = code
    return code


def _addressable(x: np.ndarray) -> np.ndarray:
    """``x``, or a copy the core can read in whole elements of the native byte order."""
    if not x.dtype.isnative:
        x = x.astype(native(x.dtype))
    flags = x.flags
    if not flags.aligned or (not flags.c_contiguous and any(s % x.itemsize for s in x.strides)):
        x = np.ascontiguousarray(x)
    return x


def _raw(x: np.ndarray) -> np.ndarray:
    return x.view(_RAW[x.itemsize])


def topk(x: np.ndarray, spec: TopKSpec, *, strategy: str | None = None,
         segment: int | None = None,
         out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Top-k of ``x`` for a validated ``spec`` (``strategy`` and ``segment`` for tests).

    ``out``: ``(values, indices)`` for the kernel to write into, C-contiguous, of the
    out shape, ``values`` of the out dtype and ``indices`` int64 or int32 (returned as
    given). The kernel writes int64 and int32 indices itself; other index types are
    converted afterwards.
    """
    if out is None:
        values = np.empty(spec.out_shape, spec.out_dtype)
        written = spec.index_dtype if spec.index_dtype in _WRITTEN_INDICES else np.int64
        indices = np.empty(spec.out_shape, written)
    else:
        values, indices = out
    if spec.k > 0 and values.size > 0:
        x = _addressable(x)
        _kernels().topk(_raw(x), _kind(spec.out_dtype), spec.axis, spec.k, spec.largest,
                        spec.sorted, _raw(values), indices, get_num_threads(), strategy or "",
                        segment or 0)
    if out is None and indices.dtype != spec.index_dtype:
        indices = indices.astype(spec.index_dtype)
    return values, indices


def topk_into(x: np.ndarray, spec: TopKSpec, values: np.ndarray, indices: np.ndarray) -> None:
    """:func:`topk` into ``values`` and ``indices``: in place where the kernel can write
    them (C-contiguous; values of the out dtype, indices int64), else through a copy."""
    direct_values = values.flags.c_contiguous and values.dtype == spec.out_dtype
    direct_indices = indices.flags.c_contiguous and indices.dtype in _WRITTEN_INDICES
    v = values if direct_values else np.empty(spec.out_shape, spec.out_dtype)
    i = indices if direct_indices else np.empty(spec.out_shape, np.int64)
    topk(x, spec, out=(v, i))
    if not direct_values:
        values[...] = v
    if not direct_indices:
        indices[...] = i


def strategy(x: np.ndarray, spec: TopKSpec) -> str:
    """The strategy :func:`topk` runs for ``spec`` on ``x``'s layout."""
    return _kernels().topk_strategy(_raw(_addressable(x)), spec.axis, spec.k,
                                    get_num_threads())


def _raw_or_none(a: np.ndarray | None) -> np.ndarray | None:
    return None if a is None else _raw(a)


def sort(x: np.ndarray, axis: int, descending: bool = False, want_values: bool = True,
         want_indices: bool = True, *, strategy: str | None = None,
         segment: int | None = None) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Stable sort of ``x`` along ``axis`` (an array of one dimension or more): the
    values, the int64 indices, or both (``None`` for the one not wanted).

    Ascending, or largest first when ``descending``; equal keys keep index order in both
    directions (NaN above +inf, -0.0 equal to +0.0, values' bits kept). ``strategy``
    (one of :data:`SELECT_STRATEGIES`) and ``segment`` (elements per part of a split
    sequence) are for tests.
    """
    return _sort(x, axis % np.ndim(x), descending, want_values, want_indices, strategy, segment)


def _sort(x: np.ndarray, axis: int, descending: bool, want_values: bool, want_indices: bool,
          strategy: str | None = None, segment: int | None = None
          ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """:func:`sort` with ``axis`` in ``[0, ndim)``."""
    x = _addressable(x)
    values = np.empty(x.shape, x.dtype) if want_values else None
    indices = np.empty(x.shape, np.int64) if want_indices else None
    if x.size > 0 and (want_values or want_indices):
        _kernels().sort(_raw(x), _kind(x.dtype), axis, descending, _raw_or_none(values),
                        indices, get_num_threads(), strategy or "", segment or 0)
    return values, indices


def sort_strategy(x: np.ndarray, axis: int) -> str:
    """The strategy :func:`sort` runs on ``x``'s layout."""
    x = _addressable(x)
    return _kernels().sort_strategy(_raw(x), axis % x.ndim, get_num_threads())


def kthvalue(x: np.ndarray, axis: int, k: int, *, strategy: str | None = None,
             segment: int | None = None, sigmas: float = 0.0
             ) -> tuple[np.ndarray, np.ndarray]:
    """The ``k``-th smallest element (1-based, ``1 <= k <= n``) of every sequence of ``x``
    along ``axis`` by the stable order, and its int64 index: arrays of ``x``'s shape
    without the axis. ``kthvalue(x, axis, (n - 1) // 2 + 1)`` is the lower median.

    ``strategy`` (:data:`SELECT_STRATEGIES` or ``"radix"``), ``segment`` and ``sigmas``
    (the sampled band's half-width) are for tests.
    """
    return _kthvalue(x, axis % np.ndim(x), k, strategy, segment, sigmas)


def _kthvalue(x: np.ndarray, axis: int, k: int, strategy: str | None = None,
              segment: int | None = None, sigmas: float = 0.0
              ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`kthvalue` with ``axis`` in ``[0, ndim)``."""
    x = _addressable(x)
    shape = x.shape[:axis] + x.shape[axis + 1:]
    values = np.empty(shape, x.dtype)
    indices = np.empty(shape, np.int64)
    if values.size > 0:
        _kernels().kthvalue(_raw(x), _kind(x.dtype), axis, k, _raw(values), indices,
                            get_num_threads(), strategy or "", segment or 0, sigmas)
    return values, indices


def kth_many(x: np.ndarray, axis: int, ranks: np.ndarray, *, strategy: str | None = None,
             segment: int | None = None) -> np.ndarray:
    """Several order statistics of every sequence of ``x`` along ``axis`` (in ``[0, ndim)``):
    the elements of stable ranks ``ranks`` (0-based), one selection each, with their own
    bits. ``ranks``: int64 of shape ``(t,)`` for every sequence, or ``(sequences, t)``
    (the sequences in C order of ``x`` without the axis), each in ``[0, n)``. Returns an
    array of ``x``'s shape without the axis, then ``t``.

    >>> import numpy as np
    >>> kth_many(np.array([[5, 1, 4, 1]]), 1, np.array([0, 3])).tolist()
    [[1, 5]]
    """
    x = _addressable(x)
    ranks = np.ascontiguousarray(ranks, np.int64)
    ranks = ranks.reshape(1, -1) if ranks.ndim == 1 else ranks
    values = np.empty(x.shape[:axis] + x.shape[axis + 1:] + ranks.shape[1:], x.dtype)
    if values.size > 0:
        _kernels().kth_many(_raw(x), _kind(x.dtype), axis, ranks, _raw(values).reshape(
            values.shape), get_num_threads(), strategy or "", segment or 0)
    return values


def partition(x: np.ndarray, axis: int, kths: int | Sequence[int], want_values: bool = True,
              want_indices: bool = True, *, strategy: str | None = None,
              segment: int | None = None, sigmas: float = 0.0
              ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """NumPy's partition and argpartition of ``x`` along ``axis`` with a deterministic order.

    ``kths``: one position or several, each in ``[-n, n)`` (negative ones count from the
    end). Position ``kth`` receives the element of stable rank ``kth``; the elements
    before it are those of lower rank, after it those of higher rank, each group (and
    each group between two kths) in the original index order.
    """
    axis %= np.ndim(x)
    n = np.shape(x)[axis]
    wanted = [int(kths)] if np.ndim(kths) == 0 else [int(k) for k in np.ravel(kths)]
    positions = sorted({k + n if k < 0 else k for k in wanted})
    return _partition(x, axis, positions, want_values, want_indices, strategy, segment, sigmas)


def _partition(x: np.ndarray, axis: int, positions: Sequence[int], want_values: bool,
               want_indices: bool, strategy: str | None = None, segment: int | None = None,
               sigmas: float = 0.0) -> tuple[np.ndarray | None, np.ndarray | None]:
    """:func:`partition` with ``axis`` in ``[0, ndim)`` and ``positions`` non-negative,
    ascending and unique (as a spec holds them)."""
    x = _addressable(x)
    values = np.empty(x.shape, x.dtype) if want_values else None
    indices = np.empty(x.shape, np.int64) if want_indices else None
    if x.size > 0 and (want_values or want_indices):
        _kernels().partition(_raw(x), _kind(x.dtype), axis, positions, _raw_or_none(values),
                             indices, get_num_threads(), strategy or "", segment or 0, sigmas)
    return values, indices


def select_strategy(x: np.ndarray, axis: int) -> str:
    """The strategy :func:`kthvalue` and :func:`partition` run on ``x``'s layout."""
    x = _addressable(x)
    return _kernels().select_strategy(_raw(x), axis % x.ndim, get_num_threads())


def describe() -> dict[str, object]:
    """The compiled core in use: its instruction-set level, the levels this machine could
    use, the compiler and build type, and the pool's worker threads started so far."""
    imported("axisops", "axisops._core")
    from .. import _core

    k = _core.kernels
    return {"isa": k.level(), "isa_available": _core.available_levels(),
            "compiler": k.COMPILER, "build": k.BUILD, "pool_workers": k.pool_workers()}


def gather_prefetch_distance(x_bytes: int) -> int:
    """How many reads ahead gather prefetches from an ``x`` spanning ``x_bytes``: none when
    ``x`` fits in half of one core's L2 (the other half holds the index and output
    streams), where the hints cost more than they save; else :data:`PREFETCH_DISTANCE`."""
    return PREFETCH_DISTANCE if 2 * x_bytes > data_cache_bytes(2) else 0


def gather(x: np.ndarray, index: np.ndarray, spec: GatherSpec, *,
           task: int | None = None) -> np.ndarray:
    """Gather for a validated spec: each index value is checked as it is used.

    No separate bounds pass: the kernel checks every value it turns into a position, so
    no other thread rewriting ``index`` meanwhile can make it read outside ``x``.  When
    a value is out of range nothing is returned: the error names the first offender in
    C order, or, when the index no longer holds one (it was changed during the call),
    where the kernel met one.  ``task`` (output elements per task) is for tests.
    """
    out = np.empty(spec.out_shape, spec.out_dtype)
    if out.size == 0:
        return out
    x, index = _addressable(x), _addressable(index)
    ahead = gather_prefetch_distance(_span_bytes(x, index.shape, spec.dim))
    stop = _kernels().gather(_raw(x), index, spec.dim, _raw(out), get_num_threads(), ahead,
                             task or 0)
    if stop >= 0:
        _raise_index_error(index, spec, stop)
    return out


def _span_bytes(x: np.ndarray, shape: tuple[int, ...], dim: int) -> int:
    """The bytes of memory the gather can read: ``x`` restricted to the index's ``shape``
    (every dimension but ``dim``), from its lowest to its highest element."""
    extent = [n if d == dim else s for d, (n, s) in enumerate(zip(x.shape, shape))]
    span = 1 + sum(abs(st) * (e - 1) for st, e in zip(x.strides, extent)) // x.itemsize
    return span * x.itemsize


def _raise_index_error(index: np.ndarray, spec: GatherSpec, stop: int) -> None:
    """The contract's error for an index the kernel stopped at (flat position ``stop``)."""
    check_index_values(index, spec)  # raises, naming the first offender in C order
    where = tuple(int(p) for p in np.unravel_index(stop, spec.index_shape))
    raise_index_error(spec, where, None)  # none left: it changed during the call


class CpuEngine(Engine):
    name = "cpu"
    array_type = "numpy"
    priority = 20
    requires = ("axisops._core",)
    description = "compiled C++ kernels (threshold scan, radix sort, one-pass gather)"

    def topk(self, x: np.ndarray, spec: TopKSpec) -> tuple[np.ndarray, np.ndarray]:
        if is_time_dtype(spec.dtype):
            return _on_time_keys(self.topk, x, spec)
        return topk(x, spec)

    def gather(self, x: np.ndarray, index: np.ndarray, spec: GatherSpec) -> np.ndarray:
        return gather(x, index, spec)

    def topk_into(self, x: np.ndarray, spec: TopKSpec, values: np.ndarray,
                  indices: np.ndarray) -> None:
        if is_time_dtype(spec.dtype):
            return super().topk_into(x, spec, values, indices)
        topk_into(x, spec, values, indices)

    def sort(self, x: np.ndarray, spec: SortSpec, values: bool = True,
             indices: bool = True) -> tuple[np.ndarray | None, np.ndarray | None]:
        if is_time_dtype(spec.dtype):
            return _on_time_keys(self.sort, x, spec, values, indices)
        return _sort(x, spec.axis, spec.descending, values, indices)

    def kthvalue(self, x: np.ndarray, spec: KthSpec) -> tuple[np.ndarray, np.ndarray]:
        if is_time_dtype(spec.dtype):
            return _on_time_keys(self.kthvalue, x, spec)
        values, indices = _kthvalue(x, spec.axis, spec.k)
        return values.reshape(spec.out_shape), indices.reshape(spec.out_shape)

    def partition(self, x: np.ndarray, spec: PartitionSpec, values: bool = True,
                  indices: bool = True) -> tuple[np.ndarray | None, np.ndarray | None]:
        if is_time_dtype(spec.dtype):
            return _on_time_keys(self.partition, x, spec, values, indices)
        if not spec.kth:
            return unpartitioned(x, spec, values, indices)
        return _partition(x, spec.axis, spec.kth, values, indices)

    def quantile(self, x: np.ndarray, spec: QuantileSpec, parts: bool = False):
        """NumPy's formulas (:mod:`axisops.kernels.quantile`) on the order statistics the core
        selects: :func:`kth_many`, one selection per distinct rank of each sequence (the
        ranks of several q shared), no sort and no partition pass."""
        imported("axisops.kernels.quantile")
        from ..kernels.quantile import quantile

        return quantile(_addressable(x), spec, kth_many, parts)


def _on_time_keys(method, x: np.ndarray, spec, *args):
    """``method`` (one of the engine's) on a ``datetime64`` or ``timedelta64`` ``x``: run on
    its int64 keys (:func:`~axisops.kernels.keys.time_keys`: ``x - 1`` wrapping, NaT the
    greatest), which the core orders as signed integers; the values it selects are mapped
    back to times (``+ 1``), bit for bit; the indices need nothing."""
    imported("axisops.kernels.keys")
    from ..kernels.keys import from_time_keys, time_keys

    keys = time_keys(x)
    values, indices = method(keys, spec.replace(dtype=keys.dtype), *args)
    return (None if values is None else from_time_keys(values, spec.out_dtype)), indices


def unpartitioned(x: np.ndarray, spec: PartitionSpec, values: bool = True,
                  indices: bool = True) -> tuple[np.ndarray | None, np.ndarray | None]:
    """A partition at no position: every element in one group, in index order (``x`` and
    ``arange(n)`` along the axis), as NumPy gives for an empty ``kth``."""
    v = np.array(x, dtype=spec.out_dtype, order="C") if values else None
    where = [1] * len(spec.shape)
    where[spec.axis] = spec.n
    i = (np.broadcast_to(np.arange(spec.n, dtype=np.int64).reshape(where), spec.shape).copy()
         if indices else None)
    return v, i


ENGINE = CpuEngine()
