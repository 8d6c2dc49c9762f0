"""The oracle of sort and argsort: a stable argsort of the contract's order."""

from __future__ import annotations

import numpy as np

from .topk import stable_order

__all__ = ["argsort", "sort"]


def argsort(x: np.ndarray, axis: int = -1, descending: bool = False) -> np.ndarray:
    """int64 indices that sort ``x`` along ``axis``, equal keys by lower index.

    Examples
    --------
    >>> import numpy as np
    >>> argsort(np.array([2.0, np.nan, -0.0, 0.0, 2.0])).tolist()
    [2, 3, 0, 4, 1]
    >>> argsort(np.array([2.0, np.nan, -0.0, 0.0, 2.0]), descending=True).tolist()
    [1, 0, 4, 2, 3]
    """
    x = np.asarray(x)
    order = stable_order(np.moveaxis(x, axis, -1), descending)
    return np.ascontiguousarray(np.moveaxis(order, -1, axis), dtype=np.int64)


def sort(x: np.ndarray, axis: int = -1, descending: bool = False
         ) -> tuple[np.ndarray, np.ndarray]:
    """(values, indices) of the stable sort of ``x`` along ``axis``; values keep their bits.

    Examples
    --------
    >>> import numpy as np
    >>> values, indices = sort(np.array([3, 1, 3, 0], np.int8), descending=True)
    >>> values.tolist(), indices.tolist()
    ([3, 3, 1, 0], [0, 2, 1, 3])
    """
    x = np.asarray(x)
    indices = argsort(x, axis, descending)
    values = np.take_along_axis(x, indices, axis)
    return np.ascontiguousarray(values), indices
