"""The ``"jax"`` engine's operations: the exact contract, traceable under jit, vmap and grad.

Top-k compiled for the CPU runs the NumPy engine it is given, the *host* engine
(``"cpu"``, the compiled core, as the registry gives it to the ``"jax"`` engine),
on XLA's buffers (:func:`topk`: a ``jax.experimental.buffer_callback`` that views
the input buffer in place and has the engine write into the output buffers, with
a ``custom_jvp``); compiled for any other device, or given no host engine, it runs
:func:`lax_topk`, the contract in ``lax`` operations, described next.

Top-k in ``lax``.  Every element gets an unsigned *order key* built from its bits inside
the trace (``lax.bitcast_convert_type``): floats flip all bits of negatives
and set the sign bit of positives, -0.0 takes +0.0's key and every NaN the
maximum key; signed integers flip the sign bit; ``largest=False`` takes the
bitwise NOT of the key (never a negation).  ``lax.top_k`` documents that of
two equal elements the lower-index one comes first, so top-k of keys that
order as the contract does is the contract's answer:

- element types up to 32 bits have exact 32-bit keys.  ``lax.top_k`` runs on
  them as a 32-bit *surrogate*: on the CPU a float32 whose total order (the
  order XLA's CPU TopK compares floats in, bit by bit) is the key's order,
  because only float32 has a fast CPU TopK; elsewhere the key as int32;
- float32 with ``largest=True`` on the CPU (the common case) skips building
  keys: ``lax.top_k`` of ``x`` itself is the contract's answer when no row
  holds a NaN (a row sum that is not NaN proves it) and no selected value is
  a zero (±0.0 order apart in XLA's total order); otherwise the keys decide;
- 64-bit types get a coarse 32-bit key that never orders two elements the
  wrong way round (int64 clipped to int32, float64 rounded to float32...).
  Its top-k is exact when every element whose coarse key equals the k-th one
  was selected (checked by a count); otherwise a stable sort of the exact
  64-bit keys decides.  The k results are then ordered by their exact keys.

Data-dependent fallbacks are ``lax.cond`` branches; under ``jax.vmap`` the
index computation is batched by a ``custom_vmap`` rule (the batch is just more
leading dimensions), so the branches stay branches.  Values are taken from the
input by index (``take_along_axis``), so ``jax.grad`` flows into the selected
positions; indices carry no gradient.

Gather wraps negative indices and gathers with ``take_along_axis``; traced
index values cannot be checked, and out-of-range ones give the fill value
(NaN, the integer minimum...) rather than reading outside the array.
"""

from __future__ import annotations

import os
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..._forksafe import imported
from ...requests import BOTH, GatherSpec, KthSpec, Spec, TopKSpec
from ...rules.types import check_axis_length, check_narrowed_index

__all__ = ["gather", "lax_topk", "order_key", "take", "topk"]

_U32 = np.uint32
_SIGN32 = 0x80000000
_INF_BITS = {32: 0x7F800000, 64: 0x7FF0000000000000}
_UNSIGNED = {32: np.uint32, 64: np.uint64}


def _float_key(x: jax.Array) -> jax.Array:
    """Order keys of a float32/float64 array from its bits (exact; ±0 equal; NaN top)."""
    width = jnp.dtype(x.dtype).itemsize * 8
    utype = _UNSIGNED[width]
    bits = lax.bitcast_convert_type(x, utype)
    sign = utype(1 << (width - 1))
    mag = bits & ~sign
    key = jnp.where((bits & sign) != 0, ~bits, bits | sign)
    key = jnp.where(mag == 0, sign, key)  # -0.0 and +0.0
    top = utype(np.iinfo(utype).max)
    return jnp.where(mag > utype(_INF_BITS[width]), top, key)  # every NaN, above +inf


