"""The request types and the rules under their former name, for code that imports them here
(the compiled core's engine and its tests): ``from axisops.validation import TopKSpec``.

The package imports them from their own modules, :mod:`axisops.requests` and
:mod:`axisops.rules`; a name read here is looked up in those, in this order, and only
the modules up to its own are imported.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_HOMES = ("axisops.requests", "axisops.rules.operations", "axisops.rules.arguments",
          "axisops.rules.types", "axisops.rules.inputs", "axisops.rules.streaming",
          "axisops.rules.torch_out", "axisops.rules.quantile")


def __getattr__(name: str) -> Any:
    if name.startswith("__"):  # the import system's questions (__path__...): not a rule
        raise AttributeError(name)
    for home in _HOMES:
        module = import_module(home)
        if name in module.__all__:
            value = globals()[name] = getattr(module, name)
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
