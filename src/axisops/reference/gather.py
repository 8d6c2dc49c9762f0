"""Gather along an axis (``torch.gather`` semantics), stated once in NumPy.

``out[i..., j, ...] = x[i..., index[i..., j, ...], ...]`` along ``dim``, with
negative index values counting from the end.  ``x`` is first cut to the index's
extent off ``dim`` (the index may be smaller there), then ``take_along_axis``
does the rest.  Index values must already be in ``[-n, n-1]``.

>>> import numpy as np
>>> gather(np.array([[1, 2, 3], [4, 5, 6]]), 1, np.array([[-1], [0]]))
array([[3],
       [4]])
"""

from __future__ import annotations

import numpy as np

__all__ = ["gather"]


def gather(x: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    """The gathered array, ``index``'s shape and ``x``'s dtype."""
    extent = tuple(slice(None) if d == dim else slice(0, s) for d, s in enumerate(index.shape))
    wide = index.astype(np.int64)
    wide[wide < 0] += x.shape[dim]
    return np.take_along_axis(x[extent], wide, axis=dim)
