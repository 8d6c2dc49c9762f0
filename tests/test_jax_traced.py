"""axisops inside JAX programs: jit, vmap, grad and their compositions, exact to the bit.

References: the NumPy oracle backend (``backend="numpy"``) and the plain-Python
oracle for values and indices; ``jax.lax.top_k``'s gradient on tie-free data;
explicit scatters (``np.add.at``) on tie-heavy data.  Each test traces few
programs: tracing and compiling dominate the time here.

A traced top-k compiled for the CPU runs the CPU kernels through a host
callback, and the ``lax`` path everywhere else; the tests marked with the
``path`` fixture run both on the CPU (``lax`` by replacing the dispatcher
with ``jax_ops.lax_topk``).
"""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

jax = pytest.importorskip("jax")

import jax.numpy as jnp
from jax import lax

import axisops
from axisops import registry
from axisops.adapters import jax as jax_adapter
from axisops.kernels.jax import ops as jax_ops
from axisops.validation import ArrayMeta, topk_spec

from oracle import assert_same_bits, ref_gather, ref_topk
from strategies import special_values, tie_heavy

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float16", "float32", "float64")] + [BF16]
#: Which (dtype, largest) pairs run whole top-k programs: every path (float32's fast
#: path, 32-bit keys, 64-bit coarse keys) in both directions.  The keys of every
#: dtype are checked on their own (cheap to compile).
PROGRAMS = {"float32": (True, False), "bfloat16": (True, False), "int8": (False,),
            "bool": (True,), "int64": (True,)}
#: More requests, on two dtypes (the axis and k only move data around the same paths).
MORE = [(17, 1, True), (17, 1, False), (1, 0, True), (0, 1, True)]


@pytest.fixture(params=["cpu kernels", "lax"])
def path(request, monkeypatch):
    """Which traced top-k runs: the CPU's (the default here) or the lax path of other devices."""
    if request.param == "lax":
        monkeypatch.setattr(jax_ops, "topk", lambda x, spec, host: jax_ops.lax_topk(x, spec))
    return request.param


def oracle(x, k, axis, largest):
    return axisops.topk(np.asarray(x), k, axis, largest=largest, backend="numpy")


def check(got, x, k, axis, largest):
    want = oracle(x, k, axis, largest)
    assert_same_bits(np.asarray(got.values), want.values)
    np.testing.assert_array_equal(np.asarray(got.indices), want.indices)


def every_request(arrays):
    return {name: [axisops.topk(a, 5 if big else 2, -1 if big else 0, largest=big)
                   for big in PROGRAMS[name]]
            + [axisops.topk(a, k, axis, largest=big) for k, axis, big in
               (MORE if name in ("float32", "int64") else [])]
            for name, a in arrays.items()}


def test_tracers_take_the_jax_engine_and_concrete_cpu_arrays_the_cpu_engine():
    seen = []
    jax.jit(lambda a: seen.append(registry.choose(a).name) or a)(jnp.zeros(2))
    assert seen == ["jax"] and registry.choose(jnp.zeros(2)).name == "cpu"
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"^topk\(\): backend='cpu' cannot take this jax.*Tracer"):
        jax.jit(lambda a: axisops.topk(a, 1, backend="cpu"))(jnp.zeros(2))


def test_keys_of_every_dtype_order_as_the_oracle_does():
    data = {d.name: tie_heavy(d, (3, 17), i, width=None) for i, d in enumerate(DTYPES)}
    with jax.enable_x64(True):
        keys = jax.jit(lambda d: {n: (jax_ops.order_key(a, True), jax_ops.order_key(a, False))
                                  for n, a in d.items()})({n: jnp.asarray(x)
                                                           for n, x in data.items()})
        coarse = jax.jit(lambda d: {n: jax_ops._coarse_key(a, True) for n, a in d.items()})(
            {n: jnp.asarray(data[n]) for n in ("int64", "uint64", "float64")})
    for name, x in data.items():
        for key, largest in zip(keys[name], (True, False)):
            key = np.asarray(key)
            assert key.dtype == (np.uint64 if x.dtype.itemsize == 8 else np.uint32)
            order = np.argsort(~key, axis=-1, kind="stable")  # descending keys, ties by index
            np.testing.assert_array_equal(order, ref_topk(x, 17, -1, largest)[1], err_msg=name)
            ranked = np.take_along_axis(key, order, -1)
            ties = np.take_along_axis(np.asarray(x), order, -1)
            same = ranked[:, 1:] == ranked[:, :-1]  # equal keys only for equal elements
            assert_same_bits(np.where(same, 0, 1), np.where(
                [[_equal(a, b) for a, b in zip(r[1:], r[:-1])] for r in ties], 0, 1))
    for name, key in coarse.items():  # never ordered against the exact keys
        exact = np.asarray(keys[name][0])  # uint64, sorted exactly (never via float64)
        ordered = np.take_along_axis(np.asarray(key), np.argsort(exact, axis=-1), -1)
        assert (np.diff(ordered.astype(np.int64), axis=-1) >= 0).all(), name


