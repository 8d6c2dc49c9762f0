"""A jitted top-k on the CPU runs the CPU kernels; compiled for other devices, the lax path.

What is checked: the compiled CPU program calls the host kernels (a buffer
callback, and no XLA top-k or sort), a program lowered for CUDA or TPU holds
no callback, and under ``jit``, ``vmap`` (any batch axis, nested) and the
derivatives (``grad``, ``jvp``, ``jacfwd``, ``jacrev``) the results are the
NumPy oracle's bit for bit and equal to the ``lax`` path's and to
``jax.lax.top_k``'s on tie-free data.  Speed is measured by hand, not here
(see the README).
"""

import ml_dtypes
import numpy as np
import pytest

jax = pytest.importorskip("jax")

import jax.numpy as jnp
from jax import lax

import axisops
from axisops.kernels.jax import ops as jax_ops
from axisops.validation import ArrayMeta, topk_spec

from oracle import assert_same_bits, ref_topk
from strategies import tie_heavy

BF16 = np.dtype(ml_dtypes.bfloat16)
NARROW = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "float16", "float32"]

#: A JAX without buffer_callback (before 0.7) runs the lax path on the CPU too.
HOST = jax_ops._buffer_callback() is not None


def check(got, x, k, axis, largest):
    want_v, want_i = ref_topk(x, k, axis, largest)
    assert_same_bits(np.asarray(got[0]), want_v)
    np.testing.assert_array_equal(np.asarray(got[1]), want_i)


def test_the_cpu_program_calls_the_host_kernels_and_no_xla_top_k():
    for f in (lambda a: axisops.topk(a, 3), jax.vmap(jax.grad(lambda a: axisops.topk(a, 2)
                                                              .values.sum()))):
        text = jax.jit(f).lower(jnp.zeros((4, 50))).as_text(debug_info=False)
        calls_back = "stablehlo.custom_call @xla_buffer_python_cpu_callback" in text
        assert calls_back == HOST
        assert ("top_k" not in text and "stablehlo.sort" not in text) == HOST


@pytest.mark.parametrize("platform", ["cuda", "tpu"])
def test_other_devices_get_the_lax_path(platform):
    x = jax.ShapeDtypeStruct((4, 50), jnp.float32)
    exported = jax.export.export(jax.jit(lambda a: axisops.topk(a, 3)), platforms=[platform])(x)
    text = exported.mlir_module()
    assert "callback" not in text
    assert "chlo.top_k" in text or "stablehlo.sort" in text


def test_the_host_kernels_can_be_switched_off_for_jax_export(monkeypatch):
    f = jax.jit(lambda a: axisops.topk(a, 3))
    x = tie_heavy(np.dtype("float32"), (4, 50), 1, width=None)
    with pytest.raises(NotImplementedError):  # a host callback cannot be serialized
        jax.export.export(f, platforms=["cpu"])(jax.ShapeDtypeStruct(x.shape, x.dtype))
    monkeypatch.setenv("AXISOPS_JAX_HOST_KERNELS", "0")  # read while tracing
    g = jax.jit(lambda a: axisops.topk(a, 3))
    text = g.lower(jnp.asarray(x)).as_text(debug_info=False)
    assert "callback" not in text and "top_k" in text
    exported = jax.export.export(g, platforms=["cpu", "cuda"])(
        jax.ShapeDtypeStruct(x.shape, x.dtype))
    check(exported.call(jnp.asarray(x)), x, 3, -1, True)


@pytest.mark.parametrize("name", [*NARROW, "bfloat16"])
def test_every_32_bit_dtype_is_the_oracles_in_both_directions(name):
    x = tie_heavy(BF16 if name == "bfloat16" else np.dtype(name), (5, 23), 2, width=None)
    f = jax.jit(lambda a: [axisops.topk(a, 7, largest=big) for big in (True, False)])
    for got, largest in zip(f(jnp.asarray(x)), (True, False)):
        assert got.indices.dtype == jnp.int32
        check(got, x, 7, -1, largest)


def test_64_bit_dtypes_with_x64_and_int64_indices():
    data = {n: tie_heavy(np.dtype(n), (7, 19), 3, width=None)
            for n in ("int64", "uint64", "float64")}
    with jax.enable_x64(True):
        got = jax.jit(lambda d: {n: axisops.topk(a, 5, axis=0 if n == "int64" else -1)
                                 for n, a in d.items()})({n: jnp.asarray(a) for n, a in
                                                          data.items()})
    for name, x in data.items():
        assert got[name].indices.dtype == jnp.int64
        check(got[name], x, 5, 0 if name == "int64" else -1, True)


def test_every_axis_k_zero_and_empty_inputs():
    x = tie_heavy(np.dtype("float32"), (4, 5, 6), 4, width=None)
    f = jax.jit(lambda a: [axisops.topk(a, 3, axis=ax, largest=ax != 1) for ax in (0, 1, 2)])
    for ax, got in enumerate(f(jnp.asarray(x))):
        check(got, x, 3, ax, ax != 1)
    none = jax.jit(lambda a: axisops.topk(a, 0))(jnp.asarray(x))
    assert none.values.shape == none.indices.shape == (4, 5, 0)
    empty = jax.jit(lambda a: axisops.topk(a, 2, axis=1))(jnp.zeros((0, 3)))
    assert empty.values.shape == (0, 2)


def test_unsorted_is_the_same_set():
    x = tie_heavy(np.dtype("int16"), (6, 40), 5, width=None)
    got = jax.jit(lambda a: axisops.topk(a, 9, sorted=False))(jnp.asarray(x))
    want_i = ref_topk(x, 9, -1, True)[1]
    np.testing.assert_array_equal(np.sort(np.asarray(got.indices), -1), np.sort(want_i, -1))


