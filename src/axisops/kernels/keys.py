"""Order keys of NumPy arrays: unsigned integers whose order is the contract's.

Shared by the Dask graphs' radix select (:mod:`axisops.dask.select`) and the quantile
family's host code (:mod:`axisops.kernels.quantile`), which finds the index of an
order statistic from its value.

The time types (``datetime64``, ``timedelta64``, every unit) are int64 whose smallest
value, ``INT64_MIN``, is NaT, which the contract orders above every time (as NaN above
+inf).  :func:`time_keys` gives a kernel that orders signed int64 (the compiled core)
``x - 1`` in wrapping 64-bit arithmetic: NaT becomes ``INT64_MAX`` and every other value
keeps its order, so the core's order of the keys is the contract's order of the times;
:func:`from_time_keys` adds the 1 back to the values it selected, bit for bit.
"""

from __future__ import annotations

import numpy as np

from ..dtypes import native

__all__ = ["from_time_keys", "order_keys", "time_keys"]

#: the bits of +inf for each floating type (by item size; bfloat16 is told apart by name).
_INF_BITS = {2: 0x7C00, 4: 0x7F800000, 8: 0x7FF0000000000000}
_BF16_INF_BITS = 0x7F80


def order_keys(block: np.ndarray) -> np.ndarray:
    """Unsigned integers of ``block``'s item size whose order is the contract's ascending
    order: equal keys for equal elements (every NaN alike, -0.0 and +0.0 alike).

    >>> order_keys(np.array([-1.0, np.nan, -0.0, 0.0, np.inf], np.float32)).argsort(
    ...     kind="stable").tolist()
    [0, 2, 3, 4, 1]
    >>> order_keys(np.array(["NaT", "2000", "1970"], "M8[s]")).argsort(kind="stable").tolist()
    [2, 1, 0]
    """
    dtype = native(block.dtype)
    block = block.astype(dtype, copy=False)
    width = dtype.itemsize
    raw = block.view(np.dtype(f"u{width}"))
    if dtype.kind == "b":
        return (raw != 0).astype(np.uint8)
    if dtype.kind == "u":
        return raw
    sign = np.array(1 << (8 * width - 1), raw.dtype)
    if dtype.kind in "mM":  # NaT (INT64_MIN) above every time: time_keys' order
        return (raw - np.uint64(1)) ^ sign
    if dtype.kind == "i":
        return raw ^ sign
    inf = np.array(_BF16_INF_BITS if dtype.name == "bfloat16" else _INF_BITS[width], raw.dtype)
    magnitude = raw & ~sign
    keys = np.where(raw & sign, ~raw, raw | sign)
    keys[magnitude == 0] = sign  # -0.0 is +0.0
    keys[magnitude > inf] = ~np.array(0, raw.dtype)  # every NaN, above +inf
    return keys


def time_keys(x: np.ndarray) -> np.ndarray:
    """int64 keys of a ``datetime64`` or ``timedelta64`` array (any unit, byte order and
    layout) whose signed order is the contract's: ``x - 1`` in wrapping 64-bit arithmetic,
    NaT (``INT64_MIN``) becoming ``INT64_MAX``, the greatest; equal times give equal keys.
    A new array of ``x``'s shape.

    >>> time_keys(np.array(["NaT", "1970-01-01T00:00:01"], "M8[s]")).tolist()
    [9223372036854775807, 0]
    """
    raw = x.astype(native(x.dtype), copy=False).view(np.uint64)
    return (raw - np.uint64(1)).view(np.int64)


def from_time_keys(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The times of ``dtype`` (native) whose :func:`time_keys` are ``values`` (int64 keys an
    engine selected): ``values + 1`` in wrapping arithmetic, in place, viewed as ``dtype``.

    >>> x = np.array(["NaT", "2000-01-01"], "M8[D]")
    >>> from_time_keys(time_keys(x), x.dtype)
    array([      'NaT', '2000-01-01'], dtype='datetime64[D]')
    """
    raw = values.view(np.uint64)
    raw += np.uint64(1)
    return raw.view(dtype)
