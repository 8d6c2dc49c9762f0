"""The streaming engine as Python functions: :func:`topk_file` and :func:`gather_file`.

They run the jobs of :mod:`axisops.streaming.jobs` (what ``axisops topk`` and
``axisops gather`` run) with the Python API's names in messages, no progress
bar unless asked, and no signal handler: a library does not take over a
process's signals behind its caller's back.  Outputs are atomic all the same
(temporary files, committed in a section that holds signals off for a few
microseconds, see :mod:`axisops.streaming.signals`); a caller that wants
SIGTERM to unwind the stack, as the command line does, wraps the call in
:func:`axisops.streaming.exit_on_signals`.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..api import TopK
from ..errors import boundary
from ..rules.streaming import as_key, as_path, as_progress, check_scheduler
from .jobs import Options, gather_job, topk_job
from .stream import DEFAULT_CHUNK_BYTES

__all__ = ["gather_file", "topk_file"]

PathLike = str | os.PathLike


def _is_client(value: Any) -> bool:
    """A ``distributed.Client`` (checked without importing distributed)."""
    return type(value).__module__.partition(".")[0] == "distributed"


def _options(backend: Any, chunk_bytes: Any, scheduler: Any, progress: Any) -> Options:
    shown = as_progress(progress)
    check_scheduler(scheduler, _is_client(scheduler))
    return Options(backend=backend, chunk_bytes=chunk_bytes, scheduler=scheduler,
                   progress=shown)


@boundary("topk_file")
def topk_file(
    path: PathLike,
    k: int,
    axis: int = -1,
    *,
    largest: bool = True,
    sorted: bool = True,
    index_dtype: Any = None,
    key: str | None = None,
    out: PathLike | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    backend: str | None = None,
    scheduler: Any = None,
    progress: bool | None = False,
) -> TopK | str:
    """Top-k along an axis of an array in a file, read in chunks of bounded size.

    The array at ``path`` (a ``.npy`` file, a member of an ``.npz`` archive,
    or a zarr array) is read about ``chunk_bytes`` at a time, so it may be
    far larger than memory; chunks that cut the axis are merged exactly.  The
    result equals ``axisops.topk`` of the whole array, bit for bit.  This is
    what ``axisops topk`` runs.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.npy`` file, an ``.npz`` archive or a zarr array or group
        (zarr needs the ``zarr`` extra).  Files are never unpickled.
    k : int
        How many elements to keep, ``0 <= k <= n`` along ``axis``.
    axis : int, default -1
        The axis to select along.
    largest : bool, default True
        The greatest elements, greatest first (else the least, least first).
    sorted : bool, default True
        ``False`` allows any order (the results are sorted all the same).
    index_dtype : dtype, optional
        Integer dtype of the indices (default int64).
    key : str, optional
        The array's name in an ``.npz`` archive or zarr group holding several.
    out : str or os.PathLike, optional
        Write an ``.npz`` of ``values`` and ``indices`` there instead of
        returning arrays.  It appears only once complete (written under a
        temporary name, then renamed), and replaces only a regular file,
        keeping its permission bits; it may not be ``path`` itself.
    chunk_bytes : int, default 32 MiB
        Input bytes read per step; memory stays near a few times this
        (a zarr chunk, decoded, must fit in it).
    backend : str, optional
        The NumPy-family backend that runs every chunk; with ``scheduler``,
        the one the workers run on their blocks.
    scheduler : str or distributed.Client, optional
        Run on a Dask cluster (``'tcp://host:8786'``, or a client); the
        workers read the file by path, so they must see it where you do.
    progress : bool or None, default False
        A progress bar on stderr (``None``: when stderr is a terminal and the
        work takes over a second).

    Returns
    -------
    TopK or str
        Without ``out``, ``TopK(values, indices)`` as NumPy arrays (the
        result must fit in memory, the input need not); with ``out``, the
        path written, as a str.

    Raises
    ------
    FileError
        ``path`` is missing, not a regular file or not an array file,
        ``key`` names no array, a zarr chunk exceeds ``chunk_bytes``, ``out``
        is a directory, a device or the input, or the scheduler cannot be
        reached.  Nothing is written.
    InvalidArgumentError, UnsupportedDTypeError
        As :func:`axisops.topk` raises them, and for a bad ``chunk_bytes``,
        ``progress``, ``scheduler`` or path argument.

    Examples
    --------
    >>> import numpy as np, axisops, tempfile, os
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "x.npy")
    >>> np.save(path, np.array([[1, 3, 3, 2], [4, 0, 4, 1]]))
    >>> axisops.topk_file(path, 2, chunk_bytes=16)
    TopK(values=array([[3, 3],
           [4, 4]]), indices=array([[1, 2],
           [0, 2]]))
    >>> out = axisops.topk_file(path, 1, axis=0, out=os.path.join(tmp.name, "top.npz"))
    >>> np.load(out)["indices"]
    array([[1, 0, 1, 0]])
    >>> tmp.cleanup()
    """
    source = as_path("path", path)
    target = as_path("out", out, optional=True)
    options = _options(backend, chunk_bytes, scheduler, progress)
    arrays, _ = topk_job(source, k, axis=axis, largest=largest, sorted=sorted,
                         index_dtype=index_dtype, key=as_key("key", key), out=target,
                         options=options)
    return TopK(*arrays) if arrays is not None else target


@boundary("gather_file")
def gather_file(
    path: PathLike,
    dim: int,
    index: Any,
    *,
    key: str | None = None,
    index_key: str | None = None,
    out: PathLike | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    backend: str | None = None,
    scheduler: Any = None,
    progress: bool | None = False,
) -> np.ndarray | str:
    """Gather along ``dim`` from an array in a file, reading only what the index needs.

    ``torch.gather`` semantics, as :func:`axisops.gather`: the result has
    ``index``'s shape and the input's dtype.  The index is processed in
    chunks of about ``chunk_bytes``; for each, only the part of the input it
    can address is read, so the input may be far larger than memory.  This
    is what ``axisops gather`` runs.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.npy`` file, an ``.npz`` archive or a zarr array or group.
    dim : int
        The dimension to gather along.
    index : str, os.PathLike or array_like
        The integer index: a file (read in chunks, like ``path``) or an
        array in memory.
    key, index_key : str, optional
        The arrays' names in an ``.npz`` archive or zarr group holding
        several (``index_key`` only when ``index`` is a file).
    out : str or os.PathLike, optional
        Write a ``.npy`` there instead of returning an array (atomically, as
        :func:`topk_file` does; it may not be one of the inputs).
    chunk_bytes : int, default 32 MiB
        Bytes read per step; memory stays near a few times this.
    backend : str, optional
        The NumPy-family backend that runs every chunk; with ``scheduler``,
        the one the workers run.
    scheduler : str or distributed.Client, optional
        Run on a Dask cluster; workers read the files by path.
    progress : bool or None, default False
        A progress bar on stderr (``None``: on a terminal, after a second).

    Returns
    -------
    numpy.ndarray or str
        The gathered array, or with ``out`` the path written, as a str.

    Raises
    ------
    FileError
        As :func:`topk_file`, for ``path``, an index file and ``out``.
    IndexOutOfRangeError
        An index value outside ``[-n, n-1]``; the message names its position
        in the whole index.  Nothing is written.
    InvalidArgumentError, UnsupportedDTypeError
        As :func:`axisops.gather` raises them, and for a bad ``chunk_bytes``,
        ``progress``, ``scheduler`` or path argument.

    Examples
    --------
    >>> import numpy as np, axisops, tempfile, os
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "g.npy")
    >>> np.save(path, np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]))
    >>> axisops.gather_file(path, 1, [[2, 0], [-1, 1], [0, 0]])
    array([[3, 1],
           [6, 5],
           [7, 7]])
    >>> tmp.cleanup()
    """
    source = as_path("path", path)
    target = as_path("out", out, optional=True)
    options = _options(backend, chunk_bytes, scheduler, progress)
    array, _ = gather_job(source, index, dim, key=as_key("key", key),
                          index_key=as_key("index_key", index_key), out=target, options=options)
    return array if array is not None else target
