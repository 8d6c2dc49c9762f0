"""JAX's own top_k and take_along_axis tests, ported to the axisops JAX path.

Our own port (not JAX's code) of:

- ``tests/lax_test.py::testTopK`` (dtypes float32/int32/uint32, shapes (20,),
  (8, 20), (2000,), k in 1, 3, 8, axis 0 and -1, data with many equal
  values) against a stable reference, jitted and eager;
- ``tests/lax_autodiff_test.py::testTopKGrad`` (``check_grads`` of order 2,
  forward and reverse);
- ``tests/lax_vmap_test.py::testTopK`` (every batch-dimension placement of
  ``all_bdims``, against a loop over the batch);
- ``tests/lax_numpy_test.py::testTopK`` / ``testTopKErrors`` (``jnp.top_k``'s
  signature: ``axisops.top_k`` and ``axisops.topk(sorted=...)``) and
  ``testTakeAlongAxis`` / ``testTakeAlongAxisDefaultAxis``.

What had to be adapted:

- ``is_stable=False`` has no counterpart: axisops is always stable (ties to
  the lower index), so both settings are checked against the stable answer,
  exactly, where JAX checks only the values of an unstable top-k;
- JAX's samplers and ``sample_product`` (a random subset of the product) are
  replaced by seeded NumPy draws over the whole product, several requests
  traced into one program to keep compile time low; the vmap test's data
  has ties too (JAX avoids them because ``lax.top_k`` under vmap may order
  equal integers differently; axisops may not);
- ``lax_reference.top_k`` and ``ref_top_k`` are rewritten here (a stable
  argsort of the flipped array; a stable argsort of negated keys);
- the errors are the library's (``InvalidArgumentError``, a ``ValueError``,
  with its own messages); complex input is an ``UnsupportedDTypeError``
  (a ``TypeError``) where JAX raises ``ValueError``;
- ``take_along_axis(axis=None)`` (flattening) is not an axisops spelling:
  it is written as the flattened call; the ``mode="one_hot"`` variant is
  JAX-only; index dtypes are the eight integer types with ``jax_enable_x64``.
"""

import itertools
import math

import ml_dtypes
import numpy as np
import pytest

jax = pytest.importorskip("jax")

import jax.numpy as jnp
from jax.test_util import check_grads

import axisops

BF16 = np.dtype(ml_dtypes.bfloat16)


def some_equal(rng, shape, dtype):
    """Like JAX's ``rand_some_equal``: random values, about half replaced by the first."""
    x = rng.standard_normal(shape) * 100
    if np.dtype(dtype).kind == "u":
        x = np.abs(x)
    x = x.astype(dtype)
    flat = x.ravel()
    return np.where(rng.random(shape) < 0.5, flat[0], x) if flat.size else x


def reference_top_k(x, k, axis):
    """``lax_reference.top_k(is_stable=True)``: a stable argsort of the flipped array."""
    axis %= x.ndim
    flipped = np.flip(x, axis)
    order = x.shape[axis] - 1 - np.flip(np.argsort(flipped, axis=axis, kind="stable"), axis)
    indices = np.take(order, np.arange(k), axis=axis).astype(np.int32)
    return np.take_along_axis(x, indices, axis=axis), indices


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32], ids=str)
@pytest.mark.parametrize("shape", [(20,), (8, 20), (2000,)], ids=str)
def test_lax_top_k(shape, dtype):
    rng = np.random.default_rng(sum(shape))
    x = some_equal(rng, shape, dtype)
    requests = [(k, axis) for k, axis in itertools.product((1, 3, 8), (0, -1))
                if k <= x.shape[axis]]
    jitted = jax.jit(lambda a: [axisops.topk(a, k, axis) for k, axis in requests])(
        jnp.asarray(x))
    for (k, axis), got in zip(requests, jitted):
        want_v, want_i = reference_top_k(x, k, axis)
        eager = axisops.topk(jnp.asarray(x), k, axis)  # the DLPack route of concrete arrays
        for result in (got, eager):
            np.testing.assert_array_equal(np.asarray(result.values), want_v)
            np.testing.assert_array_equal(np.asarray(result.indices), want_i)
            assert result.indices.dtype == jnp.int32