def order_key(x: jax.Array, largest: bool) -> jax.Array:
    """Unsigned keys (32-bit, or 64-bit for 64-bit types) ordered as the contract orders ``x``.

    >>> import jax.numpy as jnp
    >>> [hex(k) for k in order_key(jnp.array([-0.0, 0.0, jnp.nan, 1.0]), True).tolist()]
    ['0x80000000', '0x80000000', '0xffffffff', '0xbf800000']
    """
    dtype = jnp.dtype(x.dtype)
    if jnp.issubdtype(dtype, jnp.floating):  # bfloat16's NumPy kind is "V", not "f"
        wide = x if dtype.itemsize >= 4 else x.astype(jnp.float32)  # float16/bfloat16: exact
        key = _float_key(wide)
    elif dtype == jnp.int64:
        key = lax.bitcast_convert_type(x, jnp.uint64) ^ jnp.uint64(1 << 63)
    elif dtype == jnp.uint64:
        key = x
    elif dtype.kind == "i":
        key = lax.bitcast_convert_type(x.astype(jnp.int32), jnp.uint32) ^ _U32(_SIGN32)
    elif dtype == jnp.bool_:  # any non-zero byte is True: XLA converts the byte as it is
        key = jnp.minimum(x.astype(jnp.uint32), _U32(1))
    else:  # unsigned up to 32 bits
        key = x.astype(jnp.uint32)
    return key if largest else ~key


def _coarse_key(x: jax.Array, largest: bool) -> jax.Array:
    """32-bit keys of a 64-bit array, monotone in the exact keys (equal keys may merge)."""
    dtype = jnp.dtype(x.dtype)
    if dtype.kind == "f":
        narrow = x.astype(jnp.float32)  # rounding is monotone; NaN stays NaN
    elif dtype.kind == "i":
        narrow = jnp.clip(x, np.iinfo(np.int32).min, np.iinfo(np.int32).max).astype(jnp.int32)
    else:
        narrow = jnp.minimum(x, np.uint64(np.iinfo(np.uint32).max)).astype(jnp.uint32)
    return order_key(narrow, largest)


# ---- moving values by their bits -------------------------------------------------------------

#: A quiet NaN's bits per float width, the fill of out-of-range gathers.
_QUIET_NAN = {2: 0x7E00, 4: 0x7FC00000, 8: 0x7FF8000000000000}
_BF16_QUIET_NAN = 0x7FC0


@partial(jax.custom_jvp, nondiff_argnums=(2,))
def take(x: jax.Array, idx: jax.Array, axis: int) -> jax.Array:
    """``take_along_axis`` (mode ``"fill"``) that moves floats as bits, differentiably.

    XLA's CPU bfloat16 operations go through float32 and quiet signalling NaNs;
    moving bits keeps every payload, as the contract asks.  The derivative is
    the ordinary one (``take_along_axis`` of the tangent), so ``jax.grad``
    scatter-adds into the taken positions.
    """
    dtype = jnp.dtype(x.dtype)
    if not jnp.issubdtype(dtype, jnp.floating):
        return jnp.take_along_axis(x, idx, axis=axis, mode="fill")
    utype = np.dtype(f"u{dtype.itemsize}")
    nan = _BF16_QUIET_NAN if dtype.name == "bfloat16" else _QUIET_NAN[dtype.itemsize]
    bits = lax.bitcast_convert_type(x, utype)
    out = jnp.take_along_axis(bits, idx, axis=axis, mode="fill", fill_value=nan)
    return lax.bitcast_convert_type(out, dtype)


@take.defjvp
def _take_jvp(axis, primals, tangents):
    x, idx = primals
    return take(x, idx, axis), jnp.take_along_axis(tangents[0], idx, axis=axis, mode="fill")


# ---- lax.top_k on 32-bit keys ---------------------------------------------------------------


def _float_surrogate(key: jax.Array) -> jax.Array:
    """float32 whose total order (XLA's CPU TopK comparison) is the order of uint32 ``key``."""
    s = lax.bitcast_convert_type(key ^ _U32(_SIGN32), jnp.int32)
    return lax.bitcast_convert_type(jnp.where(s < 0, s ^ np.int32(0x7FFFFFFF), s), jnp.float32)


def _top_k_cpu(key: jax.Array, k: int) -> jax.Array:
    return lax.top_k(_float_surrogate(key), k)[1]


def _top_k_default(key: jax.Array, k: int) -> jax.Array:
    return lax.top_k(lax.bitcast_convert_type(key ^ _U32(_SIGN32), jnp.int32), k)[1]