@pytest.mark.parametrize("in_axes", [0, 1, 2])
def test_vmap_over_any_axis_and_nested(in_axes):
    x = tie_heavy(np.dtype("float32"), (3, 4, 11), 6, width=None)
    once = jax.jit(jax.vmap(lambda a: axisops.topk(a, 2, axis=-1 if in_axes < 2 else 0),
                            in_axes=in_axes))(jnp.asarray(x))
    moved = np.moveaxis(x, in_axes, 0)
    check(once, moved, 2, -1 if in_axes < 2 else 1, True)
    twice = jax.jit(jax.vmap(jax.vmap(lambda a: axisops.topk(a, 4, largest=False))))(
        jnp.asarray(x))
    check(twice, x, 4, -1, False)


def test_derivatives_equal_the_lax_paths_and_lax_top_ks_on_tie_free_data():
    x = jnp.asarray(np.random.default_rng(7).standard_normal((4, 13)).astype(np.float32))
    v = jnp.asarray(np.random.default_rng(8).standard_normal((4, 13)).astype(np.float32))
    spec = topk_spec(ArrayMeta((13,), np.dtype("float32")), 3, 0, True, True, None)
    fronts = {
        "axisops": lambda a: axisops.topk(a, 3).values,
        "lax path": lambda a: jax.vmap(lambda r: jax_ops.lax_topk(r, spec)[0])(a),
        "lax.top_k": lambda a: lax.top_k(a, 3)[0],
    }
    transforms = {
        "grad": lambda f: jax.grad(lambda a: jnp.sum(f(a) ** 2))(x),
        "jvp": lambda f: jax.jvp(f, (x,), (v,))[1],
        "jacfwd": lambda f: jax.jacfwd(f)(x),
        "jacrev": lambda f: jax.jacrev(f)(x),
        "vmap(grad)": lambda f: jax.vmap(jax.grad(lambda r: jnp.sum(f(r[None]) ** 3)))(x),
        "hessian": lambda f: jax.hessian(lambda a: jnp.sum(f(a) ** 2))(x[:1]),
    }
    for name, transform in transforms.items():
        results = {front: np.asarray(jax.jit(lambda f=f, t=transform: t(f))())
                   for front, f in fronts.items()}
        assert_same_bits(results["axisops"], results["lax path"])
        assert_same_bits(results["axisops"], results["lax.top_k"]), name


def test_integer_inputs_differentiate_nowhere_but_trace_under_grad():
    def loss(a):
        top = axisops.topk(a.astype(jnp.int32), 2)
        return jnp.sum(top.values.astype(jnp.float32) * a[..., :2])

    g = jax.grad(loss)(jnp.array([[3.0, 1.0, 2.0]]))
    np.testing.assert_array_equal(np.asarray(g), [[3.0, 2.0, 0.0]])


# ---- gather index checks: on the index's own device ---------------------------------------


def _gather_spec(n: int, index: np.ndarray):
    from axisops.validation import gather_spec

    return gather_spec(ArrayMeta((3, n), np.dtype("float32")), 1,
                       ArrayMeta(index.shape, index.dtype))


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint16", "uint64"])
def test_gather_index_check_on_a_device_brings_back_only_the_extremes(monkeypatch, dtype):
    """Off the CPU, the check reduces the index where it is: in range, nothing else comes to
    the host; out of range, the same error as the host check, naming the first offender."""
    from axisops.engines import jax as jax_engine

    good = np.array([[0, 4, 1], [2, 3, 4]], dtype)
    spec = _gather_spec(5, good)
    copied = []  # the indices the host check received (whole, on the host)
    host_check = jax_engine.check_index_values
    monkeypatch.setattr(jax_engine, "check_index_values",
                        lambda a, *rest: copied.append(a) or host_check(a, *rest))
    jax_engine.check_gather_index(jnp.asarray(good), spec, on_cpu=False)
    assert copied == []
    bad = good.copy()
    bad[1, 1] = 5
    with pytest.raises(axisops.IndexOutOfRangeError,
                       match=r"index\[1, 1\]=5 is out of range for dim 1 of size 5"):
        jax_engine.check_gather_index(jnp.asarray(bad), _gather_spec(5, bad), on_cpu=False)
    assert len(copied) == 1
    if np.dtype(dtype).kind == "i":
        low = good.copy()
        low[0, 2] = -6
        with pytest.raises(axisops.IndexOutOfRangeError, match=r"index\[0, 2\]=-6"):
            jax_engine.check_gather_index(jnp.asarray(low), _gather_spec(5, low), on_cpu=False)
        wrapped = good.copy()
        wrapped[0, 0] = -5  # counts from the end: in range
        jax_engine.check_gather_index(jnp.asarray(wrapped), _gather_spec(5, wrapped),
                                      on_cpu=False)


def test_gather_index_check_reads_a_cpu_index_in_place(monkeypatch):
    """On the CPU the index is read where it lies (no device reduction is compiled)."""
    from axisops.engines import jax as jax_engine

    def no_reduction():
        raise AssertionError("a CPU index needs no device reduction")

    monkeypatch.setattr(jax_engine, "_bounds", no_reduction)
    index = np.array([[0, 1, 4]])
    jax_engine.check_gather_index(jnp.asarray(index), _gather_spec(5, index))
    out = axisops.gather(jnp.arange(15.0).reshape(3, 5), 1, jnp.asarray([[0, 4], [1, 2], [3, 3]]))
    np.testing.assert_array_equal(np.asarray(out), [[0.0, 4.0], [6.0, 7.0], [13.0, 13.0]])
