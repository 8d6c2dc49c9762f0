"""Top-k by a full stable sort: the contract's order, stated once in NumPy.

Ties go to the lower index in both directions: ``largest=False`` is the first
``k`` of ``argsort(kind="stable")``; ``largest=True`` sorts the reversed
sequence stably and reverses the order back, so equal elements still come in
increasing index.  NumPy's sort puts NaN last (above +inf), keeps -0.0 and +0.0
equal, and compares integers exactly; float16 and bfloat16 are compared as
float32 (exact widening); a bool whose byte is any non-zero value is True (NumPy
itself would order the bytes).  Values are taken from ``x`` itself, so their bits
(NaN payloads, the sign of zero, a bool's byte) survive.

>>> import numpy as np
>>> topk(np.array([1.0, np.nan, 3.0, 3.0]), 3, 0, True)
(array([nan,  3.,  3.]), array([1, 2, 3]))
>>> values, indices = topk(np.array([0, 2, 1], np.uint8).view(bool), 2, 0, True)
>>> values.view(np.uint8).tolist(), indices.tolist()
([2, 1], [1, 2])
"""

from __future__ import annotations

import numpy as np

from ..dtypes import is_bfloat16

__all__ = ["stable_order", "topk"]


def _sort_keys(x: np.ndarray) -> np.ndarray:
    if x.dtype == np.float16 or is_bfloat16(x.dtype):
        return x.astype(np.float32)
    if x.dtype == np.bool_:
        return x.view(np.uint8) != 0
    return x


def stable_order(x: np.ndarray, largest: bool) -> np.ndarray:
    """Indices that sort every last-axis sequence of ``x``, ties by lower index."""
    keys = _sort_keys(x)
    if not largest:
        return np.argsort(keys, axis=-1, kind="stable")
    n = x.shape[-1]
    backwards = np.argsort(keys[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return (n - 1) - backwards


def topk(x: np.ndarray, k: int, axis: int, largest: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(values, indices)``: the ``k`` greatest (or least) along ``axis``, in order."""
    moved = np.moveaxis(x, axis, -1)
    order = stable_order(moved, largest)[..., :k]
    values = np.take_along_axis(moved, order, axis=-1)
    return np.moveaxis(values, -1, axis), np.moveaxis(order, -1, axis)
