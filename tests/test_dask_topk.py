"""Top-k on dask arrays: lazy, and bit-identical to the NumPy oracle for every chunking."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

dask = pytest.importorskip("dask")

import dask.array as da

import axisops
from axisops.dask.topk import topk as dask_topk
from axisops.validation import ArrayMeta, topk_spec

from oracle import assert_same_bits, ref_topk
from strategies import arrays, chunking, chunkings, special_values

pytestmark = [pytest.mark.filterwarnings("error"), pytest.mark.usefixtures("synchronous")]


@st.composite
def requests(draw):
    x = draw(arrays(min_dims=1, max_dims=3, max_side=7))
    axis = draw(st.integers(-x.ndim, x.ndim - 1))
    k = draw(st.integers(0, x.shape[axis]))
    chunks = draw(chunkings(x.shape))
    return x, axis, k, chunks, draw(st.booleans()), draw(st.integers(2, 8))


@given(requests())
def test_bit_identical_to_numpy_for_every_chunking_and_fan_in(request):
    x, axis, k, chunks, largest, split_every = request
    d = da.from_array(x, chunks=chunks)
    with dask.config.set(split_every=split_every):
        result = axisops.topk(d, k, axis, largest=largest)
    assert isinstance(result.values, da.Array) and isinstance(result.indices, da.Array)
    values, indices = dask.compute(*result)
    want = axisops.topk(x, k, axis, largest=largest, backend="numpy")
    assert_same_bits(values, want.values)
    assert_same_bits(indices, want.indices)


@given(st.data())
def test_explicit_split_every_matches_the_pure_python_oracle(data):
    x = data.draw(arrays(min_dims=1, max_dims=2, max_side=9, min_side=1))
    axis = data.draw(st.integers(0, x.ndim - 1))
    k = data.draw(st.integers(0, x.shape[axis]))
    chunks = data.draw(chunkings(x.shape))
    spec = topk_spec(ArrayMeta(x.shape, x.dtype), k, axis, True, True, None)
    values, indices = dask.compute(*dask_topk(da.from_array(x, chunks=chunks), spec,
                                              split_every=data.draw(st.integers(2, 8))))
    want_values, want_indices = ref_topk(x, k, axis, True)
    assert_same_bits(values, want_values)
    assert_same_bits(indices, want_indices)


@pytest.mark.parametrize("dtype", ["int64", "uint64", "int8", "float32", "float64"])
@pytest.mark.parametrize("chunks", [1, 3, 50])
def test_integer_extremes_and_nan_payloads_along_a_chunked_axis(dtype, chunks):
    pool = special_values(np.dtype(dtype))
    x = pool[np.random.default_rng(3).integers(0, len(pool), size=(4, 50))]
    d = da.from_array(x, chunks=(2, chunks))
    for largest in (True, False):
        for k in (1, 7, 50):
            got = dask.compute(*axisops.topk(d, k, 1, largest=largest))
            want = axisops.topk(x, k, 1, largest=largest, backend="numpy")
            assert_same_bits(got[0], want.values)
            assert_same_bits(got[1], want.indices)


def test_index_dtype_unsorted_and_top_k_spelling():
    x = np.random.default_rng(1).integers(0, 4, size=(5, 40)).astype(np.float16)
    d = da.from_array(x, chunks=(3, 7))
    r = axisops.topk(d, 6, axis=-1, index_dtype=np.int16, sorted=False)
    assert r.indices.dtype == np.int16 and r.values.dtype == np.float16
    want = axisops.topk(x, 6, backend="numpy")
    np.testing.assert_array_equal(np.sort(r.indices.compute(), -1), np.sort(want.indices, -1))
    s = axisops.top_k(d, 4, axis=0, mode="smallest")
    want = axisops.topk(x, 4, 0, largest=False, backend="numpy")
    assert_same_bits(s.values.compute(), want.values)
    assert_same_bits(s.indices.compute(), want.indices)


def test_results_are_lazy_and_shaped_before_compute():
    calls = []

    def block(b):
        calls.append(b.shape)
        return b

    x = np.arange(60, dtype=np.int32).reshape(6, 10)
    d = da.from_array(x, chunks=(2, 3)).map_blocks(block, meta=x[:0, :0])
    r = axisops.topk(d, 4, axis=1)
    assert calls == []
    assert r.values.shape == (6, 4) and r.values.chunks == ((2, 2, 2), (4,))
    assert r.indices.dtype == np.int64 and r.values.dtype == np.int32
    np.testing.assert_array_equal(r.indices.compute(), np.tile([9, 8, 7, 6], (6, 1)))
    assert len(calls) == d.npartitions


def test_input_is_not_modified():
    x = np.array([[3.0, -0.0, np.nan, 0.0, 3.0]] * 3)
    before = x.copy()
    dask.compute(*axisops.topk(da.from_array(x, chunks=(1, 2)), 5, largest=False))
    assert_same_bits(x, before)


def test_big_endian_and_bfloat16_blocks():
    x = special_values(np.dtype(">i4"))[np.arange(30) % 7]
    r = axisops.topk(da.from_array(x, chunks=4), 9)
    want = axisops.topk(x, 9, backend="numpy")
    assert r.values.dtype == np.dtype("int32") and r.values.dtype.isnative
    assert_same_bits(r.values.compute(), want.values)
    import ml_dtypes

    b = special_values(np.dtype(ml_dtypes.bfloat16))[np.arange(40) % 11]
    r = axisops.topk(da.from_array(b, chunks=3), 12, largest=False)
    assert_same_bits(r.values.compute(), axisops.topk(b, 12, largest=False, backend="numpy").values)


def test_k_larger_than_the_axis_is_refused_when_the_graph_is_built():
    d = da.zeros((3, 5), chunks=2)
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"^topk\(\): k=6 is out of range for axis 1 of size 5 \(need 0 <= k <= 5\)$"):
        axisops.topk(d, 6)


def test_unknown_chunk_sizes_are_refused_when_the_graph_is_built():
    d = da.from_array(np.arange(10), chunks=3)
    unknown = d[d > 4]
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"topk\(\): x has unknown chunk sizes along axis 0 .*compute_chunk_sizes"):
        axisops.topk(unknown, 1)
    np.testing.assert_array_equal(
        axisops.topk(unknown.compute_chunk_sizes(), 2).values.compute(), [9, 8])


@pytest.mark.parametrize("call, error, needle", [
    (lambda d: axisops.topk(d, 1, axis=2), axisops.InvalidArgumentError, "axis=2 is out of range"),
    (lambda d: axisops.topk(d, 1.0), axisops.InvalidArgumentError, "k=1.0 (float) is not an integer"),
    (lambda d: axisops.topk(d, 1, index_dtype="float32"), axisops.UnsupportedDTypeError,
     "index_dtype=float32 is not an integer type"),
    (lambda d: axisops.topk(d.astype(np.complex64), 1), axisops.UnsupportedDTypeError,
     "x has dtype complex64"),
    (lambda d: axisops.top_k(d, 1, mode="big"), axisops.InvalidArgumentError, "mode='big'"),
    (lambda d: axisops.topk(d, 1, backend="numpy"), axisops.InvalidArgumentError,
     "backend='numpy' does not take dask.array.core.Array inputs (backends for them: dask)"),
    (lambda d: axisops.topk(d.to_delayed()[0, 0], 1), axisops.InvalidArgumentError,
     "is a dask collection but not a dask array"),
])
def test_argument_errors_name_the_argument(call, error, needle):
    d = da.zeros((4, 4), chunks=2)
    with pytest.raises(error) as info:
        call(d)
    assert needle in str(info.value)


@pytest.mark.parametrize("value", [1, 0, "4", 2.0, True])
def test_bad_split_every_setting_is_refused(value):
    d = da.zeros((4, 4), chunks=2)
    with dask.config.set(split_every=value), pytest.raises(
        axisops.InvalidArgumentError, match=r"topk\(\): dask config split_every=.* is not allowed"
    ):
        axisops.topk(d, 1)


def test_split_every_as_a_dict_by_axis():
    x = np.random.default_rng(5).integers(0, 3, size=(3, 30))
    d = da.from_array(x, chunks=(3, 1))
    with dask.config.set(split_every={1: 3}):
        r = axisops.topk(d, 5)
    assert_same_bits(r.indices.compute(), axisops.topk(x, 5, backend="numpy").indices)


@given(st.integers(0, 40).flatmap(lambda n: st.tuples(st.just(n), chunking(n))))
def test_one_dimensional_full_sort_through_the_tree(case):
    n, chunks = case
    x = np.random.default_rng(n).integers(-2, 3, size=n).astype(np.int8)
    r = axisops.topk(da.from_array(x, chunks=(chunks,)), n)
    assert_same_bits(r.indices.compute(), np.argsort(-x.astype(np.int16), kind="stable"))
