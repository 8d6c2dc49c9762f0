"""axisops: exact, deterministic top-k and gather along an axis.

>>> import numpy as np, axisops
>>> axisops.topk(np.array([[0, 1, 10, 11], [3, 2, 9, 8]], np.float32), 2).indices
array([[3, 2],
       [2, 3]])

Public API: :func:`topk`, :func:`top_k`, :func:`gather`, :func:`take_along_axis`;
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
    from ._api import TopK, gather, take_along_axis, top_k, topk
else:
    from .api import TopK, gather, take_along_axis, top_k, topk

__all__ = [
    "AxisOpsError",
    "FileError",
    "IndexOutOfRangeError",
    "InvalidArgumentError",
    "StreamingTopK",
    "TopK",
    "UnsupportedDTypeError",
    "__version__",
    "backends",
    "gather",
    "gather_file",
    "get_num_threads",
    "register_backend",
    "set_num_threads",
    "take_along_axis",
    "top_k",
    "topk",
    "topk_file",
]
