"""Order keys of NumPy arrays: unsigned integers whose order is the contract's.

Shared by the Dask graphs' radix select (:mod:`axisops.dask.select`) and the quantile
family's host code (:mod:`axisops.kernels.quantile`), which finds the index of an
order statistic from its value.
"""

from __future__ import annotations

import numpy as np

from ..dtypes import native

__all__ = ["order_keys"]

#: the bits of +inf for each floating type (by item size; bfloat16 is told apart by name).
_INF_BITS = {2: 0x7C00, 4: 0x7F800000, 8: 0x7FF0000000000000}
_BF16_INF_BITS = 0x7F80


def order_keys(block: np.ndarray) -> np.ndarray:
    """Unsigned integers of ``block``'s item size whose order is the contract's ascending
    order: equal keys for equal elements (every NaN alike, -0.0 and +0.0 alike).

    >>> order_keys(np.array([-1.0, np.nan, -0.0, 0.0, np.inf], np.float32)).argsort(
    ...     kind="stable").tolist()
    [0, 2, 3, 4, 1]
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
    if dtype.kind == "i":
        return raw ^ sign
    inf = np.array(_BF16_INF_BITS if dtype.name == "bfloat16" else _INF_BITS[width], raw.dtype)
    magnitude = raw & ~sign
    keys = np.where(raw & sign, ~raw, raw | sign)
    keys[magnitude == 0] = sign  # -0.0 is +0.0
    keys[magnitude > inf] = ~np.array(0, raw.dtype)  # every NaN, above +inf
    return keys