def _equal(a, b) -> bool:
    """Equal under the contract: NaNs equal each other, -0.0 equals +0.0."""
    if isinstance(a, (float, np.floating)) or a.dtype == BF16:
        a, b = float(a), float(b)
        return (np.isnan(a) and np.isnan(b)) or a == b
    return a == b


def test_jit_and_vmap_are_exact_and_match_the_oracle(path):
    data = {name: tie_heavy(np.dtype(BF16 if name == "bfloat16" else name), (3, 17), i,
                             width=None)
            for i, name in enumerate(PROGRAMS)}
    with jax.enable_x64(True):
        arrays = {name: jnp.asarray(x) for name, x in data.items()}
        jitted = jax.jit(every_request)(arrays)
        # vmap over the rows: the batch is a leading dimension to the index computation.
        some = {n: arrays[n] for n in ("float32", "int64")}
        rows = jax.vmap(lambda a: {n: axisops.topk(v, 5, largest=False) for n, v in a.items()})(
            some)
    for name, x in data.items():
        requests = [(5 if big else 2, -1 if big else 0, big) for big in PROGRAMS[name]]
        requests += MORE if name in ("float32", "int64") else []
        assert len(jitted[name]) == len(requests)
        for got, (k, axis, largest) in zip(jitted[name], requests):
            assert got.indices.dtype == jnp.int64
            check(got, x, k, axis, largest)
    for name, got in rows.items():
        check(got, data[name], 5, -1, False)


@jax.jit
def _four_ways(a):
    return [axisops.topk(a, 4, largest=big) for big in (True, False)]


@settings(max_examples=40)
@given(dtype=st.sampled_from([np.dtype("float32"), BF16]), data=st.data())
def test_jitted_topk_matches_the_oracle_on_drawn_values(dtype, data):
    # One shape per dtype, so the program compiles once; the values vary.
    pool = special_values(dtype)
    picks = data.draw(st.lists(st.integers(0, len(pool) - 1), min_size=36, max_size=36))
    x = pool[np.array(picks)].reshape(3, 12)
    for got, largest in zip(_four_ways(jnp.asarray(x)), (True, False)):
        check(got, x, 4, -1, largest)


def test_without_x64_indices_are_int32_like_lax_top_k():
    x = tie_heavy(np.dtype("float16"), (4, 9), 5, width=None)
    got = jax.jit(lambda a: axisops.topk(a, 3, index_dtype=np.int64))(jnp.asarray(x))
    assert got.indices.dtype == jnp.int32
    check(got, x, 3, -1, True)
    got = jax.jit(lambda a: axisops.top_k(a, 2, mode="smallest"))(jnp.asarray(x))
    check(got, x, 2, -1, False)


@pytest.mark.parametrize("case", ["plain", "nan", "signed nan", "zeros at the cut", "inf and nan"])
def test_float32_fast_path_and_its_fallbacks(case, path):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((6, 40)).astype(np.float32)
    if case == "nan":
        x[2, [5, 30]] = np.nan
    elif case == "signed nan":
        x[1, 7] = -np.float32("nan")
    elif case == "zeros at the cut":
        x[:] = -1.0
        x[:, [3, 9, 20, 33]] = [0.0, -0.0, -0.0, 0.0]
        x[:, 1] = 2.0
    elif case == "inf and nan":
        x[4, [0, 1, 2]] = [np.inf, np.nan, np.inf]
    check(jax.jit(lambda a: axisops.topk(a, 3))(jnp.asarray(x)), x, 3, -1, True)


