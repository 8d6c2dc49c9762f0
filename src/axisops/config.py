"""Process-wide settings: the worker threads of the CPU kernels.

Results never depend on the thread count (the contract is bit-exact); only
speed does.

- **Threads**: the default is the number of CPUs this process may run on, or
  ``AXISOPS_NUM_THREADS`` when that is set to an allowed value.  The count is
  bounded: at most :func:`max_threads`, the larger of :data:`THREADS_FLOOR`
  (64) and the CPU count.  :func:`set_num_threads` refuses a larger value (it
  does not cap it silently: a typo should not pass), so no setting can make
  one call start thousands of threads.  An ``AXISOPS_NUM_THREADS`` that is not
  an integer in the allowed range is ignored with a :class:`RuntimeWarning`
  (an import must not fail over it).
"""

from __future__ import annotations

import os
import warnings

from .errors import InvalidArgumentError, boundary
from .rules.arguments import as_int, check_threads

__all__ = [
    "THREADS_FLOOR",
    "cpu_count",
    "get_num_threads",
    "max_threads",
    "set_num_threads",
]

#: every machine allows at least this many threads (tests and oversubscription).
THREADS_FLOOR = 64


def cpu_count() -> int:
    """CPUs this process may run on (its affinity mask, not the machine's total)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not every platform has affinity masks
        return os.cpu_count() or 1


def max_threads() -> int:
    """The largest thread count allowed: ``max(64, cpu_count())``.

    >>> import axisops.config as config
    >>> config.max_threads() >= 64
    True
    """
    return max(THREADS_FLOOR, cpu_count())


def _check_range(n: int, name: str) -> int:
    return check_threads(name, n, max_threads(), f"the larger of {THREADS_FLOOR} and the "
                         f"{cpu_count()} CPUs this process may run on")


def _from_env() -> int:
    raw = os.environ.get("AXISOPS_NUM_THREADS", "").strip()
    if not raw:
        return cpu_count()
    try:
        return _check_range(int(raw), "AXISOPS_NUM_THREADS")
    except InvalidArgumentError as exc:
        problem = str(exc)
    except ValueError:
        shown = repr(raw) if len(raw) <= 24 else f"{raw[:20]!r}... ({len(raw)} characters)"
        problem = (f"AXISOPS_NUM_THREADS={shown} is not an allowed integer "
                   f"(need 1 <= AXISOPS_NUM_THREADS <= {max_threads()})")
    warnings.warn(f"{problem}; ignored, using {cpu_count()} threads", RuntimeWarning,
                  stacklevel=2)
    return cpu_count()


_num_threads = _from_env()


def get_num_threads() -> int:
    """The number of threads axisops kernels use.

    Returns
    -------
    int
        Between 1 and :func:`max_threads`.

    Examples
    --------
    >>> import axisops
    >>> axisops.get_num_threads() >= 1
    True
    """
    return _num_threads


@boundary("set_num_threads")
def set_num_threads(n: int) -> None:
    """Set the number of threads kernels use; results do not change, only speed.

    Calls already running keep the count they started with; the call may come
    from any thread at any time.

    Parameters
    ----------
    n : int
        A Python or NumPy integer in ``[1, max_threads()]``, where
        :func:`max_threads` is the larger of 64 and the CPUs this process may
        run on.

    Raises
    ------
    InvalidArgumentError
        Anything else (nothing changes).

    Examples
    --------
    >>> import numpy as np, axisops
    >>> old = axisops.get_num_threads(); axisops.set_num_threads(np.int64(1))
    >>> axisops.get_num_threads()
    1
    >>> axisops.set_num_threads(10**6)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    axisops.errors.InvalidArgumentError: set_num_threads(): n=1000000 is out of range ...
    >>> axisops.set_num_threads(old)
    """
    global _num_threads
    _num_threads = _check_range(as_int("n", n), "n")
