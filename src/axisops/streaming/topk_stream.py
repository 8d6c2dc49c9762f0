"""Top-k of a sequence that arrives in blocks: :class:`StreamingTopK`.

The object keeps only the running candidates (the sorted top-k of what it
has seen, with global int64 indices) and merges every new block into them
with :mod:`axisops.merge`, the merge the Dask backend and the file engine
use.  Blocks given in order are merged by position; blocks given with
explicit offsets in another order are merged by (value, global index), so
the result is the same, to the bit, whatever the order.  One object may be
fed from several threads at once: a lock makes each call whole.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from typing import Any

import numpy as np

from ..adapters.numpy import as_ndarray
from ..api import TopK
from ..dtypes import native
from ..errors import boundary
from ..merge import Candidates, block_candidates, merge_candidates, raw_candidates
from ..requests import ArrayMeta, TopKSpec
from ..rules.arguments import as_bool, as_int, check_k
from ..rules.operations import require_rank, topk_spec
from ..rules.streaming import (
    INT64_END,
    as_offset,
    check_block_range,
    check_next_block,
    check_stream_result,
)
from ..rules.types import check_ordered_dtype
from ..rules.types import index_dtype as as_index_dtype
from ..runner import engine_for

__all__ = ["StreamingTopK"]


class StreamingTopK:
    """The top-k of a sequence too large for one array, fed block by block.

    Give the blocks along ``axis`` with :meth:`update`, in order (each block
    continues where the last one ended) or with explicit global offsets in
    any order; :meth:`result` is then ``axisops.topk`` of the concatenation
    of the blocks, equal bit for bit: ties go to the lower global index,
    NaN is above +inf, -0.0 equals +0.0, integers compare exactly.

    Memory stays at the running top-k: ``k`` values and ``k`` int64 indices
    per position off the axis (O(k x other dimensions)), plus one pair of
    integers per gap between the ranges given so far.  Every block goes
    through the same exact merge as the Dask backend and
    :func:`axisops.topk_file`; nothing is validated or dispatched twice.

    Parameters
    ----------
    k : int
        How many elements to keep, ``k >= 0``; :meth:`result` needs at least
        ``k`` elements along the axis.
    axis : int, default -1
        The axis the blocks follow one another along (and the top-k is
        taken along).  Every block has the same size in every other
        dimension.
    largest : bool, default True
        The greatest elements, greatest first (else the least, least first).
    index_dtype : dtype, optional
        Integer dtype of the result's indices (default int64); it must hold
        the largest global index given.
    backend : str, optional
        A NumPy-family backend from :func:`axisops.backends` that runs every
        block and merge (default: the fastest installed).

    Raises
    ------
    InvalidArgumentError
        A negative or non-integer ``k``, a non-integer ``axis``, a
        non-bool ``largest``, an ``index_dtype`` that is not an integer
        type, or a ``backend`` that cannot take NumPy arrays.

    Notes
    -----
    Blocks are NumPy arrays or anything ``numpy.asarray`` reads (a CPU
    tensor, a list); they must all have one dtype (byte order aside): a
    block of another dtype is refused rather than promoted, as
    ``numpy.concatenate`` would.  Each element may be given once:
    overlapping offsets are refused.

    **Threads.**  One object may be fed from several threads at once.  Each
    :meth:`update` and :meth:`result` holds the object's lock from start to
    end, so the calls take effect one after another, whole: the result is
    what one thread gives by making the same calls in the order they took
    effect, and with explicit offsets that is the same result whatever the
    order (so several readers, each passing the offsets of its chunks, get
    the one answer).  Without offsets a block continues where the stream
    stood when its call took effect, so with several threads pass offsets.
    The calls do not run in parallel: the block top-k of one waits for
    another's merge (the kernels themselves use every thread for a large
    block).

    Examples
    --------
    The five nearest neighbours of each query in a database too large for
    one distance matrix: distances of the queries against each database chunk,
    streamed along the database axis, the least ``k`` kept.

    >>> import numpy as np, axisops
    >>> rng = np.random.default_rng(0)
    >>> queries = rng.random((3, 8), np.float32)
    >>> database = rng.random((10_000, 8), np.float32)   # think: read chunk by chunk
    >>> knn = axisops.StreamingTopK(5, axis=1, largest=False)
    >>> for start in range(0, len(database), 4096):
    ...     chunk = database[start:start + 4096]
    ...     d2 = ((queries[:, None, :] - chunk[None, :, :]) ** 2).sum(-1)  # (3, len(chunk))
    ...     knn.update(d2)
    >>> nearest = knn.result()
    >>> nearest.indices.shape                             # rows of the database, per query
    (3, 5)
    >>> d2_all = ((queries[:, None, :] - database[None, :, :]) ** 2).sum(-1)
    >>> np.array_equal(nearest.indices, axisops.topk(d2_all, 5, largest=False).indices)
    True

    Chunks may also arrive in any order, each with its global offset (from
    parallel readers, say); the result does not change:

    >>> s = axisops.StreamingTopK(3)
    >>> s.update(np.array([7, 1, 9]), offset=4)
    >>> s.update(np.array([9, 0, 7, 3]), offset=0)
    >>> s.result()
    TopK(values=array([9, 9, 7]), indices=array([0, 6, 2]))
    """

    @boundary("StreamingTopK")
    def __init__(self, k: int, axis: int = -1, *, largest: bool = True,
                 index_dtype: Any = None, backend: str | None = None) -> None:
        self._k = check_k(k)
        self._axis_arg = as_int("axis", axis)
        self._largest = as_bool("largest", largest)
        self._index_dtype = as_index_dtype(index_dtype)
        self._impl = engine_for(np.empty(0), backend)
        self._spec: TopKSpec | None = None
        self._best: Candidates | None = None
        self._ranges: list[tuple[int, int]] = []  # disjoint, sorted, adjacent ones joined
        self._seen = 0
        self._lock = threading.Lock()  # each update() and result() is one whole step

    @property
    def k(self) -> int:
        """How many elements :meth:`result` keeps."""
        return self._k

    @property
    def seen(self) -> int:
        """How many elements have been given along the axis so far."""
        return self._seen

    def __repr__(self) -> str:
        return (f"StreamingTopK(k={self._k}, axis={self._axis_arg}, largest={self._largest}, "
                f"seen={self._seen})")

    # -- update ------------------------------------------------------------------------

    @boundary("StreamingTopK.update")
    def update(self, block: Any, offset: int | None = None) -> None:
        """Merge one block into the running top-k.

        Parameters
        ----------
        block : array_like
            The next elements along the axis: same rank and dtype as the
            first block, same size in every dimension but the axis.
        offset : int, optional
            The global index of the block's first element along the axis.
            Default: the number of elements given so far (blocks in order).

        Raises
        ------
        InvalidArgumentError
            A 0-d block, a block whose rank, dtype or size off the axis
            differs from the first block's, an ``axis`` out of range for the
            first block, a negative or non-integer ``offset``, a range that
            overlaps one given before, or an index ``index_dtype`` cannot hold.
            Nothing changes when it is raised.
        UnsupportedDTypeError
            A first block of a dtype top-k does not support.

        Examples
        --------
        >>> import numpy as np, axisops
        >>> s = axisops.StreamingTopK(2, axis=0)
        >>> s.update(np.array([[1, 8], [5, 2]]))
        >>> s.update(np.array([[5, 9]]))
        >>> s.result().indices
        array([[1, 2],
               [2, 0]])
        """
        x = as_ndarray(block, "block")
        with self._lock:
            self._update(x, offset)

    def _update(self, x: np.ndarray, offset: int | None) -> None:
        spec = self._spec or self._first_spec(x)
        check_next_block(ArrayMeta(x.shape, x.dtype), spec)
        n = x.shape[spec.axis]
        start = self._seen if offset is None else as_offset(offset)
        slot = self._check_range(start, n, spec)
        if self._spec is None:
            self._spec, self._best = spec, self._empty(spec, x)
        if n:
            self._best = self._merged(x, start, slot)
            self._add_range(start, start + n, slot)

    def _first_spec(self, x: np.ndarray) -> TopKSpec:
        require_rank("block", ArrayMeta(x.shape, x.dtype))
        check_ordered_dtype("block", x.dtype)
        spec = topk_spec(ArrayMeta(x.shape, native(x.dtype)), 0, self._axis_arg, self._largest,
                         True, None)
        # The request's template: each block and merge runs it with its own shape and
        # k = min(k, elements in the piece) (see Engine.topk_block).
        return spec.replace(k=self._k)

    def _check_range(self, start: int, n: int, spec: TopKSpec) -> int:
        """Refuse ``[start, start + n)`` unless it is new and indexable; its place in the list."""
        end = start + n
        slot = bisect_right(self._ranges, (start, INT64_END))
        near = self._ranges[max(slot - 1, 0) : slot + 1] if n else []
        overlap = next(((s, e) for s, e in near if s < end and start < e), None)
        check_block_range(start, n, spec.axis, self._index_dtype, overlap)
        return slot

    def _add_range(self, start: int, end: int, slot: int) -> None:
        """Record ``[start, end)`` as given, joined with the ranges it touches."""
        self._seen += end - start
        ranges = self._ranges
        if slot < len(ranges) and ranges[slot][0] == end:
            end = ranges.pop(slot)[1]
        if slot > 0 and ranges[slot - 1][1] == start:
            slot -= 1
            start = ranges.pop(slot)[0]
        ranges.insert(slot, (start, end))

    # -- merge -------------------------------------------------------------------------

    @staticmethod
    def _empty(spec: TopKSpec, x: np.ndarray) -> Candidates:
        shape = list(x.shape)
        shape[spec.axis] = 0
        return np.empty(shape, spec.dtype), np.empty(shape, np.int64)

    def _merged(self, x: np.ndarray, start: int, slot: int) -> Candidates:
        """The running candidates with ``x`` (at ``start``) merged in."""
        spec, best = self._spec, self._best
        assert spec is not None and best is not None
        if spec.k == 0:
            return best
        n = x.shape[spec.axis]
        if n > spec.k:
            new = block_candidates(x, spec, start, self._impl)
            if not self._ranges:
                return new
        else:
            new = raw_candidates(x, spec.axis, start)
        after = slot == len(self._ranges)  # every index given so far is below start
        before = slot == 0  # every index given so far is at or after start + n
        parts = (new, best) if before and not after else (best, new)
        return merge_candidates(spec, *parts, engine=self._impl, ordered=after or before)

    # -- result ------------------------------------------------------------------------

    @boundary("StreamingTopK.result")
    def result(self) -> TopK:
        """``axisops.topk`` of the concatenation of the blocks given so far.

        Sorted, ties to the lower global index; ``values`` in the blocks'
        dtype (native byte order), ``indices`` in ``index_dtype``.  The
        object is unchanged: more blocks may follow, and ``result()`` may be
        called again.

        Returns
        -------
        TopK
            ``(values, indices)``, NumPy arrays shaped like a block with
            ``k`` along the axis.

        Raises
        ------
        InvalidArgumentError
            No block given yet, fewer than ``k`` elements given, or explicit
            offsets that leave a gap (the elements given must be the whole
            sequence ``[0, n)``).

        Examples
        --------
        >>> import numpy as np, axisops
        >>> s = axisops.StreamingTopK(2, largest=False)
        >>> s.update([3.0, -0.0, np.nan]); s.update([0.0, 1.0])
        >>> s.result()
        TopK(values=array([-0.,  0.]), indices=array([1, 3]))
        """
        with self._lock:
            return self._result()

    def _result(self) -> TopK:
        spec, best = self._spec, self._best
        check_stream_result(spec is not None, self._ranges, self._seen, self._k,
                            spec.axis if spec is not None else 0)
        assert best is not None
        values, indices = best
        return TopK(values.copy(), indices.astype(self._index_dtype))
