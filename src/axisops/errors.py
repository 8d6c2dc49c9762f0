"""The axisops error family, and where messages get the function's name.

Every error axisops raises derives from :class:`AxisOpsError` and also from the
standard exception a Python programmer would expect, so ordinary ``except
ValueError`` / ``except TypeError`` / ``except IndexError`` clauses keep working.

Messages name the function, the argument, the value received and what was
allowed, for example::

    topk(): k=7 is out of range for axis 1 of size 5 (need 0 <= k <= 5)

The code that finds the problem writes the part after the colon (validation,
backends and kernels know nothing of who called them); the name is added once,
where the user called in: every public function is declared with
:func:`boundary`, which prefixes ``name(): `` to any :class:`AxisOpsError`
leaving it, data-dependent ones raised deep in a kernel included.  The
exception itself goes on (same object, class, cause and traceback); its
``function`` attribute says which name it carries.

When one public function calls another, the **outermost** one, the function
the user called, names the error: inner boundaries do nothing.  Work deferred
past the boundary (the tasks of a lazy Dask graph, run at ``compute()``)
captures the name with :func:`current_function` when it is built and runs under
:func:`call_as`.

``torch.compile`` traces through a boundary (Dynamo handles its ``try`` and
the thread-local name) without a graph break; with ``fullgraph=True`` an error
raised while tracing is reported by Dynamo as it was first raised, before the
boundary named it (the traceback in the report names the function).
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

__all__ = [
    "AxisOpsError",
    "IndexOutOfRangeError",
    "InvalidArgumentError",
    "UnsupportedDTypeError",
    "boundary",
    "call_as",
    "current_function",
    "name_error",
]

P = ParamSpec("P")
R = TypeVar("R")


class AxisOpsError(Exception):
    """Root of every error raised by axisops."""

    #: The public function the message names (``None`` until a boundary names it).
    function: str | None = None


class InvalidArgumentError(AxisOpsError, ValueError):
    """A bad k, axis/dim, rank or shape mismatch, or an index dtype too small."""


class UnsupportedDTypeError(AxisOpsError, TypeError):
    """A dtype the operation does not support (object, string, float index...)."""


class IndexOutOfRangeError(AxisOpsError, IndexError):
    """A gather index value outside [-n, n-1]."""


class _Calls(threading.local):
    #: The outermost public function running in this thread.
    function: str | None = None


_calls = _Calls()


def name_error(exc: AxisOpsError, function: str) -> None:
    """Make ``exc``'s message start with ``function(): `` (replacing a name it carries).

    Errors whose first argument is not a message (an HRESULT, say) are left alone.

    >>> err = InvalidArgumentError("k=7 is out of range")
    >>> name_error(err, "topk"); name_error(err, "top_k"); str(err)
    'top_k(): k=7 is out of range'
    """
    if exc.function == function or not exc.args or not isinstance(exc.args[0], str):
        return
    message = exc.args[0]
    if exc.function is not None:
        message = message.removeprefix(f"{exc.function}(): ")
    exc.args = (f"{function}(): {message}", *exc.args[1:])
    exc.function = function


def _compiling() -> bool:
    """Whether torch.compile's Dynamo is tracing this code: the tracer of torch 2.4
    cannot follow the thread state below (so the boundary keeps none while it
    traces).  ``is_dynamo_compiling``, not ``is_compiling``: the latter stays true
    in every thread while any thread compiles (torch 2.13), and eager calls on other
    threads must keep their thread state."""
    torch = sys.modules.get("torch")
    check = getattr(getattr(torch, "compiler", None), "is_dynamo_compiling", None)
    if check is None:  # a torch without it (or still importing) traces nothing here
        return False
    try:
        return bool(check())
    except Exception:  # a torch half-imported by another thread
        return False


def boundary(function: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Declare a public entry point: errors leaving it name ``function``.

    ``function`` is how the message names the call: ``"topk"``, or
    ``"StreamingTopK.update"`` for a method.  Inside another boundary (one
    public function calling another) the wrapper only calls through.

    >>> @boundary("half")
    ... def half(n):
    ...     if n % 2:
    ...         raise InvalidArgumentError(f"n={n} is odd")
    ...     return n // 2
    >>> half(3)
    Traceback (most recent call last):
    axisops.errors.InvalidArgumentError: half(): n=3 is odd
    """

    def declare(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def public(*args: P.args, **kwargs: P.kwargs) -> R:
            if _calls.function is not None:
                return fn(*args, **kwargs)
            # While Dynamo traces, no thread state (the outermost name still wins).
            keeps_state = not _compiling()
            if keeps_state:
                _calls.function = function
            try:
                return fn(*args, **kwargs)
            except AxisOpsError as exc:
                name_error(exc, function)
                raise
            finally:
                if keeps_state:
                    _calls.function = None

        return public

    return declare


def current_function() -> str | None:
    """The public function this thread is running (the outermost), or None outside any.

    >>> current_function() is None
    True
    >>> boundary("peek")(current_function)()
    'peek'
    """
    return _calls.function


def call_as(function: str | None, fn: Callable[..., R], *args: Any) -> R:
    """``fn(*args)``, its errors named as if raised inside ``function`` (None: unnamed).

    For work a public function defers past its return, such as a lazy graph's
    tasks: capture :func:`current_function` when building it, run it this way.

    >>> def check(value):
    ...     raise IndexOutOfRangeError(f"index[0]={value} is out of range")
    >>> call_as("gather", check, 7)
    Traceback (most recent call last):
    axisops.errors.IndexOutOfRangeError: gather(): index[0]=7 is out of range
    """
    if function is None:
        return fn(*args)
    try:
        return fn(*args)
    except AxisOpsError as exc:
        name_error(exc, function)
        raise
