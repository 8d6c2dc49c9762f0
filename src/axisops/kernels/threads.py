"""A small thread pool for kernels that release the GIL (``nogil=True``).

Numba's own parallel runtime is avoided on purpose: its default threading layer
aborts when two Python threads launch parallel kernels at once (as a Dask
worker does).  Plain threads calling ``nogil`` kernels on disjoint slices are
safe under any caller, and the work split is ours, so it is deterministic.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..config import get_num_threads

__all__ = ["run_parallel", "split_range"]

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_local = threading.local()


def _get_pool(size: int) -> ThreadPoolExecutor:
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size != size:
            if _pool is not None:
                _pool.shutdown(wait=False)
            _pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix="axisops",
                                       initializer=_mark_worker)
            _pool_size = size
        return _pool


def _mark_worker() -> None:
    _local.worker = True


def split_range(total: int, parts: int) -> list[tuple[int, int]]:
    """``[0, total)`` cut into at most ``parts`` contiguous, nearly equal ranges."""
    parts = max(1, min(parts, total))
    step, extra = divmod(total, parts)
    out, start = [], 0
    for i in range(parts):
        stop = start + step + (1 if i < extra else 0)
        out.append((start, stop))
        start = stop
    return out


def run_parallel(fn: Callable[..., Any], tasks: Sequence[tuple]) -> list[Any]:
    """``[fn(*t) for t in tasks]``, on the pool when there is more than one task."""
    threads = get_num_threads()
    if len(tasks) <= 1 or threads <= 1 or getattr(_local, "worker", False):
        return [fn(*t) for t in tasks]
    pool = _get_pool(threads)
    return [f.result() for f in [pool.submit(fn, *t) for t in tasks]]
