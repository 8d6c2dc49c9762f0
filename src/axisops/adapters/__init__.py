"""Adapters: a user's array type turned into what an engine takes, and back.

==========  ==========================================  ===============================
adapter     arrays                                      module
==========  ==========================================  ===============================
``numpy``   ndarrays, their subclasses, array-likes     :mod:`axisops.adapters.numpy`
``dask``    ``dask.array.Array``                        :mod:`axisops.adapters.dask`
``dlpack``  CuPy (and other DLPack producers)           :mod:`axisops.adapters.dlpack`
``torch``   torch tensors                               :mod:`axisops.adapters.torch`
``jax``     JAX arrays and tracers                      :mod:`axisops.adapters.jax`
==========  ==========================================  ===============================

:func:`of` finds an array's adapter by its *family*, the root module of its type:
a lookup, not a choice (the registry, :mod:`axisops.registry`, picks the engine).
Adapters are imported when first looked up; the lookup is a constant to
``torch.compile`` (:mod:`axisops.tracing`).  See :class:`~axisops.adapters.base.Adapter`.

>>> import numpy as np
>>> from axisops import adapters
>>> adapters.of(np.zeros(2)).name, adapters.of([1, 2]).name
('numpy', 'numpy')
"""

from __future__ import annotations

import importlib
import threading
from typing import TYPE_CHECKING, Any

from .._forksafe import fork_safe
from ..tracing import constant_while_tracing

if TYPE_CHECKING:
    from .base import Adapter

__all__ = ["TABLE", "of"]

#: adapter name -> "module:attribute"; ``families`` says which arrays each takes.
TABLE = {
    "numpy": "axisops.adapters.numpy:ADAPTER",
    "dask": "axisops.adapters.dask:ADAPTER",
    "dlpack": "axisops.adapters.dlpack:ADAPTER",
    "torch": "axisops.adapters.torch:ADAPTER",
    "jax": "axisops.adapters.jax:ADAPTER",
}

_lock = fork_safe(threading.Lock())
_by_family: dict[str, Adapter] = {}


@constant_while_tracing
def _load() -> bool:
    """Import every adapter (each imports nothing heavy) into ``_by_family``."""
    if not _by_family:
        with _lock:
            found: dict[str, Adapter] = {}
            for path in TABLE.values():
                module, _, attribute = path.partition(":")
                adapter = getattr(importlib.import_module(module), attribute)
                found.update(dict.fromkeys(adapter.families, adapter))
            _by_family.update(found)
    return True


def of(x: Any) -> Adapter:
    """The adapter of ``x``'s family; arrays no adapter claims (lists, scalars, unknown
    types) are NumPy's."""
    _load()
    return _by_family.get(type(x).__module__.partition(".")[0]) or _by_family["numpy"]
