"""The oracle of kthvalue and median: position k - 1 of the stable ascending sort."""

from __future__ import annotations

import numpy as np

from .sort import sort

__all__ = ["kthvalue", "median"]


def kthvalue(x: np.ndarray, k: int, axis: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """The k-th smallest (1-based) value along ``axis`` and its int64 index (the axis
    removed): ``sort(x)[k - 1]`` and ``argsort(x)[k - 1]``.

    Examples
    --------
    >>> import numpy as np
    >>> value, index = kthvalue(np.array([5, 1, 5, 1]), 3)
    >>> int(value), int(index)
    (5, 0)
    """
    values, indices = sort(x, axis)
    axis %= values.ndim
    # [k - 1] and squeeze: arrays even of 1-D x (a scalar would make a bool's byte 1).
    return (np.take(values, [k - 1], axis=axis).squeeze(axis),
            np.take(indices, [k - 1], axis=axis).squeeze(axis))


def median(x: np.ndarray, axis: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """The lower median along ``axis`` and its index: ``kthvalue(x, (n - 1) // 2 + 1)``.

    Examples
    --------
    >>> import numpy as np
    >>> value, index = median(np.array([4.0, np.nan, 1.0, 2.0]))
    >>> float(value), int(index)
    (2.0, 3)
    """
    x = np.asarray(x)
    n = x.shape[axis]
    return kthvalue(x, (n - 1) // 2 + 1, axis)
