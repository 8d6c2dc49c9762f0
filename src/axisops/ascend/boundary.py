"""The boundary of every public call: no argument can make a call raise what it should not.

Each public function of ``acl``, ``acl.rt`` and ``aclnn`` is wrapped by
:func:`returns_code`, and the ``acl.util`` helpers (which raise
``InvalidArgumentError`` by design, as pyACL's raise ``ValueError``) by
:func:`raises_invalid`.  The wrapper

1. binds the arguments to the signature: a wrong number of arguments is a
   ``TypeError``, as for any Python function (and as in pyACL);
2. reads every integer argument (Python or NumPy, subclasses included; not
   bool) as a plain ``int``, so the checks that follow compare, hash and
   format plain ints whatever ``__eq__``, ``__hash__``, ``__repr__`` or
   ``__format__`` the argument's class defines.  An int subclass is read
   without running its methods; an integer whose value cannot be read (a
   NumPy subclass whose ``__index__`` raises) is refused here, by name;
3. turns any exception that still escapes into the call's failure value, with
   the internal-error code and a message (the checks handle every argument
   themselves; this is the net under them).

Messages describe values with :func:`~axisops.ascend.status.brief`, which
falls back to the type's name when a ``repr`` raises.

>>> from axisops.ascend import acl
>>> class Opaque:
...     def __repr__(self):
...         raise RuntimeError("no repr")
>>> acl.init(Opaque())
100000
>>> print(acl.get_recent_err_msg())  # doctest: +NORMALIZE_WHITESPACE
acl.init(): config_path=<Opaque object; repr() raised RuntimeError> is not an existing
file (need None, '' or a file path)
>>> class Stubborn(int):
...     def __repr__(self):
...         raise RuntimeError("no repr")
...     def __eq__(self, other):
...         raise RuntimeError("no ==")
...     __hash__ = None
>>> acl.init(), acl.rt.set_device(0)
(0, 0)
>>> ptr, ret = acl.rt.malloc(Stubborn(8), 0)  # read as the plain int 8
>>> ret, acl.rt.free(ptr), acl.finalize()
(0, 0, 0)
"""

from __future__ import annotations

import functools
import inspect
import operator
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import InvalidArgumentError
from .memory import is_int
from .status import describe, fail, show

__all__ = ["raises_invalid", "returns_code"]

F = TypeVar("F", bound=Callable[..., Any])


def _code(code: int) -> Any:
    return code


def _arguments(signature: inspect.Signature, names: tuple[str, ...], args: tuple,
               kwargs: dict) -> dict[str, Any]:
    """The arguments by name; a call that does not fit the signature raises ``TypeError``."""
    if not kwargs and len(args) == len(names):
        return dict(zip(names, args))
    return dict(signature.bind(*args, **kwargs).arguments)


def _unreadable(func: str, arguments: dict[str, Any]) -> str | None:
    """Replace each integer argument by a plain int; the message for one that cannot be read."""
    for name, value in arguments.items():
        if is_int(value) and type(value) is not int:
            try:
                arguments[name] = operator.index(value)  # int subclasses: no method runs
            except Exception as exc:
                return (f"{func}: {show(name, value)} is an integer whose value cannot be read "
                        f"(__index__ raised {describe(exc)})")
    return None


def returns_code(func: str, *, invalid: int, internal: int,
                 failure: Callable[[int], Any] = _code) -> Callable[[F], F]:
    """Wrap a status-returning call named ``func`` (e.g. ``"acl.rt.malloc()"``).

    ``invalid`` is the code of an unreadable integer argument, ``internal`` the
    code of any exception that escapes the call; ``failure`` builds the return
    value from a code (``(0, code)`` for ``malloc``, None for ``aclCreateTensor``).
    """

    def wrap(impl: F) -> F:
        signature = inspect.signature(impl)
        names = tuple(signature.parameters)

        @functools.wraps(impl)
        def call(*args: Any, **kwargs: Any) -> Any:
            arguments = _arguments(signature, names, args, kwargs)
            problem = _unreadable(func, arguments)
            if problem is not None:
                return failure(fail(invalid, problem))
            try:
                return impl(**arguments)
            except Exception as exc:
                return failure(fail(internal, f"{func}: internal error {describe(exc)}"))

        return call  # type: ignore[return-value]

    return wrap


def raises_invalid(func: str) -> Callable[[F], F]:
    """Wrap an ``acl.util`` helper named ``func``: every failure is ``InvalidArgumentError``."""

    def wrap(impl: F) -> F:
        signature = inspect.signature(impl)
        names = tuple(signature.parameters)

        @functools.wraps(impl)
        def call(*args: Any, **kwargs: Any) -> Any:
            arguments = _arguments(signature, names, args, kwargs)
            problem = _unreadable(func, arguments)
            if problem is not None:
                raise InvalidArgumentError(problem)
            try:
                return impl(**arguments)
            except InvalidArgumentError:
                raise
            except Exception as exc:
                raise InvalidArgumentError(f"{func}: internal error {describe(exc)}") from exc

        return call  # type: ignore[return-value]

    return wrap
