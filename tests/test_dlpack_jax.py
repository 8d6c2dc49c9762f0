"""Concrete JAX arrays on the CPU engine, through DLPack's import and export: JAX in, JAX out.

The JAX adapter imports concrete CPU arrays as NumPy views for the NumPy engines with
the DLPack adapter's functions; the DLPack adapter itself serves CuPy, whose arrays
cannot be made here, so its tests feed it JAX arrays (DLPack producers too).  The
contract's values for these pairs (every dtype, integer extremes under x64, k in
{0, 1, n}, layouts) are tests/test_contract.py's (jax-cpu, dlpack-cpu, dlpack-numpy).
"""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

jax = pytest.importorskip("jax")

import jax.numpy as jnp

import axisops
from axisops import engines, registry
from axisops.adapters import dlpack as dlpack_backend
from axisops.adapters import jax as jax_adapter
from axisops.validation import check_narrowed_index, gather_spec, topk_spec

from oracle import assert_same_bits, ref_gather, ref_topk
from strategies import arrays, special_values

BF16 = np.dtype(ml_dtypes.bfloat16)
#: What JAX holds with jax_enable_x64 off (its default).
X32 = [np.dtype(n) for n in ("bool", "int8", "int16", "int32", "uint8", "uint16", "uint32",
                             "float16", "float32")] + [BF16]


def jax_array(a: np.ndarray):
    out = jnp.asarray(a)
    assert np.dtype(out.dtype) == a.dtype  # the test's own precondition: no silent narrowing
    return out


def as_numpy(a) -> np.ndarray:
    return np.asarray(a)


def test_concrete_cpu_arrays_run_the_cpu_engine_on_a_dlpack_view(monkeypatch):
    assert registry.choose(jnp.zeros(3)).name == "cpu"
    assert registry.choose(jnp.zeros(3), "jax").name == "jax"
    assert "dlpack" not in axisops.backends()
    seen = []
    real = dlpack_backend.import_array
    monkeypatch.setattr(jax_adapter, "import_array",
                        lambda x, *a, **k: seen.append(type(x).__name__) or real(x, *a, **k))
    axisops.topk(jnp.arange(4.0), 2)
    axisops.gather(jnp.arange(4.0), 0, jnp.array([1]))
    assert seen == ["ArrayImpl", "ArrayImpl", "ArrayImpl"]  # x, x, index


def test_results_are_jax_arrays_on_the_inputs_device_with_jaxs_index_type():
    x = special_values(np.dtype("float32"))[None]
    jx = jax_array(x)
    r = axisops.topk(jx, 4, largest=False)
    assert isinstance(r.values, jax.Array) and r.values.dtype == jx.dtype
    assert r.values.devices() == jx.devices()
    assert r.indices.dtype == jnp.int32  # JAX's index type without x64, as lax.top_k
    np.testing.assert_array_equal(as_numpy(r.indices), ref_topk(x, 4, -1, False)[1])
    with jax.enable_x64(True):
        assert axisops.topk(jx, 2).indices.dtype == jnp.int64
        assert axisops.topk(jx, 2, index_dtype=np.uint8).indices.dtype == jnp.uint8


