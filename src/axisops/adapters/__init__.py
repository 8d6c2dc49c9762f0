"""Adapters: a user's array type turned into what an engine takes, and back.

==========  ==========================================  ===============================
adapter     arrays                                      module
==========  ==========================================  ===============================
``numpy``   ndarrays, their subclasses, array-likes     :mod:`axisops.adapters.numpy`
``dask``    ``dask.array.Array``                        :mod:`axisops.adapters.dask`
``dlpack``  CuPy (and other DLPack producers)           :mod:`axisops.adapters.dlpack`
``torch``   torch tensors                               :mod:`axisops.backends.legacy`
``jax``     JAX arrays and tracers                      :mod:`axisops.backends.legacy`
==========  ==========================================  ===============================

The registry (:mod:`axisops.registry`) picks one per call from the array's type;
see :class:`~axisops.adapters.base.Adapter`.
"""

from __future__ import annotations

#: adapter name -> "module:attribute"; ``families`` says which arrays each takes.
TABLE = {
    "numpy": "axisops.adapters.numpy:ADAPTER",
    "dask": "axisops.adapters.dask:ADAPTER",
    "dlpack": "axisops.adapters.dlpack:ADAPTER",
    "torch": "axisops.backends.legacy:TORCH_ADAPTER",
    "jax": "axisops.backends.legacy:JAX_ADAPTER",
}
