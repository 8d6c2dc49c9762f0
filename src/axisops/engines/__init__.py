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
reads it to pick an engine for a call.  The NumPy engines are listed in
:mod:`axisops.engines.blocks` (this table includes them), where the pieces of a
call that carry an engine's name find it (:func:`axisops.engines.blocks.named`),
so a NumPy call imports no other engine.  The lookups are constants to
``torch.compile`` (:mod:`axisops.tracing`), so a compiled program's first call
may be the first lookup.

>>> from axisops import engines
>>> engines.get("numpy").array_type
'numpy'
"""

from __future__ import annotations

from . import blocks
from .base import Engine

__all__ = ["TABLE", "Engine", "all_engines", "default", "get", "names", "of_type", "register"]

#: name -> "module" (its ``ENGINE``) or "module:attribute": every engine.
TABLE = {
    **blocks.TABLE,
    "dask": "axisops.engines.dask",
    "torch": "axisops.engines.torch",
    "triton": "axisops.engines.triton",
    "jax": "axisops.engines.jax",
}

register = blocks.register


def names() -> list[str]:
    """Every engine's name, available or not."""
    return sorted({*TABLE, *blocks.loaded})


def get(name: str) -> Engine:
    """The engine called ``name`` (available or not); ``KeyError`` for an unknown name."""
    if not blocks.load(name, TABLE.get(name)):
        raise KeyError(name)
    return blocks.loaded[name]


def all_engines() -> list[Engine]:
    """Every engine, available or not, by array type, then priority."""
    found = [get(name) for name in names()]
    return sorted(found, key=lambda e: (e.array_type, -e.priority, e.name))


def of_type(array_type: str) -> list[Engine]:
    """The available engines that compute on ``array_type``, the default first."""
    return blocks.of_type(array_type, blocks.TABLE if array_type == "numpy" else TABLE)


def default(array_type: str = "numpy") -> Engine:
    """The default engine for ``array_type`` (for NumPy: ``"cpu"`` where the core is built)."""
    return of_type(array_type)[0]
