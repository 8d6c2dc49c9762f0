"""A small thread pool for kernels that release the GIL (``nogil=True``).

Numba's own parallel runtime is avoided on purpose: its default threading layer
aborts when two Python threads launch parallel kernels at once (as a Dask
worker does).  Plain threads calling ``nogil`` kernels on disjoint slices are
safe under any caller, and the work split is ours, so it is deterministic.

The pool is safe to use from many threads at once, across
:func:`axisops.set_num_threads` calls and across ``fork``:

- a call borrows the pool of the current size for its whole duration; a
  resize makes a new pool for later calls, and the old one is shut down only
  when its last borrower gives it back (no "cannot schedule new futures after
  shutdown");
- a forked child starts with no pool (the parent's worker threads do not
  exist in it) and a fresh lock (another thread may have held it at the fork),
  so its first parallel call makes a pool of its own.

The single-thread path (one task, one thread, or a call from inside a worker)
takes no lock and touches no pool.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any

from ..config import get_num_threads

__all__ = ["run_parallel", "split_range"]


class _Pool:
    """An executor of ``size`` workers and the number of calls using it now."""

    __slots__ = ("executor", "size", "users")

    def __init__(self, size: int) -> None:
        self.executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="axisops",
                                           initializer=_mark_worker)
        self.size = size
        self.users = 0


_lock = threading.Lock()
_current: _Pool | None = None
_local = threading.local()


def _borrow(size: int) -> _Pool:
    """The pool of ``size`` workers, marked in use (give it back with :func:`_give_back`)."""
    global _current
    with _lock:
        pool = _current
        if pool is None or pool.size != size:
            if pool is not None and pool.users == 0:
                pool.executor.shutdown(wait=False)
            pool = _current = _Pool(size)
        pool.users += 1
        return pool


def _give_back(pool: _Pool) -> None:
    with _lock:
        pool.users -= 1
        if pool.users == 0 and pool is not _current:  # replaced while in use
            pool.executor.shutdown(wait=False)


def _after_fork_in_child() -> None:
    global _lock, _current
    _lock = threading.Lock()
    _current = None


if hasattr(os, "register_at_fork"):  # absent on Windows, which has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)


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
    """``[fn(*t) for t in tasks]``, on the pool when there is more than one task.

    The calling thread runs the first task itself while the pool runs the others
    (one hand-off fewer: waking a worker costs tens of microseconds, as much as a
    small call's whole kernel).  Every task has finished when this returns or
    raises (the first task's error, in task order, is the one raised).
    """
    threads = get_num_threads()
    if len(tasks) <= 1 or threads <= 1 or getattr(_local, "worker", False):
        return [fn(*t) for t in tasks]
    pool = _borrow(threads)
    futures = []
    try:
        for t in tasks[1:]:
            futures.append(pool.executor.submit(fn, *t))
        head = fn(*tasks[0])
    finally:
        wait(futures)
        _give_back(pool)
    return [head, *(f.result() for f in futures)]
