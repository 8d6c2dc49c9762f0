"""The ``"jax"`` engine: JAX arrays and tracers, inside and outside ``jit``/``vmap``/``grad``.

The contract in ``lax`` operations, on any device (:mod:`axisops.kernels.jax.ops`);
a top-k compiled for the CPU runs the host's CPU engine on XLA's buffers through
a buffer callback, with a ``custom_jvp`` (the choice is made when the program is
lowered, by ``lax.platform_dependent``); so do sort, kthvalue (median) and
partition (:mod:`axisops.kernels.jax.select`).  Tracers run the operations as they
are; concrete arrays run them jitted, once per request shape.  Concrete gather
index values are checked here, with the library's error (``lax`` cannot raise);
traced ones cannot be.  jax is imported when the operations first run.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from ..requests import GatherSpec, KthSpec, PartitionSpec, SortSpec, TopKSpec
from ..rules.index_values import check_index_values
from .base import Engine

__all__ = ["ENGINE", "JaxEngine"]


def _is_tracer(x: Any) -> bool:
    import jax

    return isinstance(x, jax.core.Tracer)


@cache
def _jit(op: str) -> Any:
    """``ops.<op>`` jitted, its spec (the last argument) static."""
    import jax

    from ..kernels.jax import ops

    fn = getattr(ops, op)
    return jax.jit(fn, static_argnums=fn.__code__.co_argcount - 1)


@cache
def _jit_select(op: str) -> Any:
    """``select.<op>`` jitted, its spec and flags (every argument after ``x``) static."""
    import jax

    from ..kernels.jax import select

    fn = getattr(select, op)
    return jax.jit(fn, static_argnums=tuple(range(1, fn.__code__.co_argcount)))


def _select(op: str, x: Any, *args: Any) -> Any:
    if _is_tracer(x):
        from ..kernels.jax import select

        return getattr(select, op)(x, *args)
    return _jit_select(op)(x, *args)


class JaxEngine(Engine):
    name = "jax"
    array_type = "jax"
    priority = 10
    requires = ("jax",)
    extra = "jax"
    description = "jax.lax operations (jit/vmap/grad; compiled for the CPU, the CPU engine)"

    def topk(self, x: Any, spec: TopKSpec) -> tuple[Any, Any]:
        if _is_tracer(x):
            from ..kernels.jax import ops

            return ops.topk(x, spec)
        return _jit("topk")(x, spec)

    def gather(self, x: Any, index: Any, spec: GatherSpec) -> Any:
        if not _is_tracer(index):
            check_index_values(np.asarray(index), spec)
        if _is_tracer(x) or _is_tracer(index):
            from ..kernels.jax import ops

            return ops.gather(x, index, spec)
        return _jit("gather")(x, index, spec)

    def sort(self, x: Any, spec: SortSpec, values: bool = True,
             indices: bool = True) -> tuple[Any, Any]:
        return _select("sort", x, spec, values, indices)

    def kthvalue(self, x: Any, spec: KthSpec) -> tuple[Any, Any]:
        return _select("kthvalue", x, spec)

    def partition(self, x: Any, spec: PartitionSpec, values: bool = True,
                  indices: bool = True) -> tuple[Any, Any]:
        return _select("partition", x, spec, values, indices)


ENGINE = JaxEngine()
