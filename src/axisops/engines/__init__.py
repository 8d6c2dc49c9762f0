"""Engines: one module per engine, listed here by name and imported when first used.

=========  ===========  ==================================================
name       computes on  module
=========  ===========  ==================================================
``cpu``    NumPy        :mod:`axisops.engines.cpu`: the compiled C++ core
``numpy``  NumPy        :mod:`axisops.engines.numpy`: the oracle (reference/)
``dask``   dask arrays  :mod:`axisops.engines.dask`: lazy graphs (dask/)
``torch``  torch        stock torch operations (kernels/torch/)
``triton`` torch        Triton kernels on CUDA tensors (kernels/triton/)
``jax``    JAX          jax.lax operations (kernels/jax/)
=========  ===========  ==================================================

The torch, Triton and JAX engines are the backends of :mod:`axisops.backends`,
seen as engines through :mod:`axisops.backends.legacy` until they are rewritten
as engines of their own.  This table is a lookup, not a choice: the registry
(:mod:`axisops.registry`) picks an engine for a call; code that is *given* an
engine by name (a Dask task, say) looks it up here with :func:`get`.

>>> from axisops import engines
>>> engines.get("numpy").array_type
'numpy'
"""

from __future__ import annotations

import importlib
import threading

from .base import Engine

__all__ = ["Engine", "all_engines", "default", "get", "names", "of_type", "register"]

#: name -> "module" (its ``ENGINE``) or "module:attribute".
TABLE = {
    "cpu": "axisops.engines.cpu",
    "numpy": "axisops.engines.numpy",
    "dask": "axisops.engines.dask",
    "torch": "axisops.backends.legacy:TORCH",
    "triton": "axisops.backends.legacy:TRITON",
    "jax": "axisops.backends.legacy:JAX",
}

_lock = threading.RLock()
_loaded: dict[str, Engine] = {}  # the table's engines once imported, and registered ones
_by_type: dict[str, list[Engine]] = {}


def names() -> list[str]:
    """Every engine's name, available or not."""
    with _lock:
        return sorted({*TABLE, *_loaded})


def get(name: str) -> Engine:
    """The engine called ``name`` (available or not); ``KeyError`` for an unknown name."""
    found = _loaded.get(name)
    if found is not None:
        return found
    with _lock:
        if name not in _loaded:
            module, _, attribute = TABLE[name].partition(":")
            _loaded[name] = getattr(importlib.import_module(module), attribute or "ENGINE")
        return _loaded[name]


def all_engines() -> list[Engine]:
    """Every engine, available or not, by array type, then priority."""
    found = [get(name) for name in names()]
    return sorted(found, key=lambda e: (e.array_type, -e.priority, e.name))


def of_type(array_type: str) -> list[Engine]:
    """The available engines that compute on ``array_type``, the default first."""
    found = _by_type.get(array_type)
    if found is None:
        found = [e for e in all_engines() if e.array_type == array_type and e.available()]
        _by_type[array_type] = found
    return found


def default(array_type: str = "numpy") -> Engine:
    """The default engine for ``array_type`` (for NumPy: ``"cpu"`` where the core is built)."""
    return of_type(array_type)[0]


def register(engine: Engine) -> None:
    """Add (or replace) ``engine`` under its name; the registry checks the name first."""
    with _lock:
        _loaded[engine.name] = engine
        _by_type.clear()
