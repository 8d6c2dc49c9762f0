"""The recent error message: what ``aclGetRecentErrMsg`` returns.

Every failing call records one message (which rule, which argument, which
value) before it returns its code.  As in CANN the message belongs to the
calling thread, and reading it clears it; only the latest failure is kept.

>>> from axisops.ascend import status
>>> status.fail(100000, "acl.rt.malloc(): size=0 is not positive")
100000
>>> status.take_recent()
'acl.rt.malloc(): size=0 is not positive'
>>> status.take_recent() is None
True
"""

from __future__ import annotations

import threading

__all__ = ["TaskFailure", "brief", "describe", "fail", "record", "show", "take_recent", "type_name"]

_local = threading.local()
# type.__name__'s own getter: a metaclass cannot intercept it.
_TYPE_NAME = type.__dict__["__name__"]


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


class TaskFailure(Exception):
    """Queued work that failed when its stream ran: the status code and the message."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message
