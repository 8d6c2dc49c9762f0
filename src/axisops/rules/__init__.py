"""Every rule on the arguments, once: one module per concern.

The fronts call these before any engine runs; what comes out is a clean value or
a validated spec (:mod:`axisops.requests`).  Each rule raises an error that
carries its data (``name``, ``value``, ``allowed`` and the rule's own fields) and a
message in the Python API's words, naming the argument, the value and what was
allowed, not the function: the public function adds its name where the user
called it (see :mod:`axisops.errors`).  Fronts with words of their own (the
command line's flags, DirectML's HRESULT texts, Ascend's status messages) write
them from the fields.  No other module raises an argument error of its own
making (``tests/test_layering.py`` checks it).

Modules: :mod:`.arguments` (integers, bools, choices, axes, ``k``, fan-ins, threads),
:mod:`.types` (dtypes, index dtypes and their range), :mod:`.operations` (each
operation's spec, and gather index values, the one data-dependent rule),
:mod:`.quantile` (the quantile family: ``q``, ``method``, the result dtype NumPy gives),
:mod:`.inputs` (arrays an adapter cannot read, ``backend=``), :mod:`.streaming` (the
file jobs, :class:`axisops.StreamingTopK`), :mod:`.torch_out` (the torch drop-ins'
tensors and ``out=``) and :mod:`.labels` (:mod:`axisops.xarray`'s objects, ``dim`` and
labelled gather indices).

This package's ``__init__`` holds only what the modules share, so a call imports
the rules it uses and no others.
"""

from __future__ import annotations

from typing import Any, NoReturn

from ..errors import InvalidArgumentError, with_fields

__all__ = ["invalid", "type_name"]


def invalid(*parts: Any, **fields: Any) -> NoReturn:
    """Raise :class:`~axisops.InvalidArgumentError` of the message ``parts`` and ``fields``."""
    raise with_fields(InvalidArgumentError(*parts), **fields)


def type_name(x: Any) -> str:
    """``module.QualName`` of ``x``'s type, for messages."""
    t = type(x)
    return f"{t.__module__}.{t.__qualname__}"
