"""Engines: one module per engine, listed here by name and imported when first used.

==========  ===========  ======================================================
name        computes on  module
==========  ===========  ======================================================
``cpu``     NumPy        :mod:`axisops.engines.cpu`: the compiled C++ core
``numpy``   NumPy        :mod:`axisops.engines.numpy`: the oracle (reference/)
``dask``    dask arrays  :mod:`axisops.engines.dask`: lazy graphs (dask/)
``torch``   torch        :mod:`axisops.engines.torch`: stock torch operations
``triton``  torch        :mod:`axisops.engines.triton`: Triton kernels (kernels/triton/)
``jax``     JAX          :mod:`axisops.engines.jax`: jax.lax operations
==========  ===========  ======================================================

This table is a lookup, not a choice: the registry (:mod:`axisops.registry`)
picks an engine for a call; code that is *given* an engine by name (a Dask task,
the torch operators, the JAX host callback) looks it up here with :func:`get`.
The lookups are constants to ``torch.compile`` (:mod:`axisops.tracing`), so a
compiled program's first call may be the first lookup.

>>> from axisops import engines
>>> engines.get("numpy").array_type
'numpy'
"""

from __future__ import annotations

import importlib
import threading

from .._forksafe import fork_safe
from ..tracing import constant_while_tracing
from .base import Engine

__all__ = ["Engine", "all_engines", "default", "get", "names", "of_type", "register"]

#: name -> "module" (its ``ENGINE``) or "module:attribute".
TABLE = {
    "cpu": "axisops.engines.cpu",
    "numpy": "axisops.engines.numpy",
    "dask": "axisops.engines.dask",
    "torch": "axisops.engines.torch",
    "triton": "axisops.engines.triton",
    "jax": "axisops.engines.jax",
}

_lock = fork_safe(threading.RLock())
_loaded: dict[str, Engine] = {}  # the table's engines once imported, and registered ones
_by_type: dict[str, list[Engine]] = {}


def names() -> list[str]:
    """Every engine's name, available or not."""
    with _lock:
        return sorted({*TABLE, *_loaded})


@constant_while_tracing
def _load(name: str) -> bool:
    """Import the engine called ``name`` into ``_loaded``; False for an unknown name."""
    if name in _loaded:
        return True
    with _lock:
        if name not in _loaded:
            if name not in TABLE:
                return False
            module, _, attribute = TABLE[name].partition(":")
            _loaded[name] = getattr(importlib.import_module(module), attribute or "ENGINE")
    return True


def get(name: str) -> Engine:
    """The engine called ``name`` (available or not); ``KeyError`` for an unknown name."""
    if not _load(name):
        raise KeyError(name)
    return _loaded[name]


def all_engines() -> list[Engine]:
    """Every engine, available or not, by array type, then priority."""
    found = [get(name) for name in names()]
    return sorted(found, key=lambda e: (e.array_type, -e.priority, e.name))


@constant_while_tracing
def _sort(array_type: str) -> bool:
    if array_type not in _by_type:
        found = [e for e in all_engines() if e.array_type == array_type and e.available()]
        with _lock:
            _by_type.setdefault(array_type, found)
    return True


def of_type(array_type: str) -> list[Engine]:
    """The available engines that compute on ``array_type``, the default first."""
    _sort(array_type)
    return _by_type[array_type]


def default(array_type: str = "numpy") -> Engine:
    """The default engine for ``array_type`` (for NumPy: ``"cpu"`` where the core is built)."""
    return of_type(array_type)[0]


def register(engine: Engine) -> None:
    """Add (or replace) ``engine`` under its name; the registry checks the name first."""
    with _lock:
        _loaded[engine.name] = engine
        _by_type.clear()
