"""Exact merging of partial top-k results: the heart of every chunked top-k.

A *candidate set* is the sorted top-k of one piece of a sequence, with its
indices counted from the start of the whole sequence.  Candidate sets of
consecutive pieces, concatenated in piece order, hold equal values in
increasing index order (a sorted top-k lists ties by index, and each piece's
indices are below the next piece's), so the top-k of the concatenation, ties to
the lower position, is the top-k of the union with the contract's tie rule.
Merging is therefore exact for any cut into pieces and any grouping of merges.

Both the dask graphs (:mod:`axisops.dask.topk`) and the streaming command line
(:mod:`axisops.cli.stream`) merge with these functions.  This module needs
NumPy only and runs :func:`axisops.topk`, so the default backend does the work.
"""

from __future__ import annotations

import numpy as np

from ..ops import topk

__all__ = ["Candidates", "block_candidates", "merge_candidates"]

Candidates = tuple[np.ndarray, np.ndarray]


def block_candidates(
    block: np.ndarray,
    k: int,
    axis: int,
    largest: bool,
    offset: int,
    backend: str | None = None,
) -> Candidates:
    """The sorted top-k of one piece starting at ``offset``, with global int64 indices.

    >>> block_candidates(np.array([5, 7, 5]), 2, 0, True, 10)
    (array([7, 5]), array([11, 10]))
    """
    result = topk(block, min(k, block.shape[axis]), axis, largest=largest, backend=backend)
    indices = result.indices
    indices += offset
    return result.values, indices


def merge_candidates(
    k: int, axis: int, largest: bool, *parts: Candidates, backend: str | None = None
) -> Candidates:
    """The sorted top-k of candidate sets given in piece order.

    >>> a = (np.array([7, 5]), np.array([1, 0]))
    >>> b = (np.array([7, 6]), np.array([3, 2]))
    >>> merge_candidates(3, 0, True, a, b)
    (array([7, 7, 6]), array([1, 3, 2]))
    """
    values = np.concatenate([p[0] for p in parts], axis=axis)
    indices = np.concatenate([p[1] for p in parts], axis=axis)
    best = topk(values, min(k, values.shape[axis]), axis, largest=largest, backend=backend)
    return best.values, np.take_along_axis(indices, best.indices, axis=axis)
