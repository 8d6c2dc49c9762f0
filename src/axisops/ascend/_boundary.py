"""The boundary of every public call: arguments read safely, failures reported as CANN does.

Each public function of ``acl``, ``acl.rt`` and ``aclnn`` is wrapped by
:func:`returns_code` (through :data:`acl_call` / :data:`aclnn_call`), and the
``acl.util`` helpers (which raise ``InvalidArgumentError`` by design, as
pyACL's raise ``ValueError``) by :func:`raises_invalid`.  The wrapper

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

A failing call records one message (which rule, which argument, which value)
before it returns its code: :func:`fail`.  As in CANN the message belongs to
the calling thread, and reading it (:func:`take_recent`, which is
``aclGetRecentErrMsg``) clears it; only the latest failure is kept.  Messages
describe values with :func:`brief` and :func:`show`, which never run code that
could raise: a ``repr`` that raises is replaced by the type's name.

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
>>> fail(100000, "acl.rt.malloc(): size=0 is not positive"), take_recent(), take_recent()
(100000, 'acl.rt.malloc(): size=0 is not positive', None)
"""

from __future__ import annotations

import functools
import inspect
import operator
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ..errors import InvalidArgumentError
from ._constants import (
    ACL_ERROR_INTERNAL_ERROR,
    ACL_ERROR_INVALID_PARAM,
    ACLNN_ERR_INNER,
    ACLNN_ERR_PARAM_INVALID,
)

F = TypeVar("F", bound=Callable[..., Any])

_local = threading.local()
# type.__name__'s own getter: a metaclass cannot intercept it.
_TYPE_NAME = type.__dict__["__name__"]


# --- reading and describing arguments without running their code ---------------------------
def is_int(value: Any) -> bool:
    """True for Python and NumPy integers, False for bool and everything else.

    Decided by the value's type alone, so no code of the value's class runs.

    >>> is_int(3), is_int(np.uint8(3)), is_int(True), is_int(3.0)
    (True, True, False, False)
    """
    kind = type(value)
    return issubclass(kind, (int, np.integer)) and not issubclass(kind, (bool, np.bool_))


def is_null(value: Any) -> bool:
    """True for C's NULL as Python spells it: None or the integer 0."""
    return value is None or (is_int(value) and value == 0)


def type_name(value: object) -> str:
    """The name of ``value``'s type, read without running code its class defines.

    >>> type_name(3.5), type_name(None)
    ('float', 'NoneType')
    """
    return str.__str__(_TYPE_NAME.__get__(type(value)))


def brief(value: object) -> str:
    """``repr(value)`` on one line, cut to 60 characters, for messages.

    A ``repr`` that raises (or returns something odd) is replaced by the type's
    name, so building a message never fails.

    >>> brief(list(range(30)))
    '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16...'
    >>> class Odd:
    ...     def __repr__(self):
    ...         raise RuntimeError("no")
    >>> brief(Odd())
    '<Odd object; repr() raised RuntimeError>'
    """
    try:
        text = str.__str__(repr(value))  # a plain str even if __repr__ returned a subclass
    except Exception as exc:
        return f"<{type_name(value)} object; repr() raised {type_name(exc)}>"
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def show(name: str, value: object) -> str:
    """``"name=<brief value> (type)"``, the way messages name an argument.

    >>> show("dim", 2.5)
    'dim=2.5 (float)'
    """
    return f"{name}={brief(value)} ({type_name(value)})"


def describe(exc: BaseException) -> str:
    """``"RuntimeError: boom"`` for messages, safe when the exception's ``str`` raises.

    >>> describe(ValueError("bad  value"))
    'ValueError: bad value'
    """
    try:
        text = " ".join(str.__str__(str(exc)).split())
    except Exception:
        text = "<str() raised>"
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"{type_name(exc)}: {text}" if text else type_name(exc)


# --- the recent error message -----------------------------------------------------------------
def record(message: str) -> None:
    """Make ``message`` this thread's most recent error message."""
    _local.message = message


def fail(code: int, message: str) -> int:
    """Record ``message`` and return ``code``, for ``return fail(...)``."""
    record(message)
    return code


def take_recent() -> str | None:
    """This thread's latest error message, or None; reading it clears it."""
    message = getattr(_local, "message", None)
    _local.message = None
    return message


class Failure(Exception):
    """A broken phase-1 rule, or queued work that failed: the status code and the message."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message


# --- the wrappers ----------------------------------------------------------------------------
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


def _guard(func: str, refuse: Callable[[str], Any], crash: Callable[[str, Exception], Any],
           passes: tuple[type[Exception], ...] = ()) -> Callable[[F], F]:
    """The wrapper of both kinds: ``refuse(message)`` for an unreadable integer argument,
    ``crash(message, exc)`` for an exception that escapes, except those in ``passes``."""

    def wrap(impl: F) -> F:
        signature = inspect.signature(impl)
        names = tuple(signature.parameters)

        @functools.wraps(impl)
        def call(*args: Any, **kwargs: Any) -> Any:
            arguments = _arguments(signature, names, args, kwargs)
            problem = _unreadable(func, arguments)
            if problem is not None:
                return refuse(problem)
            try:
                return impl(**arguments)
            except passes:
                raise
            except Exception as exc:
                return crash(f"{func}: internal error {describe(exc)}", exc)

        return call  # type: ignore[return-value]

    return wrap


def _code(code: int) -> Any:
    return code


def returns_code(func: str, *, invalid: int, internal: int,
                 failure: Callable[[int], Any] = _code) -> Callable[[F], F]:
    """Wrap a status-returning call named ``func`` (e.g. ``"acl.rt.malloc()"``).

    ``invalid`` is the code of an unreadable integer argument, ``internal`` the
    code of any exception that escapes the call; ``failure`` builds the return
    value from a code (``(0, code)`` for ``malloc``, None for ``aclCreateTensor``).
    """
    return _guard(func, lambda message: failure(fail(invalid, message)),
                  lambda message, exc: failure(fail(internal, message)))


def raises_invalid(func: str) -> Callable[[F], F]:
    """Wrap an ``acl.util`` helper named ``func``: every failure is ``InvalidArgumentError``."""

    def refuse(message: str) -> Any:
        raise InvalidArgumentError(message)

    def crash(message: str, exc: Exception) -> Any:
        raise InvalidArgumentError(message) from exc

    return _guard(func, refuse, crash, passes=(InvalidArgumentError,))


#: The boundary of an ``acl`` / ``acl.rt`` call: whatever escapes is ACL_ERROR_INTERNAL_ERROR.
acl_call = functools.partial(returns_code, invalid=ACL_ERROR_INVALID_PARAM,
                             internal=ACL_ERROR_INTERNAL_ERROR)
#: The boundary of an ``aclnn`` call: whatever escapes is ACLNN_ERR_INNER.
aclnn_call = functools.partial(returns_code, invalid=ACLNN_ERR_PARAM_INVALID,
                               internal=ACLNN_ERR_INNER)