def _key_top_k(key: jax.Array, k: int) -> jax.Array:
    """int32 indices of the k greatest uint32 keys along the last axis, ties to the lower index."""
    return lax.platform_dependent(
        key, cpu=partial(_top_k_cpu, k=k), default=partial(_top_k_default, k=k)
    )


def _stable_order(key: jax.Array, k: int) -> jax.Array:
    """Indices of the k greatest keys by a stable sort (exact for every key width)."""
    iota = lax.broadcasted_iota(jnp.int32, key.shape, key.ndim - 1)
    return lax.sort((~key, iota), dimension=key.ndim - 1, num_keys=2)[1][..., :k]


def _raw_float32_cpu(x: jax.Array, k: int) -> jax.Array:
    values, idx = lax.top_k(x, k)
    bits = lax.bitcast_convert_type(values, jnp.uint32) & _U32(0x7FFFFFFF)
    suspect = jnp.any(jnp.isnan(jnp.sum(x, axis=-1))) | jnp.any(bits == 0)
    return lax.cond(suspect, lambda: _key_top_k(order_key(x, True), k), lambda: idx)


def _float32_largest(x: jax.Array, k: int) -> jax.Array:
    return lax.platform_dependent(
        x,
        cpu=partial(_raw_float32_cpu, k=k),
        default=lambda x: _key_top_k(order_key(x, True), k),
    )


def _wide_top_k(x: jax.Array, k: int, largest: bool) -> jax.Array:
    """64-bit element types: coarse keys first, exact keys where the coarse ones tie."""
    coarse = _coarse_key(x, largest)
    idx = _key_top_k(coarse, k)
    chosen = jnp.take_along_axis(coarse, idx, axis=-1)
    kth = chosen[..., -1:]
    complete = jnp.sum(coarse == kth, axis=-1) == jnp.sum(chosen == kth, axis=-1)
    key = order_key(x, largest)
    idx = lax.cond(jnp.all(complete), lambda: idx, lambda: _stable_order(key, k))
    exact = jnp.take_along_axis(key, idx, axis=-1)
    return lax.sort((~exact, idx), dimension=idx.ndim - 1, num_keys=2)[1]


def _indices(x: jax.Array, k: int, largest: bool) -> jax.Array:
    """int32 indices of the contract's top-k along the last axis of ``x``."""
    dtype = jnp.dtype(x.dtype)
    if dtype.itemsize == 8:
        return _wide_top_k(x, k, largest)
    if dtype == jnp.float32 and largest:
        return _float32_largest(x, k)
    return _key_top_k(order_key(x, largest), k)


def _batched_indices(k: int, largest: bool):
    """:func:`_indices` with a vmap rule: batch dimensions are leading dimensions."""

    @jax.custom_batching.custom_vmap
    def indices(x):
        return _indices(x, k, largest)

    @indices.def_vmap
    def _rule(axis_size, in_batched, x):
        return indices(x), True

    return indices


def _index_dtype(spec: TopKSpec) -> np.dtype:
    """The index dtype JAX can hold (without x64, 64-bit types narrow to 32 bits)."""
    got = np.dtype(jax.dtypes.canonicalize_dtype(spec.index_dtype))
    check_narrowed_index(spec.index_dtype, got, spec.n, spec.axis, "JAX (jax_enable_x64 is off)")
    return got


def _check_traceable(spec: TopKSpec) -> np.dtype:
    """The index dtype of a traced top-k, or the library's error for one that cannot be."""
    index_dtype = _index_dtype(spec)
    check_axis_length(spec.n, spec.axis, np.iinfo(np.int32).max, "a traced JAX top-k")
    return index_dtype


def _empty_topk(x: jax.Array, spec: TopKSpec, index_dtype: np.dtype):
    moved = jnp.moveaxis(x, spec.axis, -1)
    values = moved[..., : spec.k]
    indices = jnp.zeros(values.shape, index_dtype)
    return jnp.moveaxis(values, -1, spec.axis), jnp.moveaxis(indices, -1, spec.axis)


