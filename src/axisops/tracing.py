"""What ``torch.compile`` needs of the package: lookups it calls instead of tracing.

Dynamo traces the public functions when a torch program that calls them is
compiled.  A lookup whose answer depends on its arguments alone (names, types,
dtypes) and whose first call does what Dynamo cannot follow (imports, locks,
memo tables filled for later calls) is marked with :func:`constant_while_tracing`:
Dynamo calls it for real while it traces, outside the trace, and uses the
answer as a constant.  So a program whose first axisops call is compiled works.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["constant_while_tracing"]

F = TypeVar("F", bound=Callable[..., object])


def constant_while_tracing(fn: F) -> F:
    """``torch.compiler.assume_constant_result(fn)``, without importing torch or Dynamo.

    That function imports ``torch._dynamo`` (seconds, and Triton with it) to set
    this one mark, which Dynamo reads when it meets ``fn``; a program that never
    compiles must not pay for it, and one without torch cannot.  ``fn``'s
    arguments must be constants while tracing (names, types, dtypes: no tensors).

    >>> @constant_while_tracing
    ... def double(n):
    ...     return 2 * n
    >>> double(4), double._dynamo_marked_constant
    (8, True)
    """
    fn._dynamo_marked_constant = True  # type: ignore[attr-defined]
    return fn
