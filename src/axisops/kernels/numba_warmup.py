"""Compile (or load from Numba's on-disk cache) every CPU kernel ahead of use.

Kernels are compiled with ``cache=True``, so each signature is compiled once per
machine and loaded from ``__pycache__`` by later processes.  :func:`warmup`
runs every strategy on tiny inputs of each key width and kind, and every gather
path for each value width and index type, so that a new process's first real
call costs no compilation.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["INDEX_DTYPES", "KERNEL_DTYPES", "cache_status", "warmup"]

#: one dtype per (key width, kind): every kernel signature the backend can use.
KERNEL_DTYPES = ("bool", "int8", "uint8", "int16", "uint16", "float16", "int32", "uint32",
                 "float32", "int64", "uint64", "float64")
#: gather index types compiled by :func:`warmup` (others compile on first use).
INDEX_DTYPES = ("int32", "int64")


def _dispatchers() -> list[Any]:
    from numba.core.registry import CPUDispatcher

    from . import numba_gather, numba_keys, numba_select, numba_topk

    found = []
    for module in (numba_keys, numba_select, numba_topk, numba_gather):
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
                found.append(value)
    return found


def _exercise() -> None:
    from ..validation import ArrayMeta, gather_spec, topk_spec
    from . import numba_driver as drv

    rng = np.random.default_rng(0)
    for name in KERNEL_DTYPES:
        x = rng.integers(0, 3, size=(40, 130)).astype(name)
        for strategy in drv.STRATEGIES:
            axis = 0 if strategy == "columns" else 1
            spec = topk_spec("warmup", ArrayMeta(x.shape, x.dtype), 3, axis, True, True, None)
            drv.topk(x, spec, strategy=strategy)
        for width_name in (name, "complex128"):
            data = x.astype(width_name) if width_name != name else x
            for index_name in INDEX_DTYPES:
                for dim, shape in ((1, (40, 7)), (0, (9, 130))):
                    idx = rng.integers(0, x.shape[dim], size=shape).astype(index_name)
                    spec = gather_spec("warmup", ArrayMeta(data.shape, data.dtype), dim,
                                       ArrayMeta(idx.shape, idx.dtype))
                    drv.gather(data, idx, spec)


def warmup() -> dict[str, Any]:
    """Compile or load every kernel; returns what was done and how long it took.

    >>> from axisops.kernels.numba_warmup import warmup
    >>> report = warmup()
    >>> report["signatures"] > 0
    True
    """
    start = time.perf_counter()
    _exercise()
    hits = misses = signatures = 0
    for dispatcher in _dispatchers():
        signatures += len(dispatcher.signatures)
        hits += sum(dispatcher.stats.cache_hits.values())
        misses += sum(dispatcher.stats.cache_misses.values())
    return {
        "seconds": round(time.perf_counter() - start, 3),
        "signatures": signatures,
        "loaded_from_cache": hits,
        "compiled": misses,
        "cache_dir": str(cache_dir()),
    }


def cache_dir() -> Path:
    """Where Numba keeps this package's compiled kernels."""
    return Path(__file__).parent / "__pycache__"


def cache_status() -> dict[str, Any]:
    """How many compiled-kernel files are on disk (nothing is compiled)."""
    folder = cache_dir()
    entries = sorted(folder.glob("numba_*.nbc")) if folder.is_dir() else []
    return {"cache_dir": str(folder), "cache_files": len(entries)}
