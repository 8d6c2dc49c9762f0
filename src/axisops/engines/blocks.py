"""The NumPy engines by name: what the pieces of a call run on, and the one lookup below
the registry.

A call that the Dask engine cuts into blocks carries the name of the NumPy engine
its blocks run on (the one ``backend=`` named for them, or None for the default of
the process that runs the block); each task finds it with :func:`named` where it
runs, on a worker or here.  Nothing else below the registry looks an engine up:
adapters, kernels and merges run the engine they are given.

This module also keeps every engine loaded or registered, of every array type,
for the table of all engines (:mod:`axisops.engines`) that the registry reads.
Every NumPy engine of the package is in :data:`TABLE`, so the NumPy engines can
be listed without importing the others.

>>> named("numpy").name, named(None).array_type
('numpy', 'numpy')
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from .._forksafe import IMPORTS
from ..tracing import constant_while_tracing
from .base import Engine

__all__ = ["TABLE", "load", "loaded", "named", "of_type", "register"]

#: name -> "module" (its ``ENGINE``) or "module:attribute": the NumPy engines.
TABLE = {
    "cpu": "axisops.engines.cpu",
    "numpy": "axisops.engines.numpy",
}

#: Every engine imported or registered, by name, of any array type.
loaded: dict[str, Engine] = {}
_by_type: dict[str, list[Engine]] = {}


@constant_while_tracing
def load(name: str, path: str | None) -> bool:
    """Import the engine ``path`` names as ``name`` unless it is loaded; False when it is
    neither loaded nor given a path."""
    if name in loaded:
        return True
    with IMPORTS:
        if name not in loaded:
            if path is None:
                return False
            module, _, attribute = path.partition(":")
            loaded[name] = getattr(importlib.import_module(module), attribute or "ENGINE")
    return True


@constant_while_tracing
def _sort(array_type: str, paths: tuple[tuple[str, str], ...]) -> bool:
    if array_type not in _by_type:
        table = dict(paths)
        candidates = [loaded[n] for n in sorted({*table, *loaded}) if load(n, table.get(n))]
        found = sorted((e for e in candidates if e.array_type == array_type and e.available()),
                       key=lambda e: (-e.priority, e.name))
        with IMPORTS:
            _by_type.setdefault(array_type, found)
    return True


def of_type(array_type: str, table: Mapping[str, str] = TABLE) -> list[Engine]:
    """The available engines of ``array_type`` among ``table``'s and those registered, the
    default first (the highest priority)."""
    _sort(array_type, tuple(table.items()))
    return _by_type[array_type]


def named(name: str | None) -> Engine:
    """The NumPy engine a piece of a call runs, by the name the call carries.

    Parameters
    ----------
    name : str or None
        An engine's name, or None for this process's default NumPy engine (``"cpu"``
        where the core is built).

    Raises
    ------
    KeyError
        No engine of that name here.
    """
    if name is None:
        return of_type("numpy")[0]
    if not load(name, TABLE.get(name)):
        raise KeyError(name)
    return loaded[name]


def register(engine: Engine) -> None:
    """Add (or replace) ``engine`` under its name; the registry checks the name first."""
    with IMPORTS:
        loaded[engine.name] = engine
        _by_type.clear()
