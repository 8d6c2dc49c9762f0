"""The quantile family for the ``"jax"`` engine; traceable under ``jit``, ``vmap`` and ``grad``.

Compiled for the CPU, the NumPy engine it is given (``host``: ``"cpu"``, the compiled
core) computes the quantiles on XLA's input buffer through a buffer callback, as the
selection family does (:mod:`axisops.kernels.jax.select`): NumPy's formulas, bit for bit.
Its ``custom_jvp`` takes the tangent at the order statistics each quantile reads,
weighted as they are interpolated (a second callback gives their indices and weights).

Compiled for any other device, or given no host engine, it runs in ``lax`` operations:
the order is the selection family's (a stable sort of exact order keys), the ranks and
weights are NumPy's plan computed on the host (constants of the program, or, for
nanquantile, a ``pure_callback`` on the counts of non-NaN elements), the elements are
taken by index (differentiable) and interpolated in ``jax.numpy`` operations in the
result dtype.  There XLA may fuse the interpolation's multiply and add into one
rounding (and on the CPU flushes subnormal numbers to zero), so the last bit of an
interpolated quantile may differ from NumPy's; the order statistics, the methods that
pick an element and the ranks are exact.

Without ``jax_enable_x64`` JAX has no 64-bit types: a result NumPy gives as float64 comes
as float32 (NumPy's value rounded to it, on the CPU), and indices are int32.

XLA's CPU threads flush subnormal numbers to zero, and run the callbacks; the host
computes on a thread of its own instead (:func:`on_our_thread`), started outside XLA
with the default floating-point environment, so that a subnormal ``q`` or quantile is
NumPy's (a thread inherits the environment of the one that starts it).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from math import prod
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ...requests import QuantileSpec, SortSpec
from ...rules.quantile import picks, weights_dtype
from ...rules.types import check_axis_length
from ..quantile import no_weights, plans
from .ops import _buffer_callback, take
from .select import index_dtype, lax_sort

__all__ = ["lax_quantile", "on_our_thread", "quantile"]

_INT32_MAX = np.iinfo(np.int32).max
_worker: list[ThreadPoolExecutor] = []
_lock = threading.Lock()


def _start_worker() -> None:
    """Start the host's thread, from a thread of the caller's (tracing: not one of XLA's)."""
    with _lock:
        if not _worker:
            pool = ThreadPoolExecutor(1, thread_name_prefix="axisops-jax-host")
            pool.submit(int).result()  # the thread exists from now on
            _worker.append(pool)


def _forget_worker() -> None:
    _worker.clear()  # a forked child has no such thread; the next trace starts one


os.register_at_fork(after_in_child=_forget_worker)


def on_our_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` on the host's own thread (the default floating-point environment),
    or here if there is none yet (outside XLA: the same environment)."""
    return _worker[0].submit(fn, *args).result() if _worker else fn(*args)


def _jax(dtype: np.dtype) -> np.dtype:
    """``dtype`` as JAX holds it (64-bit types narrowed without ``jax_enable_x64``)."""
    return np.dtype(jax.dtypes.canonicalize_dtype(dtype))


def _part_dtypes(x: jax.Array, spec: QuantileSpec) -> tuple[np.dtype, ...]:
    itype = index_dtype(spec)
    return (np.dtype(x.dtype), itype, np.dtype(x.dtype), itype, _jax(weights_dtype(spec)))


def _batch_first(a: np.ndarray, spec: QuantileSpec, batch: int) -> np.ndarray:
    """A result of a spec with ``batch`` leading dimensions (``vmap``) with those first (the
    result's own start with ``q``'s)."""
    lead = len(spec.q_shape)
    return np.moveaxis(a, tuple(range(lead, lead + batch)), tuple(range(batch)))


def _host_kernel(spec: QuantileSpec, parts: bool, engine: Any) -> Any:
    """The host function of the callback: ``engine.quantile`` on a NumPy view of the input
    buffer, written into the output buffers (batch dimensions of ``vmap`` in front)."""
    from_end = spec.axis - len(spec.shape)

    def run(_context: Any, out: Any, x: Any) -> None:
        a = np.asarray(x)
        batch = a.ndim - len(spec.shape)
        piece = spec if batch == 0 else spec.replace(shape=a.shape, axis=a.ndim + from_end)
        got = on_our_thread(engine.quantile, a, piece, parts)
        for buffer, result in zip(out, got if parts else (got,)):
            np.asarray(buffer)[...] = _batch_first(result, spec, batch)

    return run


def _host_call(x: jax.Array, spec: QuantileSpec, parts: bool, host: Any):
    dtypes = _part_dtypes(x, spec) if parts else (_jax(spec.out_dtype),)
    results = tuple(jax.ShapeDtypeStruct(spec.out_shape, d) for d in dtypes)
    got = _buffer_callback()(_host_kernel(spec, parts, host), results,
                             vmap_method="expand_dims")(x)
    return tuple(got) if parts else got[0]


def _at(a: jax.Array, indices: jax.Array, spec: QuantileSpec) -> jax.Array:
    """``a``'s elements at ``indices`` (of a part's shape) along the axis, in that shape."""
    moved = jnp.moveaxis(a, spec.axis, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    index = indices.reshape(-1, flat.shape[0]).T
    return jnp.take_along_axis(flat, index, axis=1).T.reshape(indices.shape)


@partial(jax.custom_jvp, nondiff_argnums=(1, 2))
def _host_values(x: jax.Array, spec: QuantileSpec, host: Any):
    return _host_call(x, spec, False, host)


@_host_values.defjvp
def _host_values_jvp(spec, host, primals, tangents):
    (x,), (tangent,) = primals, tangents
    values = _host_values(x, spec, host)
    _, below_at, _, above_at, weights = _host_call(x, spec, True, host)
    out = values.dtype
    low, high = _at(tangent, below_at, spec).astype(out), _at(tangent, above_at, spec).astype(out)
    if picks(spec.method, spec.q_dtype, spec.flavour):
        return values, low
    w = weights.astype(out)
    return values, low * (1 - w) + high * w


def _on_host(x: jax.Array, spec: QuantileSpec, parts: bool, host: Any):
    if parts or not jnp.issubdtype(x.dtype, jnp.inexact):
        return _host_call(x, spec, parts, host)
    return _host_values(x, spec, host)


# ---- lax operations, any device -----------------------------------------------------------


def _kinds(spec: QuantileSpec) -> tuple[np.dtype, ...]:
    """The dtypes of :func:`_host_plan`'s arrays as JAX holds them (asked where the program
    is traced: ``jax_enable_x64`` is a setting of that thread)."""
    itype = np.dtype(np.int32 if spec.n <= _INT32_MAX else np.int64)
    out = _jax(spec.out_dtype)
    return (itype, itype, _jax(weights_dtype(spec)), out, out, np.dtype(np.bool_))


def _host_plan(spec: QuantileSpec, counts: np.ndarray | None, sequences: int,
               kinds: tuple[np.dtype, ...]):
    """NumPy's plan as arrays of ``kinds`` (:func:`_kinds`): ranks, the weight, and what
    :func:`_lerp` needs of it (``gamma`` and ``1 - gamma`` cast to the result dtype, ``gamma
    >= 0.5``), per sequence, and which sequences have no number."""
    p, empty = plans(spec, counts)
    t = p.below.shape[-1]
    out = spec.out_dtype
    gamma = no_weights(spec, (1, t)) if p.gamma is None else p.gamma
    with np.errstate(all="ignore"):
        arrays = (p.below, p.above, gamma, gamma.astype(out), (1 - gamma).astype(out),
                  gamma >= 0.5)
    shaped = [np.broadcast_to(a, (sequences, t)) for a in arrays]
    empty = np.zeros(sequences, bool) if empty is None else empty
    return (*(np.ascontiguousarray(a, k) for a, k in zip(shaped, kinds)), empty)


def _plan_of(flat: jax.Array, spec: QuantileSpec):
    sequences = flat.shape[0]
    kinds = _kinds(spec)
    if not (spec.skipnan and jnp.issubdtype(flat.dtype, jnp.floating)):
        return tuple(jnp.asarray(a) for a in _host_plan(spec, None, sequences, kinds))
    counts = spec.n - jnp.sum(jnp.isnan(lax.stop_gradient(flat)), axis=-1, dtype=jnp.int32)
    shapes = [jax.ShapeDtypeStruct(a.shape, a.dtype)
              for a in _host_plan(spec, np.ones(sequences, np.int64), sequences, kinds)]

    def host(c: np.ndarray):
        return on_our_thread(_host_plan, spec, np.asarray(c, np.int64), sequences, kinds)

    return jax.pure_callback(host, tuple(shapes), counts, vmap_method="sequential")


def _lerp(below, above, t, omt, cond, spec: QuantileSpec) -> jax.Array:
    out = _jax(spec.out_dtype)
    diff = (above - below).astype(out)
    values = jnp.where(cond, above.astype(out) - diff * omt, below.astype(out) + diff * t)
    if jnp.issubdtype(out, jnp.floating):
        values = jnp.where(jnp.isnan(values), jnp.array(np.nan, out), values)
    return values


def lax_quantile(x: jax.Array, spec: QuantileSpec, parts: bool = False):
    """The quantiles (or their parts) in ``lax`` operations; any device.

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.quantile import quantile_spec
    >>> spec = quantile_spec(ArrayMeta((4,), np.dtype("float32")), 0.5, 0, "lower", False,
    ...                      False)
    >>> lax_quantile(jnp.array([4.0, 1.0, 3.0, 2.0]), spec)
    Array(2., dtype=float32)
    """
    n = spec.n
    moved = jnp.moveaxis(x, spec.axis, -1)
    sequences = prod(moved.shape[:-1])
    flat = moved.reshape(sequences, n)
    below_rank, above_rank, gamma, t, omt, cond, empty = _plan_of(flat, spec)
    order = lax_sort(flat, SortSpec((sequences, n), spec.dtype, 1, False), False, True)[1]
    below_at = jnp.take_along_axis(order, below_rank.astype(order.dtype), axis=1)
    above_at = jnp.take_along_axis(order, above_rank.astype(order.dtype), axis=1)
    below, above = take(flat, below_at, 1), take(flat, above_at, 1)

    def shaped(a: jax.Array) -> jax.Array:
        return jnp.moveaxis(a, 1, 0).reshape(spec.out_shape)

    if parts:
        return tuple(shaped(a) for a in (below, below_at, above, above_at, gamma))
    if picks(spec.method, spec.q_dtype, spec.flavour):
        return shaped(below)
    values = _lerp(below, above, t, omt, cond, spec)
    values = jnp.where(empty[:, None], jnp.array(np.nan, values.dtype), values) \
        if spec.skipnan and jnp.issubdtype(values.dtype, jnp.floating) else values
    return shaped(values)


def _empty(x: jax.Array, spec: QuantileSpec, parts: bool):
    if parts:
        return tuple(jnp.zeros(spec.out_shape, d) for d in _part_dtypes(x, spec))
    return jnp.zeros(spec.out_shape, _jax(spec.out_dtype))


def quantile(x: jax.Array, spec: QuantileSpec, parts: bool = False, host: Any = None):
    """The quantiles of a validated spec (or their parts); traceable.  Compiled for the CPU,
    the NumPy engine ``host`` (without one, and elsewhere, :func:`lax_quantile`).

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.quantile import quantile_spec
    >>> spec = quantile_spec(ArrayMeta((4,), np.dtype("float32")), 0.25, 0, "linear",
    ...                      False, False)
    >>> jax.jit(quantile, static_argnums=(1, 2))(jnp.array([4.0, 1.0, 3.0, 2.0]), spec)
    Array(1.75, dtype=float32)
    """
    check_axis_length(spec.n, spec.axis, _INT32_MAX, "a traced JAX quantile")
    _start_worker()
    if x.size == 0:
        return _empty(x, spec, parts)
    on_lax = partial(lax_quantile, spec=spec, parts=parts)
    if host is None or _buffer_callback() is None:
        return on_lax(x)
    return lax.platform_dependent(x, cpu=partial(_on_host, spec=spec, parts=parts, host=host),
                                  default=on_lax)
