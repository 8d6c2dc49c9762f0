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

The work split is ours, and no result depends on it (every part is exact on
its own). With a :class:`Balance`, the calling thread's part grows by what
earlier calls of the same kind of work measured. The caller starts at once, a
pool thread some microseconds later. When a pool thread finishes last, the
caller is idle in its wait and must be woken up. On a virtual machine that
costs about 50 µs, a tenth of a short call.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any

from ..config import get_num_threads

__all__ = ["Balance", "run_parallel", "split_range"]


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


class Balance:
    """How much more than an even part the calling thread takes, learned from the
    calls of one kind of work (one per kernel and key type, say).

    Two averages over earlier calls: ``lag``, how much later than the caller the
    pool threads finish the same amount of work (their start, and the caller's
    wake-up when they end last), and ``per_unit``, the caller's seconds per unit
    of work (an item is ``unit`` units: a sequence is its length).  :meth:`split`
    gives the caller what it takes to finish :attr:`MARGIN` seconds after the
    others, so that it never waits to be woken, and at most :attr:`MAX_EXTRA` of
    an even part more.  One call moves each average by :attr:`WEIGHT` of what it
    measured.

    >>> b = Balance()
    >>> b.split(100, 2, unit=1)  # nothing learned yet: even
    [(0, 50), (50, 100)]
    >>> b.learn(50, 100, 2, unit=1, busy=0.001, late=0.0004)  # pool ended 0.4 ms later
    >>> b.lag, b.per_unit
    (0.0001, 2e-05)
    >>> b.split(100, 2, unit=1)  # (0.1 ms + the margin) / 2 / 20 us = 2.75 items more
    [(0, 53), (53, 100)]
    """

    #: the caller's part is at most this much larger than an even part.
    MAX_EXTRA = 0.5
    #: a lag measured above this (seconds) counts as this: a stall of the machine,
    #: not the hand-off, and one stall must not skew the next calls.
    MAX_LAG = 1e-3
    #: how long (seconds) after the pool the caller aims to finish.
    MARGIN = 10e-6
    #: how far one call moves each average towards what it measured.
    WEIGHT = 0.25

    __slots__ = ("lag", "per_unit")

    def __init__(self) -> None:
        self.lag = 0.0
        self.per_unit = 0.0

    def split(self, total: int, parts: int, unit: int) -> list[tuple[int, int]]:
        """``[0, total)`` in at most ``parts`` contiguous ranges, the first (the caller's)
        grown by what the averages say, the others nearly equal."""
        parts = max(1, min(parts, total))
        if parts == 1 or self.per_unit <= 0:
            return split_range(total, parts)
        even = total / parts
        shift = (self.lag + self.MARGIN) / (self.per_unit * unit * _gain(parts))
        head = round(min(even + shift, even * (1 + self.MAX_EXTRA)))
        head = max(1, min(total - (parts - 1), head))
        rest = split_range(total - head, parts - 1)
        return [(0, head), *((head + a, head + b) for a, b in rest)]

    def learn(self, head: int, total: int, parts: int, *, unit: int, busy: float,
              late: float) -> None:
        """Take in one call: the caller's part held ``head`` of ``total`` items of
        ``unit`` units and kept it ``busy`` seconds; the last pool thread finished
        ``late`` seconds after it (negative: before it)."""
        if head <= 0 or busy <= 0 or parts < 2 or unit <= 0:
            return
        per_item = busy / head
        lag = late + (head - total / parts) * per_item * _gain(parts)
        lag = min(self.MAX_LAG, max(0.0, lag))
        per_unit = per_item / unit
        if self.per_unit <= 0:
            self.lag, self.per_unit = lag * self.WEIGHT, per_unit
            return
        self.lag += self.WEIGHT * (lag - self.lag)
        self.per_unit += self.WEIGHT * (per_unit - self.per_unit)


def _gain(parts: int) -> float:
    """How much the gap between the caller's end and the others' closes per second of
    work moved to the caller (its part grows, each other part shrinks by a share)."""
    return 1 + 1 / (parts - 1)


def run_parallel(fn: Callable[..., Any], tasks: Sequence[tuple],
                 balance: tuple[Balance, int, int, int] | None = None) -> list[Any]:
    """``[fn(*t) for t in tasks]``, on the pool when there is more than one task.

    The calling thread runs the first task itself while the pool runs the others
    (one hand-off fewer: waking a worker costs tens of microseconds, as much as a
    small call's whole kernel).  Every task has finished when this returns or
    raises (the first task's error, in task order, is the one raised).

    ``balance``, ``(Balance, head items, total items, unit)`` of a split made by
    that :class:`Balance`, has it learn from this call's timings.
    """
    threads = get_num_threads()
    if len(tasks) <= 1 or threads <= 1 or getattr(_local, "worker", False):
        return [fn(*t) for t in tasks]
    pool = _borrow(threads)
    futures = []
    try:
        for t in tasks[1:]:
            futures.append(pool.executor.submit(_timed, fn, t))
        start = time.perf_counter()
        head = fn(*tasks[0])
        end = time.perf_counter()
    finally:
        wait(futures)
        _give_back(pool)
    results = [f.result() for f in futures]
    if balance is not None:
        learner, items, total, unit = balance
        learner.learn(items, total, len(tasks), unit=unit, busy=end - start,
                      late=max(done for _, done in results) - end)
    return [head, *(r for r, _ in results)]


def _timed(fn: Callable[..., Any], args: tuple) -> tuple[Any, float]:
    """``fn(*args)`` and when it returned (``time.perf_counter``)."""
    result = fn(*args)
    return result, time.perf_counter()
