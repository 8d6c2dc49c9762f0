"""axisops: exact, deterministic top-k, gather, sort and selection along an axis.

>>> import numpy as np, axisops
>>> axisops.topk(np.array([[0, 1, 10, 11], [3, 2, 9, 8]], np.float32), 2).indices
array([[3, 2],
       [2, 3]])

Public API: :func:`topk`, :func:`top_k`, :func:`gather`, :func:`take_along_axis`;
the selection family :func:`sort`, :func:`argsort`, :func:`kthvalue`, :func:`median`,
:func:`partition`, :func:`argpartition`; the quantile family :func:`quantile`,
:func:`nanquantile`, :func:`nanmedian`;
for data larger than memory, :class:`StreamingTopK`, :func:`topk_file` and
:func:`gather_file` (the streaming engine, :mod:`axisops.streaming`); the
error classes, :func:`backends` (engine names) and :func:`register_backend`, and the thread
count (:func:`get_num_threads`, :func:`set_num_threads`).  The DirectML and
Ascend layers live in :mod:`axisops.directml` and :mod:`axisops.ascend`.

``import axisops`` imports nothing but this module (not even NumPy): each public
name is imported from its module when it is first used, so the command line can
take Ctrl-C before any heavy import and a program that never calls axisops pays
nothing for it.  ``from axisops import topk`` works as usual.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

from ._version import __version__

#: public name -> the module of this package that defines it (imported on first use).
_PUBLIC = {
    "KthValue": ".api",
    "Median": ".api",
    "TopK": ".api",
    "argpartition": ".api",
    "argsort": ".api",
    "kthvalue": ".api",
    "median": ".api",
    "nanmedian": ".api",
    "nanquantile": ".api",
    "partition": ".api",
    "quantile": ".api",
    "sort": ".api",
    "gather": ".api",
    "take_along_axis": ".api",
    "top_k": ".api",
    "topk": ".api",
    "get_num_threads": ".config",
    "set_num_threads": ".config",
    "AxisOpsError": ".errors",
    "IndexOutOfRangeError": ".errors",
    "InvalidArgumentError": ".errors",
    "UnsupportedDTypeError": ".errors",
    "backends": ".registry",
    "register_backend": ".registry",
    "FileError": ".streaming",
    "StreamingTopK": ".streaming",
    "gather_file": ".streaming",
    "topk_file": ".streaming",
}

#: Submodules reachable as attributes before they are imported (``axisops.streaming``);
#: ``axisops.torch`` is not among them: it imports torch, so it is imported by name; nor
#: are the command line and the benchmark, which import this package.
_SUBMODULES = frozenset({
    ".adapters", ".api", ".ascend", ".config", ".dask", ".directml", ".dtypes", ".engines",
    ".errors", ".merge", ".reference", ".registry", ".requests", ".rules", ".runner",
    ".streaming", ".validation"})

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
        nanmedian,
        nanquantile,
        partition,
        quantile,
        sort,
        take_along_axis,
        top_k,
        topk,
    )
    from .config import get_num_threads, set_num_threads
    from .errors import (
        AxisOpsError,
        IndexOutOfRangeError,
        InvalidArgumentError,
        UnsupportedDTypeError,
    )
    from .registry import backends, register_backend
    from .streaming import FileError, StreamingTopK, gather_file, topk_file


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None and (f".{name}" not in _SUBMODULES
                           or sys._getframe(1).f_code.co_name == "_handle_fromlist"):
        # ``from axisops import adapters`` (this package's own modules, at their top
        # level): the import system imports the submodule itself, without the lock.
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ._forksafe import imported  # a fork waits for the import (_forksafe.py)

    if module is not None:
        imported(f"{__name__}{module}")
        value = getattr(importlib.import_module(module, __name__), name)
    else:
        imported(f"{__name__}.{name}")
        value = importlib.import_module(f".{name}", __name__)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


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
    "nanmedian",
    "nanquantile",
    "partition",
    "quantile",
    "register_backend",
    "set_num_threads",
    "sort",
    "take_along_axis",
    "top_k",
    "topk",
    "topk_file",
]
