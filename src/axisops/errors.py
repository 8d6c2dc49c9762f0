"""The axisops error family.

Every error axisops raises derives from :class:`AxisOpsError` and also from the
standard exception a Python programmer would expect, so ordinary ``except
ValueError`` / ``except TypeError`` / ``except IndexError`` clauses keep working.

Messages name the function, the argument, the value received and what was
allowed, for example::

    topk(): k=7 is out of range for axis 1 of size 5 (need 0 <= k <= 5)
"""

from __future__ import annotations

__all__ = [
    "AxisOpsError",
    "IndexOutOfRangeError",
    "InvalidArgumentError",
    "UnsupportedDTypeError",
]


class AxisOpsError(Exception):
    """Root of every error raised by axisops."""


class InvalidArgumentError(AxisOpsError, ValueError):
    """A bad k, axis/dim, rank or shape mismatch, or an index dtype too small."""


class UnsupportedDTypeError(AxisOpsError, TypeError):
    """A dtype the operation does not support (object, string, float index...)."""


class IndexOutOfRangeError(AxisOpsError, IndexError):
    """A gather index value outside [-n, n-1]."""
