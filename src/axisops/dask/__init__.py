"""Dask task graphs for axisops: exact top-k, gather and selection on chunked arrays.

The ``"dask"`` engine (:mod:`axisops.engines.dask`) builds its lazy results
here; users call :func:`axisops.topk` and :func:`axisops.gather` on a
``dask.array.Array`` and never need this package directly.

- :mod:`axisops.dask.topk`: per-block sorted candidates with global indices,
  merged by a tree of ``split_every`` blocks at a time, in block order;
- :mod:`axisops.dask.gather`: index blocks routed to the data blocks they need
  along ``dim``, partial gathers combined by a tree;
- :mod:`axisops.dask.select`: kthvalue and median along a chunked axis by an
  exact radix select over order keys (per-chunk histograms, summed by a tree);
  sort and partition block by block along an axis in one chunk;
- :mod:`axisops.dask.tree`: the tree reduction they use.

The exact merge of partial top-k results is :mod:`axisops.merge`, shared with
the streaming engine and :class:`axisops.StreamingTopK`; tasks run pieces of
the validated spec on the NumPy engine whose name they carry
(:func:`axisops.engines.blocks.named`, where the task runs).
The graph modules import dask; this package's ``__init__`` does not, nor does
:mod:`axisops` itself.
"""