def test_lax_top_k_grad():
    # Every (shape, k, axis) of JAX's product with k <= n (its draws include k > n, which it
    # lets fail), in one function so that check_grads compiles once.
    cases = [(shape, k, axis) for shape in [(4,), (5, 5), (3, 1, 4)] for k in (1, 3)
             for axis in (0, -1) if k <= shape[axis]]
    rng = np.random.default_rng(3)
    values = [rng.permutation(np.arange(math.prod(shape), dtype=np.float32)).reshape(shape)
              for shape in [(4,), (5, 5), (3, 1, 4)]]
    by_shape = {v.shape: n for n, v in enumerate(values)}

    def fun(*vs):
        return [axisops.topk(vs[by_shape[shape]], k, axis).values for shape, k, axis in cases]

    check_grads(jax.jit(fun), tuple(values), 2, ["fwd", "rev"], eps=1e-2)


def all_bdims(shape):
    """JAX's ``all_bdims`` for one argument: every place for the batch dimension."""
    return range(len(shape) + 1)


@pytest.mark.parametrize("dtype", [np.float32, BF16, np.int32, np.uint8], ids=str)
def test_lax_vmap_top_k(dtype):
    rng = np.random.default_rng(5)
    cases = [(shape, bdim, k, axis) for shape in [(4,), (3, 5, 3)] for bdim in all_bdims(shape)
             for k in (1, 3) for axis in (0, -1)]
    batches = []
    for shape, bdim, _k, _axis in cases:
        batched = list(shape)
        batched.insert(bdim, 5)
        high = math.prod(shape)  # JAX: rand_int(high=prod(shape)), so ties are possible
        batches.append(rng.integers(0, high, size=batched).astype(dtype))

    def run(arrays):
        out = []
        for (_shape, bdim, k, axis), a in zip(cases, arrays):
            op = jax.vmap(lambda v, k=k, axis=axis: tuple(axisops.topk(v, k, axis)),
                          in_axes=bdim)
            out.append(op(a))
        return out

    got = jax.jit(run)([jnp.asarray(b) for b in batches])
    for (_shape, bdim, k, axis), b, (values, indices) in zip(cases, batches, got):
        for i in range(5):
            one = np.take(b, i, axis=bdim)
            want = axisops.topk(one, k, axis, backend="numpy")
            np.testing.assert_array_equal(np.asarray(values[i]).astype(np.float64),
                                          want.values.astype(np.float64))
            np.testing.assert_array_equal(np.asarray(indices[i]), want.indices)


def ref_top_k(arr, k, axis, mode, sorted):
    """``lax_numpy_test.ref_top_k``: a stable argsort of keys negated for ``largest``."""
    if mode == "largest":
        keys = (-arr.astype(np.float64) if arr.dtype.kind == "f"
                else ~arr if arr.dtype == np.bool_
                else -arr.astype(np.int64))
    else:
        keys = arr
    order = np.argsort(keys, axis=axis, kind="stable")
    indices = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(arr, indices, axis=axis), indices


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32, np.bool_], ids=str)
@pytest.mark.parametrize("shape", [(20,), (5, 8), (3, 4, 5)], ids=str)
def test_numpy_top_k(shape, dtype):
    arg = some_equal(np.random.default_rng(len(shape)), shape, dtype)
    requests = [(axis, k, mode, sorted) for axis in range(-len(shape), len(shape))
                for k in sorted({0, 1, 3, shape[axis]}) for mode in ("largest", "smallest")
                for srt in (True, False)]

    def run(a):
        out = []
        for axis, k, mode, srt in requests:
            if srt:
                out.append(tuple(axisops.top_k(a, k, axis=axis, mode=mode)))
            else:
                out.append(tuple(axisops.topk(a, k, axis, largest=mode == "largest",
                                              sorted=False)))
        return out

    got = jax.jit(run)(jnp.asarray(arg))
    for (axis, k, mode, srt), (values, indices) in zip(requests, got):
        ref_vals, ref_idx = ref_top_k(arg, k, axis, mode, srt)
        values, indices = np.asarray(values), np.asarray(indices)
        if srt:
            np.testing.assert_array_equal(values, ref_vals)
            np.testing.assert_array_equal(indices, ref_idx)  # stable: the indices too
        else:
            np.testing.assert_array_equal(np.sort(values, axis=axis), np.sort(ref_vals, axis=axis))
        np.testing.assert_array_equal(np.take_along_axis(arg, indices, axis=axis), values)


