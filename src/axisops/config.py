"""Process-wide settings: worker threads, and when CPU kernels get compiled.

Results never depend on either setting (the contract is bit-exact); only
speed does.

- **Threads**: the default is the number of CPUs this process may run on, or
  ``AXISOPS_NUM_THREADS`` when that is set.
- **Compilation** (:func:`set_compile_mode`): by default (``"background"``) a
  call whose compiled kernel is not in the on-disk cache yet is answered by an
  exact path that needs no compiler while a separate process compiles the
  kernel; later calls use it as soon as it is loadable.  ``"sync"`` compiles in
  the calling thread first (the call waits), as benchmarks want.
  ``AXISOPS_COMPILE=sync`` sets the default.
"""

from __future__ import annotations

import os

from .errors import InvalidArgumentError

__all__ = [
    "COMPILE_MODES",
    "cpu_count",
    "get_compile_mode",
    "get_num_threads",
    "set_compile_mode",
    "set_num_threads",
]


def cpu_count() -> int:
    """CPUs this process may run on (its affinity mask, not the machine's total)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not every platform has affinity masks
        return os.cpu_count() or 1


def _from_env() -> int:
    raw = os.environ.get("AXISOPS_NUM_THREADS", "")
    try:
        value = int(raw)
    except ValueError:
        return cpu_count()
    return value if value >= 1 else cpu_count()


_num_threads = _from_env()


def get_num_threads() -> int:
    """The number of threads axisops kernels use.

    >>> import axisops
    >>> axisops.get_num_threads() >= 1
    True
    """
    return _num_threads


def set_num_threads(n: int) -> None:
    """Set the number of threads kernels use (``1 <= n``); results do not change.

    >>> import axisops
    >>> old = axisops.get_num_threads(); axisops.set_num_threads(1)
    >>> axisops.get_num_threads()
    1
    >>> axisops.set_num_threads(old)
    """
    global _num_threads
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidArgumentError(
            f"set_num_threads(): n={n!r} is not allowed (need an integer >= 1)"
        )
    _num_threads = n


#: what :func:`set_compile_mode` accepts.
COMPILE_MODES = ("background", "sync")


def _compile_mode_from_env() -> str:
    raw = os.environ.get("AXISOPS_COMPILE", "").strip().lower()
    return raw if raw in COMPILE_MODES else "background"


_compile_mode = _compile_mode_from_env()


def get_compile_mode() -> str:
    """``"background"`` (the default) or ``"sync"``: see :func:`set_compile_mode`.

    >>> import axisops.config
    >>> axisops.config.get_compile_mode() in axisops.config.COMPILE_MODES
    True
    """
    return _compile_mode


def set_compile_mode(mode: str) -> None:
    """Choose what a call does when its CPU kernel is not compiled yet.

    ``"background"``: answer at once through an exact path that needs no
    compiler, while another process compiles the kernel into the on-disk
    cache; ``"sync"``: compile first, in the calling thread.  Results are the
    same bits either way.  The default comes from ``AXISOPS_COMPILE``.

    >>> import axisops.config
    >>> old = axisops.config.get_compile_mode()
    >>> axisops.config.set_compile_mode("sync")
    >>> axisops.config.get_compile_mode()
    'sync'
    >>> axisops.config.set_compile_mode(old)
    """
    global _compile_mode
    if not isinstance(mode, str) or mode not in COMPILE_MODES:
        raise InvalidArgumentError(
            f"set_compile_mode(): mode={mode!r} is not allowed "
            f"(need one of {', '.join(map(repr, COMPILE_MODES))})"
        )
    _compile_mode = mode
