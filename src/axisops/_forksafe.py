"""Module locks that fork() waits for: taken before it, released after it in both processes.

A forked child gets a copy of every lock as it was at the fork, and no thread
to release one that another thread held then: the child's first call that
takes it hangs.  Taken before the fork, such a lock makes fork() wait until
that thread has left its locked section, so the child finds the lock free and
what it guards whole (resetting the lock in the child instead could leave a
module half-imported).  The compiled core's thread pool does the same with its
own lock (``csrc/common/pool.cpp``).  So a lock registered here must only be
held for bounded work: fork() waits for it.

The locks are taken in one order, whatever the order of the imports that made
them: the outer ones (held while other registered locks are taken) first.
"""

from __future__ import annotations

import os
from typing import Any, TypeVar

__all__ = ["fork_safe"]

L = TypeVar("L")

_outer: list[Any] = []
_inner: list[Any] = []
_held: list[Any] = []  # what the fork in progress took, in order


def fork_safe(lock: L, *, outer: bool = False) -> L:
    """Take ``lock`` before every ``fork()`` of this process and release it after, in the
    parent and in the child.

    Parameters
    ----------
    lock : threading.Lock or threading.RLock
        A lock held only for bounded work, since ``fork()`` waits for it.
    outer : bool
        Whether a thread may take another of these locks while it holds ``lock``: an
        outer lock is taken first, so that the fork never holds a lock that such a
        thread is waiting for while the fork waits for ``lock``.

    Returns
    -------
    The same lock.
    """
    (_outer if outer else _inner).append(lock)
    return lock


def _before() -> None:
    _held[:] = [*_outer, *_inner]
    for lock in _held:
        lock.acquire()


def _after() -> None:
    for lock in reversed(_held):
        lock.release()
    _held.clear()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork()
    os.register_at_fork(before=_before, after_in_parent=_after, after_in_child=_after)