def test_both_platform_branches_of_the_key_top_k_are_exact():
    # lax.platform_dependent picks one per device; the CPU can run both.
    x = np.concatenate([tie_heavy(np.dtype("float32"), (3, 14), 6, width=None),
                        tie_heavy(np.dtype("float32"), (3, 14), 7, width=None)], axis=1)
    for branch in (jax_ops._top_k_cpu, jax_ops._top_k_default):
        for largest in (True, False):
            idx = jax.jit(lambda a, b=branch, big=largest: b(jax_ops.order_key(a, big), 9))(
                jnp.asarray(x))
            np.testing.assert_array_equal(np.asarray(idx), ref_topk(x, 9, -1, largest)[1])


def test_64_bit_coarse_keys_fall_back_where_they_tie(path):
    # Coarse keys (int64 clipped to int32, uint64 to uint32, float64 rounded to
    # float32) tie at the cut for the first rows; the special values follow.
    rows = {
        "int64": [2**40, 5, 2**40 + 1, 2**41, -(2**40), 2**40 + 1],
        "float64": [1.0, 1.0 + 2**-40, 1.0 + 2**-41, 0.5, -0.0, 0.0],
        "uint64": [2**63, 2**40, 7, 2**63 + 1, 2**40, 2**64 - 1],
    }
    data = {}
    for name, row in rows.items():
        pool = tie_heavy(np.dtype(name), (2, 6), 4, width=None)
        data[name] = np.concatenate([np.array([row, row[::-1]], dtype=name), pool])
    with jax.enable_x64(True):
        got = jax.jit(lambda d: {n: [axisops.topk(a, 3, largest=big) for big in (True, False)]
                                 for n, a in d.items()})({n: jnp.asarray(x) for n, x in data.items()})
    for name, x in data.items():
        for result, largest in zip(got[name], (True, False)):
            check(result, x, 3, -1, largest)


def test_grad_equals_lax_top_ks_on_tie_free_data(path):
    x = jnp.asarray(np.random.default_rng(2).standard_normal((5, 30)).astype(np.float32))
    weights = jnp.arange(1.0, 5.0)

    def loss(top_k):
        return lambda a: jnp.sum(top_k(a) * weights)

    ours = jax.grad(loss(lambda a: axisops.topk(a, 4).values))(x)
    theirs = jax.grad(loss(lambda a: lax.top_k(a, 4)[0]))(x)
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


@pytest.mark.parametrize("largest", [True, False])
def test_grad_on_tie_heavy_data_scatters_into_the_tie_rules_choice(largest, path):
    x = tie_heavy(np.dtype("float32"), (4, 15), 11, width=None)
    weights = np.arange(1.0, 7.0, dtype=np.float32)
    grad = jax.jit(jax.grad(lambda a: jnp.sum(axisops.topk(a, 6, largest=largest).values
                                              * weights)))(jnp.asarray(x))
    _, idx = ref_topk(x, 6, -1, largest)
    want = np.zeros_like(x)
    np.add.at(want, (np.arange(4)[:, None], idx), np.broadcast_to(weights, idx.shape))
    np.testing.assert_array_equal(np.asarray(grad), want)


def test_compositions_of_jit_vmap_and_grad(path):
    x = np.random.default_rng(3).standard_normal((3, 4, 9)).astype(np.float32)
    x[0, 0, :3] = 1.5  # ties
    loss = lambda a: jnp.sum(axisops.topk(a, 2).values ** 2)  # noqa: E731
    per_row = jax.jit(jax.vmap(jax.vmap(jax.grad(loss))))(jnp.asarray(x))
    whole = jax.grad(lambda a: jax.vmap(jax.vmap(loss))(a).sum())(jnp.asarray(x))
    _, idx = ref_topk(x, 2, -1, True)
    want = np.zeros_like(x)
    np.put_along_axis(want, idx, 2 * np.take_along_axis(x, idx, -1), -1)
    np.testing.assert_array_equal(np.asarray(per_row), want)
    np.testing.assert_array_equal(np.asarray(whole), want)
    columns = jax.vmap(lambda c: axisops.topk(c, 3, axis=0), in_axes=2, out_axes=2)(
        jnp.asarray(x))
    check(columns, x, 3, 0, True)