def lax_topk(x: jax.Array, spec: TopKSpec) -> tuple[jax.Array, jax.Array]:
    """``(values, indices)`` of the contract in ``lax`` operations, for any device; traceable.

    :func:`topk` runs this on every device but the CPU.

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import topk_spec
    >>> spec = topk_spec(ArrayMeta((5,), np.dtype("float32")), 3, 0, True, True, None)
    >>> jax.jit(lax_topk, static_argnums=1)(jnp.array([1.0, 3.0, 3.0, jnp.nan, -1.0]), spec)[1]
    Array([3, 1, 2], dtype=int32)
    """
    index_dtype = _check_traceable(spec)
    if spec.k == 0 or x.size == 0:
        return _empty_topk(x, spec, index_dtype)
    moved = jnp.moveaxis(x, spec.axis, -1)
    idx = _batched_indices(spec.k, spec.largest)(lax.stop_gradient(moved))
    values = take(moved, idx, -1)
    indices = idx.astype(index_dtype)
    return jnp.moveaxis(values, -1, spec.axis), jnp.moveaxis(indices, -1, spec.axis)


# ---- the CPU: the host kernels through a buffer callback ------------------------------------


#: Set to "0" to trace the lax path for the CPU too: a program that calls back into
#: Python cannot be serialized, so ``jax.export`` needs it.
HOST_KERNELS_VARIABLE = "AXISOPS_JAX_HOST_KERNELS"


def _buffer_callback() -> Any:
    """``jax.experimental.buffer_callback.buffer_callback``, or None in a JAX without it
    (or with the host kernels switched off by ``AXISOPS_JAX_HOST_KERNELS=0``)."""
    if os.environ.get(HOST_KERNELS_VARIABLE, "1") == "0":
        return None
    try:
        imported("jax.experimental.buffer_callback")
        from jax.experimental.buffer_callback import buffer_callback
    except ImportError:  # JAX before 0.7: the lax path everywhere
        return None
    return buffer_callback


def _host_kernel(spec: Spec, want: tuple[bool, bool], engine: Any) -> Any:
    """The host function of a callback: the NumPy ``engine`` on a NumPy view of the input
    buffer, its results in the output buffers XLA hands over (values, indices: those
    ``want`` asks for), top-k's written there in place.  Under ``vmap`` the batch arrives
    as leading dimensions: the spec is the validated one with those in front (the axis
    counted from the end)."""
    from_end = spec.axis - len(spec.shape)

    def run(_context: Any, out: Any, x: Any) -> None:
        a = np.asarray(x)
        piece = spec if a.shape == spec.shape else spec.replace(
            shape=a.shape, axis=a.ndim + from_end)
        buffers = [np.asarray(b) for b in out]
        if isinstance(spec, TopKSpec):
            engine.topk_into(a, piece, *buffers)
            return
        got = [r for wanted, r in zip(want, piece.compute(engine, a, want=want)) if wanted]
        for buffer, result in zip(buffers, got):
            buffer[...] = result

    return run


def _host_call(x: jax.Array, spec: Spec, want: tuple[bool, bool], itype: np.dtype, host: Any):
    results = tuple(jax.ShapeDtypeStruct(spec.out_shape, dtype)
                    for wanted, dtype in zip(want, (x.dtype, itype)) if wanted)
    kernel = _host_kernel(spec, want, host)
    got = iter(_buffer_callback()(kernel, results, vmap_method="expand_dims")(x))
    return tuple(next(got) if wanted else None for wanted in want)


def _tangent_at(tangent: jax.Array, indices: jax.Array, spec: Spec) -> jax.Array:
    """The tangent of values taken at ``indices``: the input's tangent at the same place."""
    if isinstance(spec, KthSpec):
        full = indices.reshape(spec.shape[:spec.axis] + (1,) + spec.shape[spec.axis + 1:])
        return jnp.take_along_axis(tangent, full, axis=spec.axis).reshape(spec.out_shape)
    return jnp.take_along_axis(tangent, indices, axis=spec.axis)


@partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3, 4))
def _host(x: jax.Array, spec: Spec, want: tuple[bool, bool], itype: np.dtype, host: Any):
    """The host kernels' result, with the derivative of :func:`take` at its indices."""
    return _host_call(x, spec, want, itype, host)


