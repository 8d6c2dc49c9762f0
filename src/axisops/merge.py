"""Exact merging of partial top-k results: the one merge of every chunked top-k.

A *candidate set* is the sorted top-k of one piece of a sequence, with int64
indices counted from the start of the whole sequence (global indices).  The
top-k of a union of pieces is the top-k of the union of their candidate sets,
under the contract's order: by value, ties to the lower *global* index.
Merging is therefore exact for any cut into pieces and any grouping of
merges, provided ties are decided by global index, not by position:

- **In piece order** (``ordered=True``): when every global index of a part is
  below every global index of the next part, the concatenation of the parts
  lists equal values in increasing global index, so its positional top-k
  (ties to the lower position) is already the exact merge.  The Dask graphs
  (:mod:`axisops.dask.topk`) and the streaming engine
  (:mod:`axisops.streaming.stream`) merge consecutive pieces this way.
- **In any order** (``ordered=False``): the concatenated candidates are first
  put in global index order (a stable sort of the int64 indices, exact), and
  the same positional top-k then compares by (value, global index).
  :class:`axisops.StreamingTopK` merges blocks given with explicit offsets,
  in any order, this way.

A part need not be sorted: only the order between equal values matters, so a
raw block with its global indices (:func:`raw_candidates`) is a valid part.

Every top-k here runs on the engine the caller gives (its
:meth:`~axisops.engines.base.Engine.topk_block`, a spec derived from the one the
caller validated): nothing is validated or picked again.
"""

from __future__ import annotations

import numpy as np

from .dtypes import native
from .engines.base import Engine
from .requests import TopKSpec

__all__ = ["Candidates", "block_candidates", "merge_candidates", "raw_candidates"]

Candidates = tuple[np.ndarray, np.ndarray]


def block_candidates(block: np.ndarray, spec: TopKSpec, offset: int,
                     engine: Engine) -> Candidates:
    """The sorted top-k of one piece that starts at global index ``offset``.

    >>> from axisops.engines import get
    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import topk_spec
    >>> spec = topk_spec(ArrayMeta((13,), np.dtype(int)), 2, 0, True, True, None)
    >>> block_candidates(np.array([5, 7, 5]), spec, 10, get("numpy"))
    (array([7, 5]), array([11, 10]))
    """
    values, indices = engine.topk_block(block, spec)
    indices += offset
    return values, indices


def raw_candidates(block: np.ndarray, axis: int, offset: int) -> Candidates:
    """A piece as it is (values in native byte order), with its global indices.

    >>> raw_candidates(np.array([[4, 2, 9]]), 1, 5)[1]
    array([[5, 6, 7]])
    """
    shape = [1] * block.ndim
    shape[axis] = block.shape[axis]
    along = np.arange(offset, offset + block.shape[axis], dtype=np.int64).reshape(shape)
    values = block.astype(native(block.dtype), copy=False)
    return values, np.broadcast_to(along, block.shape)


def _in_index_order(values: np.ndarray, indices: np.ndarray, axis: int) -> Candidates:
    order = np.argsort(indices, axis=axis, kind="stable")
    return (np.take_along_axis(values, order, axis=axis),
            np.take_along_axis(indices, order, axis=axis))


def merge_candidates(spec: TopKSpec, *parts: Candidates, engine: Engine,
                     ordered: bool = True) -> Candidates:
    """The sorted top-``spec.k`` of candidate sets (fewer if they hold fewer).

    ``ordered`` says the parts are given in piece order (each part's global
    indices all below the next part's); otherwise they may come in any order,
    and ties are decided by global index all the same.  Global indices must be
    distinct.

    >>> from axisops.engines import get
    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import topk_spec
    >>> spec = topk_spec(ArrayMeta((4,), np.dtype(int)), 3, 0, True, True, None)
    >>> a = (np.array([7, 5]), np.array([1, 0]))
    >>> b = (np.array([7, 6]), np.array([3, 2]))
    >>> merge_candidates(spec, a, b, engine=get("numpy"))
    (array([7, 7, 6]), array([1, 3, 2]))
    >>> merge_candidates(spec, b, a, engine=get("numpy"), ordered=False)
    (array([7, 7, 6]), array([1, 3, 2]))
    """
    axis = spec.axis
    values = np.concatenate([p[0] for p in parts], axis=axis)
    indices = np.concatenate([p[1] for p in parts], axis=axis)
    if not ordered:
        values, indices = _in_index_order(values, indices, axis)
    best_values, best = engine.topk_block(values, spec)
    return best_values, np.take_along_axis(indices, best, axis=axis)
