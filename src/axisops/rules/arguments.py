"""Rules on scalar arguments: integers, bools, choices, axes, ``k``, fan-ins, thread counts."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from . import invalid

__all__ = ["as_bool", "as_choice", "as_fan_in", "as_int", "check_k", "check_threads",
           "normalize_axis"]


def as_int(name: str, value: Any, *, exact: bool = False) -> int:
    """``value`` as a Python int; bool, float and non-integers are rejected.

    ``exact`` accepts Python and NumPy integer *types* only, without calling any
    method of the value's class (``__index__`` included): for facades that take
    values from hostile callers.

    A ``torch.SymInt`` (a size while ``torch.compile`` traces with dynamic
    shapes) is returned as it is: ``operator.index`` would fix it to the value
    seen while tracing, one compiled graph per value.  Comparisons on it then
    become conditions of the graph instead.  (Dynamo, which traces this
    function, presents a SymInt as an ``int``; the operators' fake
    implementations, which it does not trace, see the SymInt itself.)

    >>> as_int("k", np.int8(3))
    3
    """
    if type(value) is int:
        return value
    if exact and (not issubclass(type(value), (int, np.integer))
                  or issubclass(type(value), (bool, np.bool_))):
        # No repr: the value's class may run code of its own (the facades' callers).
        invalid(f"{name} is not a Python or NumPy integer", name=name, value=value,
                allowed="an integer")
    if isinstance(value, (bool, np.bool_)):
        invalid(f"{name}={value!r} is a bool (need a Python or NumPy integer)",
                name=name, value=value, allowed="an integer")
    if not exact and type(value).__name__ == "SymInt" and type(value).__module__ == "torch":
        return value
    try:
        return operator.index(value)
    except TypeError:
        invalid(f"{name}={_describe(value)} is not an integer "
                f"(need a Python or NumPy integer, not bool or float)",
                name=name, value=value, allowed="an integer")


def as_bool(name: str, value: Any, *, c_bool: bool = False) -> bool:
    """``value`` as a Python bool; only True/False (Python or NumPy) are accepted.

    ``c_bool`` also takes the integers 0 and 1 (a C ``bool``), for the facades.
    """
    if issubclass(type(value), (bool, np.bool_)):
        return bool(value)
    if c_bool:
        if issubclass(type(value), (int, np.integer)) and value in (0, 1):
            return bool(value)
        invalid(f"{name} is not True, False, 0 or 1", name=name, value=value,
                allowed="True or False")
    invalid(f"{name}={_describe(value)} is not a bool (need True or False)",
            name=name, value=value, allowed="True or False")


def _describe(value: Any) -> str:
    return f"{value!r} ({type(value).__name__})"


def as_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of the strings ``choices``.

    >>> as_choice("mode", "smallest", ("largest", "smallest"))
    'smallest'
    """
    if isinstance(value, str) and value in choices:
        return value
    need = " or ".join(repr(c) for c in choices)
    invalid(f"{name}={value!r} is not allowed (need {need})", name=name, value=value,
            allowed=need)


def normalize_axis(name: str, value: Any, ndim: int, *, negative: bool = True,
                   exact: bool = False) -> int:
    """An axis in ``[-ndim, ndim)`` mapped to ``[0, ndim)``.

    ``negative=False`` allows ``[0, ndim)`` only (an unsigned axis).  The error's
    fields are ``name``, ``value``, ``ndim`` and the bounds ``low``, ``high``.
    """
    axis = as_int(name, value, exact=exact)
    low = -ndim if negative else 0
    if not low <= axis < ndim:
        plural = "s" if ndim != 1 else ""
        invalid(f"{name}={axis} is out of range for an array of {ndim} dimension{plural} "
                f"(need {low} <= {name} <= {ndim - 1})",
                name=name, value=axis, ndim=ndim, low=low, high=ndim - 1,
                allowed=f"{low} <= {name} <= {ndim - 1}")
    return axis % ndim


def check_k(value: Any, n: int | None = None, *, axis: int | None = None, low: int = 0,
            high: int | None = None, exact: bool = False) -> int:
    """``k`` as an int in ``[low, high]`` (``high`` defaults to ``n``; no bound above
    when ``n`` is None too).  The error's fields are ``value``, ``size`` (n),
    ``axis``, ``low`` and ``high``.

    >>> check_k(2, 5)
    2
    """
    k = as_int("k", value, exact=exact)
    top = n if high is None else high
    if top is None:
        if k < low:
            invalid(f"k={k} is negative (need k >= {low})", name="k", value=k, size=None,
                    axis=axis, low=low, high=None, allowed=f"k >= {low}")
        return k
    if not low <= k <= top:
        invalid(f"k={k} is out of range for axis {axis} of size {n} (need {low} <= k <= {top})",
                name="k", value=k, size=n, axis=axis, low=low, high=top,
                allowed=f"{low} <= k <= {top}")
    return k


def as_fan_in(value: Any, axis: int, source: str = "split_every") -> int:
    """A tree reduction's fan-in: an integer >= 2 (``source`` names where it came from)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < 2:
        invalid(f"{source}={value!r} is not allowed (need an integer >= 2, "
                f"or a dict mapping axis {axis} to one)", name="split_every", value=value,
                allowed="an integer >= 2")
    return int(value)


def _shown(n: int) -> str:
    """``n`` for a message: in full unless it is huge (str() refuses > 4300 digits)."""
    if abs(n) < 10**18:
        return str(n)
    return f"{'-' if n < 0 else ''}<an integer of {n.bit_length()} bits>"


def check_threads(name: str, n: int, top: int, why: str) -> int:
    """A thread count in ``[1, top]``; ``why`` says where ``top`` comes from."""
    if not 1 <= n <= top:
        invalid(f"{name}={_shown(n)} is out of range (need 1 <= {name} <= {top}, {why})",
                name=name, value=n, low=1, high=top, allowed=f"1 <= {name} <= {top}")
    return n
