"""Sequences of any NumPy layout as (flat view, offsets, stride) without copying.

A kernel reads element ``p`` of sequence ``q`` as ``flat[offs[q] + p * stride]``,
where ``flat`` is a 1-D unsigned-integer view spanning the array's memory from
its lowest address.  C, Fortran, transposed, negative-stride, zero-stride
(broadcast) and memory-mapped arrays all fit; only arrays whose strides are
not whole elements or whose data is misaligned (rare, e.g. a field of a
packed structured array) are copied first, as are non-native byte orders.
"""

from __future__ import annotations

from functools import lru_cache
from math import prod
from typing import NamedTuple

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..dtypes import native

__all__ = ["Sequences", "raw_dtype", "sequences"]


class Sequences(NamedTuple):
    """Where the sequences along one axis of an array live."""

    flat: np.ndarray  # 1-D unsigned view of the array's memory
    offs: np.ndarray  # int64 offset (in elements) of each sequence's first element
    stride: int  # elements between neighbours within a sequence
    n: int  # sequence length
    outer: int  # product of the dimensions before the axis
    inner: int  # product of the dimensions after the axis
    inner_unit: bool  # the dimensions after the axis are one unit-stride run


def _readable(x: np.ndarray) -> np.ndarray:
    flags = x.flags
    if flags.c_contiguous and flags.aligned and x.dtype.isnative:
        return x
    if not x.dtype.isnative:
        x = x.astype(native(x.dtype))
    item = x.itemsize
    if not x.flags.aligned or any(s % item for s in x.strides):
        x = np.ascontiguousarray(x)
    return x


def _inner_is_unit_run(shape: tuple[int, ...], estr: tuple[int, ...]) -> bool:
    expect = 1
    for size, st in zip(reversed(shape), reversed(estr)):
        if size != 1 and st != expect:
            return False
        expect *= size
    return True


_RAW = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
        8: np.dtype(np.uint64), 16: np.dtype(np.complex128)}


#: sequence counts up to which the offsets of C-ordered rows are kept between calls
#: (at most 512 KiB each): building them costs a few microseconds, a noticeable part of a
#: call on many short rows (MoE routing's (8192, 64) takes about 0.2 ms in all).
SHARED_OFFSETS_MAX = 1 << 16


@lru_cache(maxsize=16)
def _shared_steps(count: int, step: int) -> np.ndarray:
    return np.arange(count, dtype=np.int64) * step


def _steps(count: int, step: int) -> np.ndarray:
    """``arange(count) * step`` as int64; shared between calls for the smaller counts,
    since kernels only read offsets."""
    if count <= SHARED_OFFSETS_MAX:
        return _shared_steps(count, step)
    return np.arange(count, dtype=np.int64) * step


def raw_dtype(dtype: np.dtype) -> np.dtype:
    """The type whose values carry ``dtype``'s bits unchanged (complex128 stays itself)."""
    return _RAW[dtype.itemsize]


def sequences(x: np.ndarray, axis: int, *, raw: bool = True) -> Sequences:
    """The sequences of ``x`` (non-empty) along ``axis``.

    ``raw=True`` views the elements as their bits (:func:`raw_dtype`);
    ``raw=False`` keeps the dtype (used for gather indices).
    """
    x = _readable(x)
    item = x.itemsize
    u = x.view(raw_dtype(x.dtype)) if raw else x
    estr = tuple(s // item for s in x.strides)
    outer = prod(x.shape[:axis])
    inner = prod(x.shape[axis + 1 :])
    unit = _inner_is_unit_run(x.shape[axis + 1 :], estr[axis + 1 :])
    if x.flags.c_contiguous:  # the common case, without the general arithmetic below
        flat = u.reshape(-1)
        flat.flags.writeable = False  # kernels see one (read-only) array type
        n = x.shape[axis]
        if inner == 1:
            offs = _steps(outer, n)
        else:
            offs = (np.arange(outer, dtype=np.int64)[:, None] * (n * inner)
                    + np.arange(inner, dtype=np.int64)[None, :]).reshape(-1)
        return Sequences(flat, offs, estr[axis], n, outer, inner, unit)
    low = tuple(slice(-1, None) if s < 0 else slice(0, 1) for s in estr)
    span = 1 + sum(abs(s) * (d - 1) for s, d in zip(estr, x.shape))
    flat = as_strided(u[low], shape=(span,), strides=(item,), writeable=False)
    minoff = sum(s * (d - 1) for s, d in zip(estr, x.shape) if s < 0)
    offs = np.full((), -minoff, dtype=np.int64)
    dims = [d for i, d in enumerate(x.shape) if i != axis]
    steps = [s for i, s in enumerate(estr) if i != axis]
    for i, (d, s) in enumerate(zip(dims, steps)):
        shape = [1] * len(dims)
        shape[i] = d
        offs = offs + (np.arange(d, dtype=np.int64) * s).reshape(shape)
    offs = np.ascontiguousarray(offs, dtype=np.int64).reshape(-1)
    return Sequences(flat, offs, estr[axis], x.shape[axis], outer, inner, unit)