def test_gather_and_take_along_axis_traced():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    index = np.array([[3, -4, 3], [0, 0, 1]], np.int8)
    f = jax.jit(lambda a, i: (axisops.gather(a, 1, i),
                              axisops.take_along_axis(a, i[:1].astype(jnp.uint16) % 4, axis=1)))
    got, taken = f(jnp.asarray(x), jnp.asarray(index))
    assert_same_bits(np.asarray(got), ref_gather(x, 1, index))
    assert_same_bits(np.asarray(taken), np.take_along_axis(x, index[:1].astype(np.int64) % 4, 1))
    grad = jax.grad(lambda a: axisops.gather(a, 1, jnp.asarray(index)).sum())(jnp.asarray(x))
    want = np.zeros_like(x)
    np.add.at(want, (np.arange(2)[:, None], index % 4), 1.0)  # repeated indices add up
    np.testing.assert_array_equal(np.asarray(grad), want)
    rows = jax.vmap(lambda r: axisops.gather(r, 0, jnp.array([2, -1])))(jnp.asarray(x))
    assert_same_bits(np.asarray(rows), x[:, [2, 3]])


def test_traced_gather_keeps_nan_payloads_and_fills_out_of_range_traced_indices(path):
    bits = np.array([[0x7F81, 0xFFC1, 0x8000, 0x3F80]], np.uint16)  # signalling NaN first
    x = bits.view(BF16)
    f = jax.jit(lambda a, i: axisops.gather(a, 1, i))
    got = f(jnp.asarray(x), jnp.array([[0, 1, 2, 9]]))  # 9 is out of range: traced, unchecked
    assert np.asarray(got).view(np.uint16).tolist() == [[0x7F81, 0xFFC1, 0x8000, 0x7FC0]]
    got = jax.jit(lambda a: axisops.topk(a, 2))(jnp.asarray(x))
    assert np.asarray(got.values).view(np.uint16).tolist() == [[0x7F81, 0xFFC1]]
    ints = jnp.array([[5, 6]], jnp.int32)
    assert f(ints, jnp.array([[-3, 2]])).tolist() == [[np.iinfo(np.int32).min] * 2]


def test_concrete_indices_are_checked_even_when_x_is_traced():
    with pytest.raises(axisops.IndexOutOfRangeError,
                       match=r"^take_along_axis\(\): indices\[0, 1\]=7 is out of range for axis 1"):
        jax.jit(lambda a: axisops.take_along_axis(a, np.array([[0, 7]]), axis=1))(jnp.zeros((2, 3)))


def test_errors_are_raised_while_tracing_with_the_librarys_messages():
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"^topk\(\): k=6 is out of range for axis 1 of size 5"):
        jax.jit(lambda a: axisops.topk(a, 6))(jnp.zeros((2, 5)))
    with pytest.raises(axisops.InvalidArgumentError, match=r"^top_k\(\): axis=2 is out of range"):
        jax.vmap(lambda a: axisops.top_k(a, 1, axis=2))(jnp.zeros((2, 5, 3)))
    with pytest.raises(axisops.UnsupportedDTypeError, match=r"^topk\(\): x has dtype complex64"):
        jax.grad(lambda a: axisops.topk(a.astype(jnp.complex64), 1).values.real.sum())(
            jnp.zeros(3))
    spec = topk_spec(ArrayMeta((2**31 + 5,), np.dtype("float32")), 1, 0, True, True,
                     None)
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"^index_dtype=int64 is narrowed to int32 by JAX"):
        jax_ops._index_dtype(spec)


def test_concrete_arrays_off_the_cpu_run_the_jitted_jax_path(monkeypatch):
    monkeypatch.setattr(jax_adapter, "_on_one_cpu", lambda x: False)
    x = tie_heavy(np.dtype("float32"), (3, 11), 9, width=None)
    check(axisops.topk(jnp.asarray(x), 4), x, 4, -1, True)
    index = np.array([[1, -1], [0, 0], [10, 3]])
    assert_same_bits(np.asarray(axisops.gather(jnp.asarray(x), 1, index)),
                     ref_gather(x, 1, index))
    with pytest.raises(axisops.IndexOutOfRangeError, match=r"^gather\(\): index\[0, 0\]=11"):
        axisops.gather(jnp.asarray(x), 1, jnp.array([[11]]))