@_host.defjvp
def _host_jvp(spec, want, itype, host, primals, tangents):
    # Through _host itself, so that a derivative of this one has a rule too.
    values, indices = _host(primals[0], spec, BOTH, itype, host)
    tangent = _tangent_at(tangents[0], indices, spec)
    float0 = np.zeros(indices.shape, jax.dtypes.float0)
    return ((values if want[0] else None, indices if want[1] else None),
            (tangent if want[0] else None, float0 if want[1] else None))


def on_host(x: jax.Array, spec: Spec, want: tuple[bool, bool], itype: np.dtype, host: Any):
    """``spec``'s outputs (those ``want`` asks for, ``itype`` indices) on the NumPy engine
    ``host``, through a buffer callback: a program compiled for the CPU."""
    if want[0] and jnp.issubdtype(x.dtype, jnp.inexact):
        return _host(x, spec, want, itype, host)
    return _host_call(x, spec, want, itype, host)  # nothing to differentiate


def topk(x: jax.Array, spec: TopKSpec, host: Any = None) -> tuple[jax.Array, jax.Array]:
    """``(values, indices)`` of the contract for a validated spec; traceable.

    Compiled for the CPU, the NumPy engine ``host`` runs it (``"cpu"``, the
    compiled core, as the registry gives it, through
    ``jax.experimental.buffer_callback``: the input is read in place and the
    outputs written in place, no copy); for any other device, or without a
    ``host``, :func:`lax_topk`.
    ``lax.platform_dependent`` makes the choice when the program is lowered.
    Both give the same bits (with ``sorted=True``), under ``jit``, ``vmap``
    (the batch is more leading dimensions to the kernels) and ``grad`` (the
    tangent of the values is the tangent at the indices).  A JAX without
    ``buffer_callback`` runs :func:`lax_topk` everywhere, and so does a trace
    made with ``AXISOPS_JAX_HOST_KERNELS=0`` in the environment: ``jax.export``
    cannot serialize a program that calls back into Python.

    >>> from axisops.engines.blocks import named
    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import topk_spec
    >>> spec = topk_spec(ArrayMeta((5,), np.dtype("float32")), 3, 0, True, True, None)
    >>> x = jnp.array([1.0, 3.0, 3.0, jnp.nan, -1.0])
    >>> jax.jit(topk, static_argnums=(1, 2))(x, spec, named("numpy"))[1]
    Array([3, 1, 2], dtype=int32)
    """
    index_dtype = _check_traceable(spec)
    if spec.k == 0 or x.size == 0:
        return _empty_topk(x, spec, index_dtype)
    if host is None or _buffer_callback() is None:
        return lax_topk(x, spec)
    return lax.platform_dependent(
        x,
        cpu=partial(on_host, spec=spec, want=BOTH, itype=index_dtype, host=host),
        default=partial(lax_topk, spec=spec),
    )


def gather(x: jax.Array, index: jax.Array, spec: GatherSpec) -> jax.Array:
    """``torch.gather`` semantics for a validated spec; traceable.

    Index values must already be checked where they are concrete; traced
    out-of-range values give ``take_along_axis``'s fill value.

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import gather_spec
    >>> x, i = jnp.array([[1, 2, 3], [4, 5, 6]]), jnp.array([[2, -3], [0, 1]])
    >>> m = lambda a: ArrayMeta(a.shape, np.dtype(a.dtype))
    >>> gather(x, i, gather_spec(m(x), 1, m(i))).tolist()
    [[3, 1], [4, 5]]
    """
    n = spec.n
    index = jnp.asarray(index)
    itype = np.dtype(index.dtype)
    signed = np.dtype(jax.dtypes.canonicalize_dtype(np.int64))  # int32 without x64
    if itype.kind == "u":
        # No negatives to wrap; any value >= n becomes n (out of range) before narrowing.
        if n <= np.iinfo(itype).max:
            index = jnp.minimum(index, itype.type(n))
        wide = index.astype(signed)
    else:
        wide = index.astype(signed) if itype.itemsize < signed.itemsize else index
        inside = (wide >= -n) & (wide < n)
        wide = jnp.where(inside, jnp.where(wide < 0, wide + n, wide), n)
    extent = tuple(
        slice(None) if d == spec.dim else slice(0, s) for d, s in enumerate(spec.index_shape)
    )
    return take(x[extent], wide, spec.dim)
