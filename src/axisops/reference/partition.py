"""The oracle of partition and argpartition with the deterministic order.

Every element gets its stable rank; with the kths sorted, an element of rank equal to a
kth belongs at that position, and the others between the kths around their rank. Group
``2s`` is the ranks strictly between kth ``s - 1`` and kth ``s``, group ``2s + 1`` kth
``s`` itself; a stable argsort of the group numbers lists the groups in position order and
each group in index order, which is the contract.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .topk import stable_order

__all__ = ["argpartition", "partition"]


def argpartition(x: np.ndarray, kth: int | Sequence[int], axis: int = -1) -> np.ndarray:
    """int64 indices that partition ``x`` along ``axis`` at ``kth`` (NumPy's meaning,
    negative kths counting from the end), each side in index order.

    Examples
    --------
    >>> import numpy as np
    >>> argpartition(np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0]), 3).tolist()
    [1, 3, 6, 0, 2, 4, 5]
    """
    x = np.asarray(x)
    moved = np.moveaxis(x, axis, -1)
    n = moved.shape[-1]
    kths = np.unique([k + n if k < 0 else k for k in np.ravel(kth).tolist()])
    order = stable_order(moved, False)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.broadcast_to(np.arange(n), order.shape), axis=-1)
    group = 2 * np.searchsorted(kths, rank, side="left") + np.isin(rank, kths)
    result = np.argsort(group, axis=-1, kind="stable")
    return np.ascontiguousarray(np.moveaxis(result, -1, axis), dtype=np.int64)


def partition(x: np.ndarray, kth: int | Sequence[int], axis: int = -1) -> np.ndarray:
    """``x`` partitioned along ``axis`` at ``kth``: ``x`` taken at :func:`argpartition`.

    Examples
    --------
    >>> import numpy as np
    >>> partition(np.array([3, 1, 4, 1, 5, 9, 2]), [1, 5]).tolist()
    [1, 1, 3, 4, 2, 5, 9]
    """
    x = np.asarray(x)
    return np.ascontiguousarray(np.take_along_axis(x, argpartition(x, kth, axis), axis))