def test_numpy_top_k_errors():
    x = jnp.arange(10)
    with pytest.raises(axisops.InvalidArgumentError, match=r"k=-1 is out of range"):
        axisops.top_k(x, -1)
    with pytest.raises(axisops.InvalidArgumentError, match=r"k=15 is out of range"):
        axisops.top_k(x, 15)
    with pytest.raises(axisops.InvalidArgumentError, match=r"axis=5 is out of range"):
        axisops.top_k(x, 2, axis=5)
    with pytest.raises(axisops.InvalidArgumentError, match=r"mode='middle' is not allowed"):
        axisops.top_k(x, 2, mode="middle")
    with pytest.raises(axisops.UnsupportedDTypeError, match=r"complex64, which top-k does not"):
        axisops.top_k(jnp.array([1 + 2j, 3 + 4j]), 1)
    with pytest.raises(axisops.InvalidArgumentError, match=r"k=15 is out of range"):
        jax.jit(lambda a: axisops.top_k(a, 15))(x)  # the same error while tracing


def _broadcastable_pairs():
    shapes = [(4,), (3, 4), (3, 1), (1, 4), (2, 3, 4), (2, 1, 4)]
    for a, b in itertools.combinations_with_replacement(shapes, 2):
        if len(a) == len(b) and all(p == q or 1 in (p, q) for p, q in zip(a, b)):
            yield a, b


@pytest.mark.parametrize("x_shape, i_shape", list(_broadcastable_pairs()), ids=str)
def test_numpy_take_along_axis(x_shape, i_shape):
    rng = np.random.default_rng(len(x_shape) * 10 + len(i_shape))
    index_dtypes = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                    np.uint64]
    cases = []
    for m, axis in enumerate([*range(len(x_shape)), -1, None]):
        shape = list(i_shape)
        if axis is None:
            shape = [math.prod(shape)]
        else:
            shape[axis] *= 3  # the axis' size need not broadcast
        n = math.prod(x_shape) if axis is None else x_shape[axis]
        # JAX draws one index dtype per case; here two per axis, across the pairs all eight.
        for dtype in (index_dtypes[(len(x_shape) + m) % 8], index_dtypes[(3 * m + 5) % 8]):
            low = 0 if np.dtype(dtype).kind == "u" else -n
            cases.append((axis, rng.integers(low, n, size=shape).astype(dtype)))
    x = rng.standard_normal(x_shape).astype(np.float32)

    def run(a, indices):
        return [axisops.take_along_axis(a.reshape(-1), i, axis=0) if axis is None
                else axisops.take_along_axis(a, i, axis=axis)
                for (axis, _), i in zip(cases, indices)]

    with jax.enable_x64(True):
        got = jax.jit(run)(jnp.asarray(x), [jnp.asarray(i) for _, i in cases])
    for (axis, i), g in zip(cases, got):
        np.testing.assert_array_equal(np.asarray(g), np.take_along_axis(x, i.astype(np.int64),
                                                                        axis=axis))


def test_numpy_take_along_axis_default_axis():
    rng = np.random.default_rng(0)
    arr = rng.standard_normal((10, 20)).astype(np.float32)
    indices = rng.integers(0, 20, size=(10, 30)).astype(np.uint8)
    f = jax.jit(lambda a, i: (axisops.take_along_axis(a, i, axis=-1),
                              axisops.take_along_axis(a, i)))
    q0, q1 = f(jnp.asarray(arr), jnp.asarray(indices))
    np.testing.assert_array_equal(np.asarray(q0), np.asarray(q1))
    np.testing.assert_array_equal(np.asarray(q0), np.take_along_axis(arr, indices, -1))
