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
them: the outer ones (held while other registered locks are taken) first, and
:data:`IMPORTS` last.

:data:`IMPORTS` is the package's import lock: every import the package makes
while a call runs (the adapters' and engines' lazy loaders, an engine's
kernels, a rule's module: :func:`imported`) is made holding it, so a fork waits
until such an import is whole.  Without it, a fork while another thread is importing a module
leaves that module's import lock held in the child, by a thread the child does
not have, and the child's first use of the module hangs.  No module's own top
level takes it (tests/test_concurrency.py checks): a thread that imports a
module holds that module's lock, and waiting there for :data:`IMPORTS` could
wait for a thread that waits for the module.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from typing import Any, TypeVar

from .tracing import constant_while_tracing

__all__ = ["IMPORTS", "fork_safe", "imported"]

L = TypeVar("L")

_outer: list[Any] = []
_inner: list[Any] = []
_held: list[Any] = []  # what the fork in progress took, in order

#: Held by every import the package makes while a call runs (taken last by a fork).
IMPORTS = threading.RLock()


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


@constant_while_tracing
def imported(*names: str) -> bool:
    """Import the modules ``names`` (absolute names) holding :data:`IMPORTS`, unless each
    is imported already; True.

    A function that imports while it runs calls it first, and its ``import``
    statements then find every module whole, with no import lock to take::

        imported("axisops.reference.topk")
        from ..reference.topk import topk

    Never from a module's top level (see the module).  ``torch.compile`` calls it
    outside the trace (:func:`~axisops.tracing.constant_while_tracing`).
    """
    for name in names:
        module = sys.modules.get(name)
        if module is None or getattr(getattr(module, "__spec__", None), "_initializing", False):
            with IMPORTS:
                importlib.import_module(name)
    return True


def _before() -> None:
    _held[:] = [*_outer, *_inner, IMPORTS]
    for lock in _held:
        lock.acquire()


def _after() -> None:
    for lock in reversed(_held):
        lock.release()
    _held.clear()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork()
    os.register_at_fork(before=_before, after_in_parent=_after, after_in_child=_after)
