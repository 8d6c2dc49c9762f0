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
a lookup in :data:`TABLE`, not a choice (the registry, :mod:`axisops.registry`,
picks the engine).  An adapter is imported when its family is first looked up
(a NumPy call imports no other adapter); the lookup is a constant to
``torch.compile`` (:mod:`axisops.tracing`).  See :class:`~axisops.adapters.base.Adapter`.

>>> import numpy as np
>>> from axisops import adapters
>>> adapters.of(np.zeros(2)).name, adapters.of([1, 2]).name
('numpy', 'numpy')
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .._forksafe import IMPORTS
from ..tracing import constant_while_tracing

if TYPE_CHECKING:
    from .base import Adapter

__all__ = ["TABLE", "of"]

#: family (the root module of an array's type) -> its adapter, "module:attribute".
TABLE = {
    "numpy": "axisops.adapters.numpy:ADAPTER",
    "builtins": "axisops.adapters.numpy:ADAPTER",
    "dask": "axisops.adapters.dask:ADAPTER",
    "cupy": "axisops.adapters.dlpack:ADAPTER",
    "torch": "axisops.adapters.torch:ADAPTER",
    "jax": "axisops.adapters.jax:ADAPTER",
    "jaxlib": "axisops.adapters.jax:ADAPTER",
}

_by_family: dict[str, Adapter] = {}


@constant_while_tracing
def _load(family: str) -> bool:
    """Import ``family``'s adapter into ``_by_family`` (NumPy's for a family no adapter
    claims); nothing else is imported."""
    if family not in _by_family:
        module, _, attribute = TABLE.get(family, TABLE["numpy"]).partition(":")
        with IMPORTS:
            _by_family.setdefault(family, getattr(importlib.import_module(module), attribute))
    return True


def of(x: Any) -> Adapter:
    """The adapter of ``x``'s family; arrays no adapter claims (lists, scalars, unknown
    types) are NumPy's."""
    family = type(x).__module__.partition(".")[0]
    _load(family)
    return _by_family[family]
