"""The request types and the rules under their former name, for code that imports them here.

The package imports them from their own modules: the specs from
:mod:`axisops.requests`, each rule from its module of :mod:`axisops.rules`.
``from axisops.validation import TopKSpec`` still works (the compiled core's
engine and its tests read them here): a name is looked up in those modules, in
this order, when it is first read, and only the modules up to its own are imported.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

#: Where the names live, the most used first.
_HOMES = (
    "axisops.requests",
    "axisops.rules.index_values",
    "axisops.rules.operations",
    "axisops.rules.arguments",
    "axisops.rules.types",
    "axisops.rules.backends",
    "axisops.rules.arrays",
    "axisops.rules.files",
    "axisops.rules.torch_out",
    "axisops.rules.stream",
)


def __getattr__(name: str) -> Any:
    if name.startswith("__"):  # the import system's questions (__path__...): not a rule
        raise AttributeError(name)
    for home in _HOMES:
        module = import_module(home)
        if name in module.__all__:
            value = globals()[name] = getattr(module, name)
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
