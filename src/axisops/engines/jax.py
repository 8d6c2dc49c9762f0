"""The ``"jax"`` engine: JAX arrays and tracers, inside and outside ``jit``/``vmap``/``grad``.

The contract in ``lax`` operations, on any device (:mod:`axisops.kernels.jax.ops`);
a top-k compiled for the CPU runs a NumPy engine on XLA's buffers through a
buffer callback, with a ``custom_jvp`` (the choice is made when the program is
lowered, by ``lax.platform_dependent``); so do sort, kthvalue (median) and
partition (:mod:`axisops.kernels.jax.select`) and the quantile family
(:mod:`axisops.kernels.jax.quantile`).  That NumPy engine is the
registry's default for the request (``"cpu"`` where the core is built), given to
this engine by the registry (:attr:`JaxEngine.host_type`, :meth:`JaxEngine.on_host`)
and to the kernels as an argument; the engine from the table, with no host
engine, runs the ``lax`` operations everywhere.  Tracers run the operations as they
are; concrete arrays run them jitted, once per request shape.  Concrete gather
index values are checked here, with the library's error (``lax`` cannot raise): on the
device they are on, only their extremes coming to the host (:func:`check_gather_index`);
traced ones cannot be.  jax is imported when the operations first run.
"""

from __future__ import annotations

from copy import copy
from functools import cache
from typing import Any

import numpy as np

from .._forksafe import imported
from ..requests import GatherSpec, KthSpec, PartitionSpec, QuantileSpec, SortSpec, TopKSpec
from ..rules.operations import check_index_values
from .base import Engine

__all__ = ["ENGINE", "JaxEngine", "check_gather_index"]


def _is_tracer(x: Any) -> bool:
    imported("jax")
    import jax

    return isinstance(x, jax.core.Tracer)


def _kernel(op: str) -> Any:
    imported("axisops.kernels.jax.ops", "axisops.kernels.jax.quantile",
             "axisops.kernels.jax.select")
    from ..kernels.jax import ops, quantile, select

    module = ops if op in ("topk", "gather") else quantile if op == "quantile" else select
    return getattr(module, op)


@cache
def _jit(op: str) -> Any:
    """``op``'s kernel jitted, its arguments after the arrays (the spec, the outputs wanted,
    the host engine) static."""
    imported("jax")
    import jax

    fn = _kernel(op)
    arrays = 2 if op == "gather" else 1
    return jax.jit(fn, static_argnums=tuple(range(arrays, fn.__code__.co_argcount)))


def _run(op: str, x: Any, *args: Any) -> Any:
    """``op``'s kernel: as it is on a tracer (inside the caller's trace), jitted on a
    concrete array (one compile per request)."""
    return (_kernel(op) if _is_tracer(x) else _jit(op))(x, *args)


class JaxEngine(Engine):
    name = "jax"
    array_type = "jax"
    priority = 10
    requires = ("jax",)
    extra = "jax"
    description = "jax.lax operations (jit/vmap/grad; compiled for the CPU, the CPU engine)"
    host_type = "numpy"
    host: Engine | None = None

    def on_host(self, host: Engine) -> JaxEngine:
        """This engine, its programs compiled for the CPU calling ``host`` back."""
        return _on_host(self, host)

    def topk(self, x: Any, spec: TopKSpec) -> tuple[Any, Any]:
        return _run("topk", x, spec, self.host)

    def gather(self, x: Any, index: Any, spec: GatherSpec) -> Any:
        if not _is_tracer(index):
            check_gather_index(index, spec)
            return _run("gather", x, index, spec)
        return _kernel("gather")(x, index, spec)

    def sort(self, x: Any, spec: SortSpec, values: bool = True,
             indices: bool = True) -> tuple[Any, Any]:
        return _run("sort", x, spec, values, indices, self.host)

    def kthvalue(self, x: Any, spec: KthSpec) -> tuple[Any, Any]:
        return _run("kthvalue", x, spec, self.host)

    def partition(self, x: Any, spec: PartitionSpec, values: bool = True,
                  indices: bool = True) -> tuple[Any, Any]:
        return _run("partition", x, spec, values, indices, self.host)

    def quantile(self, x: Any, spec: QuantileSpec, parts: bool = False) -> Any:
        return _run("quantile", x, spec, parts, self.host)


def _on_cpu(a: Any) -> bool:
    """Whether ``a`` is in the host's memory (a NumPy index, or a JAX array on the CPU)."""
    devices = getattr(a, "devices", None)
    return devices is None or all(device.platform == "cpu" for device in devices())


@cache
def _bounds() -> Any:
    imported("jax")
    import jax
    import jax.numpy as jnp

    return jax.jit(lambda a: (jnp.min(a), jnp.max(a)))


def check_gather_index(index: Any, spec: GatherSpec, on_cpu: bool | None = None) -> None:
    """Raise the library's error for a concrete JAX gather index with a value out of range.

    An index on the CPU is read in place (``np.asarray`` copies nothing); on another device
    its smallest and largest values are reduced there and only they come to the host, and
    the whole index only when one is out of range (to name the first offender).
    ``on_cpu``: where the index is (None: ask it)."""
    if (_on_cpu(index) if on_cpu is None else on_cpu) or index.size == 0:
        check_index_values(np.asarray(index), spec)
        return
    lo, hi = (int(v) for v in _bounds()(index))
    if lo >= -spec.n and hi <= spec.n - 1:
        return
    check_index_values(np.asarray(index), spec)


@cache
def _on_host(engine: JaxEngine, host: Engine) -> JaxEngine:
    bound = copy(engine)
    bound.host = host
    return bound


ENGINE = JaxEngine()