@settings(max_examples=25)
@given(x=arrays(dtypes=X32), data=st.data())
def test_topk_matches_the_numpy_backend(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    k = data.draw(st.integers(0, x.shape[axis]))
    largest = data.draw(st.booleans())
    r = axisops.topk(jax_array(x), k, axis=axis, largest=largest)
    want = axisops.topk(x, k, axis=axis, largest=largest, backend="numpy")
    assert_same_bits(as_numpy(r.values), want.values)
    np.testing.assert_array_equal(as_numpy(r.indices), want.indices)


@pytest.mark.parametrize("kind", ["jax", "numpy", "list", "torch"])
def test_gather_index_forms(kind):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    values = np.array([[3, -4], [1, 2]], np.int32)
    forms = {"jax": jnp.asarray, "numpy": np.asarray, "list": np.ndarray.tolist,
             "torch": lambda v: pytest.importorskip("torch").from_numpy(v)}
    index = forms[kind](values)
    out = axisops.gather(jax_array(x), 1, index)
    assert isinstance(out, jax.Array)
    np.testing.assert_array_equal(as_numpy(out), ref_gather(x, 1, values))


def test_take_along_axis_broadcasts_jax_arrays():
    x = jnp.asarray([[10, 30, 20]])
    out = axisops.take_along_axis(x, jnp.asarray([[1], [2]]), axis=1)
    assert isinstance(out, jax.Array) and out.tolist() == [[30], [20]]


def test_cpu_import_is_zero_copy():
    x = jnp.arange(12.0).reshape(3, 4)
    imported = dlpack_backend.import_array(x, "x")
    assert isinstance(imported.array, np.ndarray)
    assert imported.array.ctypes.data == x.unsafe_buffer_pointer()
    assert imported.namespace is jnp


def test_bfloat16_import_falls_back_to_the_array_protocol():
    x = jnp.asarray([1.0, 3.0, 2.0], dtype=jnp.bfloat16)
    imported = dlpack_backend.import_array(x, "x")
    assert imported.array.dtype == BF16
    assert axisops.topk(x, 1).indices.tolist() == [1]


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("uint32")], ids=str)
def test_the_dlpack_adapters_accelerator_route_through_torch(monkeypatch, dtype):
    # What CUDA producers (CuPy) do: torch.from_dlpack, a torch engine, xp.from_dlpack
    # back; forced here for CPU arrays.
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(dlpack_backend, "_CPU_DEVICES", ())
    adapter, engine = dlpack_backend.ADAPTER, engines.get("torch")
    pool = special_values(dtype)
    x = pool[np.random.default_rng(3).integers(0, len(pool), size=(4, 9))]
    jx = jax_array(x)
    assert adapter.engine_type(jx) == "torch" and adapter.accepts(jx, "torch")
    a = adapter.take(jx, "x")
    assert isinstance(a, torch.Tensor)
    spec = topk_spec(adapter.meta(a, "x"), 3, -1, False, True, None)
    values, indices = adapter.compute(engine, spec, a, jx)
    assert isinstance(values, jax.Array) and indices.dtype == jnp.int32
    want_v, want_i = ref_topk(x, 3, -1, False)
    assert_same_bits(as_numpy(values), want_v)
    np.testing.assert_array_equal(as_numpy(indices), want_i)
    index = jnp.asarray(np.array([[8, -9], [0, 1]], np.int32))
    idx = adapter.index(index, a, "index")
    assert isinstance(idx, torch.Tensor)
    spec = gather_spec(adapter.meta(a, "x"), 1, adapter.meta(idx, "index"))
    out = adapter.compute(engine, spec, a, jx, idx)
    assert isinstance(out, jax.Array)
    assert_same_bits(as_numpy(out), ref_gather(x, 1, np.asarray(index)))


def test_narrowed_indices_that_cannot_hold_the_axis_are_an_error():
    like = dlpack_backend.import_array(jnp.zeros(1), "x")
    by = f"{like.kind} (for JAX, jax_enable_x64 is off)"
    int64, int32 = np.dtype("int64"), np.dtype("int32")
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"^index_dtype=int64 is narrowed to int32 by "
                             r"jaxlib.*cannot hold index 2147483652 of axis 0"):
        check_narrowed_index(int64, int32, 2**31 + 5, 0, by)
    check_narrowed_index(int64, int32, 9, 0, by)  # 8 fits: no error


def test_the_adapter_imports_for_the_engine_it_is_given_and_exports_back():
    adapter = dlpack_backend.ADAPTER
    x = jnp.arange(6.0).reshape(2, 3)
    a = adapter.take(x, "x")
    assert isinstance(a, np.ndarray) and adapter.engine_type(x) == "numpy"
    spec = _spec(a)
    values, indices = adapter.from_engine(engines.get("cpu").topk_block(a, spec), x, spec)
    assert isinstance(values, jax.Array) and values.tolist() == [[2.0], [5.0]]
    assert indices.tolist() == [[2], [2]]


def _spec(a):
    from axisops.validation import ArrayMeta

    return topk_spec(ArrayMeta(a.shape, a.dtype), 1, 1, True, True, None)


X = jnp.arange(15, dtype=jnp.float32).reshape(3, 5)
ERRORS = [
    ("tracer", lambda: jax.jit(
        lambda a: dlpack_backend.ADAPTER.take(a, "x"))(X),
     axisops.InvalidArgumentError,
     r"^x of type jax\..*Tracer cannot be exported through DLPack .*"
     r"not a tracer inside jit/vmap\)"),
    ("out of range", lambda: axisops.gather(X, 1, jnp.asarray([[0, 5]])),
     axisops.IndexOutOfRangeError,
     r"^gather\(\): index\[0, 1\]=5 is out of range for dim 1 of size 5 \(need -5 <= index <= 4\)$"),
    ("float index", lambda: axisops.gather(X, 1, jnp.zeros((1, 1))), axisops.UnsupportedDTypeError,
     r"^gather\(\): index has dtype float32, need an integer dtype"),
    ("k too big", lambda: axisops.topk(X, 6), axisops.InvalidArgumentError,
     r"^topk\(\): k=6 is out of range for axis 1 of size 5"),
    ("complex top-k", lambda: axisops.topk(X.astype(jnp.complex64), 1),
     axisops.UnsupportedDTypeError, r"x has dtype complex64, which top-k does not support"),
    ("rank", lambda: axisops.gather(X, 0, jnp.zeros(2, jnp.int32)), axisops.InvalidArgumentError,
     r"index must have the same number of dimensions as x"),
]


@pytest.mark.parametrize("call, cls, pattern", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors(call, cls, pattern):
    before = np.asarray(X).copy()
    with pytest.raises(cls, match=pattern):
        call()
    np.testing.assert_array_equal(np.asarray(X), before)
