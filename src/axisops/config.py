"""Process-wide settings: the number of worker threads kernels may use.

Results never depend on the thread count (the contract is bit-exact); only
speed does.  The default is the number of CPUs this process may run on, or
``AXISOPS_NUM_THREADS`` when that is set.
"""

from __future__ import annotations

import os

from .errors import InvalidArgumentError

__all__ = ["cpu_count", "get_num_threads", "set_num_threads"]


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
