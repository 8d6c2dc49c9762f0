"""axisops: exact, deterministic top-k, gather, sort and selection along an axis.

>>> import numpy as np, axisops
>>> axisops.topk(np.array([[0, 1, 10, 11], [3, 2, 9, 8]], np.float32), 2).indices
array([[3, 2],
       [2, 3]])

Public API: :func:`topk`, :func:`top_k`, :func:`gather`, :func:`take_along_axis`;
the selection family :func:`sort`, :func:`argsort`, :func:`kthvalue`, :func:`median`,
:func:`partition`, :func:`argpartition`;
for data larger than memory, :class:`StreamingTopK`, :func:`topk_file` and
:func:`gather_file` (the streaming engine, :mod:`axisops.streaming`); the
error classes, :func:`backends` (engine names) and :func:`register_backend`, and the thread
count (:func:`get_num_threads`, :func:`set_num_threads`).  The DirectML and
Ascend layers live in :mod:`axisops.directml` and :mod:`axisops.ascend`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._version import __version__
from .config import get_num_threads, set_num_threads
from .errors import AxisOpsError, IndexOutOfRangeError, InvalidArgumentError, UnsupportedDTypeError
from .registry import backends, register_backend
from .streaming import FileError, StreamingTopK, gather_file, topk_file

if TYPE_CHECKING:  # the same functions, typed so the result has the input's array type
    from ._api import (
        KthValue,
        Median,
        TopK,
        argpartition,
        argsort,
        gather,
        kthvalue,
        median,
        partition,
        sort,
        take_along_axis,
        top_k,
        topk,
    )
else:
    from .api import (
        KthValue,
        Median,
        TopK,
        argpartition,
        argsort,
        gather,
        kthvalue,
        median,
        partition,
        sort,
        take_along_axis,
        top_k,
        topk,
    )

__all__ = [
    "AxisOpsError",
    "FileError",
    "IndexOutOfRangeError",
    "InvalidArgumentError",
    "KthValue",
    "Median",
    "StreamingTopK",
    "TopK",
    "UnsupportedDTypeError",
    "__version__",
    "argpartition",
    "argsort",
    "backends",
    "gather",
    "gather_file",
    "get_num_threads",
    "kthvalue",
    "median",
    "partition",
    "register_backend",
    "set_num_threads",
    "sort",
    "take_along_axis",
    "top_k",
    "topk",
    "topk_file",
]
