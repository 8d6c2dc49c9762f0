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

import numpy as np

from ..config import get_num_threads
from ..dtypes import is_bfloat16, native
from ..kernels.cpu_caches import data_cache_bytes
from ..validation import GatherSpec, TopKSpec, check_index_values, raise_index_error
from .base import Engine

__all__ = ["ENGINE", "PREFETCH_DISTANCE", "STRATEGIES", "CpuEngine", "gather",
           "gather_prefetch_distance", "strategy", "topk", "topk_into"]

#: every strategy :func:`topk` takes (see ``csrc/topk/driver.cpp``).
STRATEGIES = ("insert", "scan", "radix", "columns", "split", "column-split")

#: the core's key kinds (``csrc/common/keys.hpp``).
_UNSIGNED, _SIGNED, _FLOAT, _BFLOAT, _BOOL = range(5)
_KIND_OF = {"u": _UNSIGNED, "i": _SIGNED, "f": _FLOAT, "b": _BOOL}
_RAW = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
        8: np.dtype(np.uint64), 16: np.dtype(np.complex128)}

#: reads a gather prefetches ahead when ``x`` is larger than half a core's L2 (measured
#: on Zen 4: 96-256 equally fast, 64 up to 15% slower, 384-512 up to 35% slower).
PREFETCH_DISTANCE = 256


def _kernels():
    from .. import _core

    return _core.kernels


def _kind(dtype: np.dtype) -> int:
    return _BFLOAT if is_bfloat16(dtype) else _KIND_OF[dtype.kind]


def _addressable(x: np.ndarray) -> np.ndarray:
    """``x``, or a copy the core can read in whole elements of the native byte order."""
    if not x.dtype.isnative:
        x = x.astype(native(x.dtype))
    if not x.flags.aligned or any(s % x.itemsize for s in x.strides):
        x = np.ascontiguousarray(x)
    return x


def _raw(x: np.ndarray) -> np.ndarray:
    return x.view(_RAW[x.itemsize])


def topk(x: np.ndarray, spec: TopKSpec, *, strategy: str | None = None,
         segment: int | None = None,
         out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Top-k of ``x`` for a validated ``spec`` (``strategy`` and ``segment`` for tests).

    ``out``: ``(values, indices)`` for the kernel to write into, C-contiguous, of the
    out shape, ``values`` of the out dtype and ``indices`` int64 (returned as given).
    """
    if out is None:
        values = np.empty(spec.out_shape, spec.out_dtype)
        indices = np.empty(spec.out_shape, np.int64)
    else:
        values, indices = out
    if spec.k > 0 and values.size > 0:
        x = _addressable(x)
        _kernels().topk(_raw(x), _kind(spec.out_dtype), spec.axis, spec.k, spec.largest,
                        spec.sorted, _raw(values), indices, get_num_threads(), strategy or "",
                        segment or 0)
    if out is None and spec.index_dtype != np.int64:
        indices = indices.astype(spec.index_dtype)
    return values, indices


def topk_into(x: np.ndarray, spec: TopKSpec, values: np.ndarray, indices: np.ndarray) -> None:
    """:func:`topk` into ``values`` and ``indices``: in place where the kernel can write
    them (C-contiguous; values of the out dtype, indices int64), else through a copy."""
    direct_values = values.flags.c_contiguous and values.dtype == spec.out_dtype
    direct_indices = indices.flags.c_contiguous and indices.dtype == np.int64
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
        return topk(x, spec)

    def gather(self, x: np.ndarray, index: np.ndarray, spec: GatherSpec) -> np.ndarray:
        return gather(x, index, spec)

    def topk_into(self, x: np.ndarray, spec: TopKSpec, values: np.ndarray,
                  indices: np.ndarray) -> None:
        topk_into(x, spec, values, indices)


ENGINE = CpuEngine()
