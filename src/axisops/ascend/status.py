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

__all__ = ["TaskFailure", "brief", "fail", "record", "take_recent"]

_local = threading.local()


def brief(value: object) -> str:
    """``repr(value)`` on one line, cut to 60 characters, for messages.

    >>> brief(list(range(30)))
    '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16...'
    """
    text = " ".join(repr(value).split())
    return text if len(text) <= 60 else text[:57] + "..."


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
