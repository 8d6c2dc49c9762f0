"""Gather and take_along_axis on dask arrays, along chunked axes, NumPy or dask indices."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

dask = pytest.importorskip("dask")

import dask.array as da

import axisops
from axisops.dask.gather import gather as dask_gather
from axisops.validation import ArrayMeta, gather_spec

from oracle import assert_same_bits, ref_gather
from strategies import GATHER_DTYPES, arrays, chunkings

pytestmark = [pytest.mark.filterwarnings("error"), pytest.mark.usefixtures("synchronous")]


@st.composite
def requests(draw):
    x = draw(arrays(dtypes=GATHER_DTYPES, min_dims=1, max_dims=3, max_side=6))
    dim = draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[dim]
    shape = [draw(st.integers(0, s)) for s in x.shape]
    shape[dim] = draw(st.integers(0, 8))
    if n == 0:
        shape[dim] = 0
    size = int(np.prod(shape))
    values = draw(st.lists(st.integers(-n, n - 1), min_size=size, max_size=size)) if n else []
    dtype = np.dtype(draw(st.sampled_from(["int64", "int32", "uint8", "int8"])))
    if dtype.kind == "u":
        values = [v % n for v in values]
    index = np.array(values, dtype=dtype).reshape(shape)
    return (x, dim, index, draw(chunkings(x.shape)), draw(chunkings(index.shape)),
            draw(st.booleans()), draw(st.integers(2, 8)))


@given(requests())
def test_bit_identical_to_numpy_for_every_chunking(request):
    x, dim, index, x_chunks, i_chunks, dask_index, split_every = request
    d = da.from_array(x, chunks=x_chunks)
    idx = da.from_array(index, chunks=i_chunks) if dask_index else index
    with dask.config.set(split_every=split_every):
        out = axisops.gather(d, dim, idx)
    assert isinstance(out, da.Array) and out.shape == index.shape
    if dask_index:
        assert out.chunks == idx.chunks
    want = axisops.gather(x, dim, index, backend="numpy")
    assert_same_bits(out.compute(), want)


@given(st.data())
def test_take_along_axis_broadcasts_dask_and_numpy_indices(data):
    x = data.draw(arrays(dtypes=GATHER_DTYPES, min_dims=2, max_dims=2, max_side=5, min_side=1))
    axis = data.draw(st.integers(0, 1))
    n = x.shape[axis]
    shape = [1, 1]
    shape[axis] = data.draw(st.integers(1, 6))
    shape[1 - axis] = data.draw(st.sampled_from([1, x.shape[1 - axis]]))
    index = np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(shape)),
                                        max_size=int(np.prod(shape))))).reshape(shape)
    d = da.from_array(x, chunks=data.draw(chunkings(x.shape)))
    for idx in (index, da.from_array(index, chunks=data.draw(chunkings(index.shape)))):
        got = axisops.take_along_axis(d, idx, axis=axis).compute()
        assert_same_bits(got, axisops.take_along_axis(x, index, axis=axis))


def test_matches_the_pure_python_oracle_on_the_seed_example():
    x = da.from_array(np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), chunks=1)
    index = np.array([[0, 2], [1, 0]])
    for dim in (0, 1):
        want = ref_gather(x.compute(), dim, index)
        np.testing.assert_array_equal(axisops.gather(x, dim, index).compute(), want)
        np.testing.assert_array_equal(
            axisops.gather(x, dim, da.from_array(index, chunks=1)).compute(), want)


def _recorded(x, chunks):
    """A dask array of ``x`` that records which blocks are computed."""
    seen = []

    def block(b, block_info=None):
        seen.append(tuple(block_info[0]["chunk-location"]))
        return b

    d = da.from_array(x, chunks=chunks).map_blocks(block, meta=x[(slice(0, 0),) * x.ndim])
    return d, seen


def test_numpy_index_is_routed_to_the_data_blocks_it_needs():
    x = np.arange(40).reshape(4, 10)
    d, seen = _recorded(x, (4, 2))
    index = np.array([[0, 1, -10], [1, 0, 1], [0, 0, 0], [9, 1, 0]])
    out = axisops.gather(d, 1, index)
    np.testing.assert_array_equal(out.compute(), ref_gather(x, 1, index))
    assert sorted(set(seen)) == [(0, 0), (0, 4)]


def test_no_task_reads_more_than_one_data_block():
    x = np.arange(200).reshape(10, 20)
    d = da.from_array(x, chunks=(5, 3))
    values = np.random.default_rng(2).integers(-20, 20, size=(7, 30))
    index = da.from_array(values, chunks=(3, 4), name="the-index")
    out = axisops.gather(d, 1, index)
    work = next(layer for name, layer in out.dask.layers.items() if "gather-work" in name)
    own = set(work) | set(out.dask.layers["the-index"])
    reads = [task.dependencies - own for task in work.values()]
    assert max(len(r) for r in reads) == 1
    assert sum(len(r) for r in reads) == index.npartitions * 7  # each block's whole column
    assert_same_bits(out.compute(), axisops.gather(x, 1, values, backend="numpy"))


def test_out_of_range_dask_index_raises_the_core_error_when_computed():
    x = da.from_array(np.arange(24).reshape(4, 6), chunks=(2, 4))
    bad = np.zeros((4, 9), np.int64)
    bad[3, 7] = 6
    out = axisops.gather(x, 1, da.from_array(bad, chunks=(2, 3)))
    message = ("gather(): index[3, 7]=6 is out of range for dim 1 of size 6 "
               "(need -6 <= index <= 5)")
    with pytest.raises(axisops.IndexOutOfRangeError) as info:
        out.compute()
    assert str(info.value) == message
    with pytest.raises(axisops.IndexOutOfRangeError) as numpy_info:
        axisops.gather(x.compute(), 1, bad, backend="numpy")
    assert str(numpy_info.value) == message
    bad[3, 7] = -7
    with pytest.raises(IndexError, match=r"index\[3, 7\]=-7 is out of range"):
        axisops.gather(x, 1, da.from_array(bad, chunks=2)).compute()


def test_out_of_range_numpy_index_raises_when_the_graph_is_built():
    x = da.zeros((3, 5), chunks=2)
    index = np.array([[0, 1], [2, 5]], np.uint64)
    with pytest.raises(axisops.IndexOutOfRangeError,
                       match=r"^gather\(\): index\[1, 1\]=5 is out of range for dim 1 of size 5"):
        axisops.gather(x, 1, index)
    huge = np.array([[2**64 - 1]], np.uint64)
    with pytest.raises(axisops.IndexOutOfRangeError, match=r"index\[0, 0\]=18446744073709551615"):
        axisops.gather(x, 1, da.from_array(huge)).compute()


def test_take_along_axis_error_names_indices_and_axis():
    x = da.zeros((3, 5), chunks=2)
    with pytest.raises(axisops.IndexOutOfRangeError,
                       match=r"take_along_axis\(\): indices\[1, 0\]=3 is out of range for axis 0 of size 3"):
        axisops.take_along_axis(x, da.from_array(np.array([[0], [3]])), axis=0).compute()


@pytest.mark.parametrize("index, error, needle", [
    (np.zeros((2, 2), np.float32), axisops.UnsupportedDTypeError, "index has dtype float32"),
    (np.zeros((4, 2), np.int64), axisops.InvalidArgumentError,
     "index.shape[0]=4 exceeds x.shape[0]=3"),
    (np.zeros((2,), np.int64), axisops.InvalidArgumentError,
     "index must have the same number of dimensions as x (x has 2, index has 1)"),
    (da.zeros((4, 2), dtype=np.int64, chunks=1), axisops.InvalidArgumentError,
     "index.shape[0]=4 exceeds x.shape[0]=3"),
])
def test_shape_and_dtype_errors_are_raised_when_the_graph_is_built(index, error, needle):
    x = da.zeros((3, 5), chunks=2)
    with pytest.raises(error) as info:
        axisops.gather(x, 1, index)
    assert needle in str(info.value)


def test_unknown_chunk_sizes_in_x_or_index_are_refused_at_once():
    d = da.from_array(np.arange(12), chunks=5)
    unknown = d[d > 3]
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"gather\(\): index has unknown chunk sizes along axis 0"):
        axisops.gather(d, 0, unknown)
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"gather\(\): x has unknown chunk sizes along axis 0"):
        axisops.gather(unknown, 0, np.array([0]))


def test_mismatched_index_chunks_are_aligned_not_refused():
    x = np.arange(60).reshape(6, 10)
    d = da.from_array(x, chunks=(4, 3))
    index = np.random.default_rng(9).integers(0, 10, size=(5, 12))
    idx = da.from_array(index, chunks=((1, 3, 1), (5, 7)))
    out = axisops.gather(d, 1, idx)
    assert out.chunks == idx.chunks
    assert_same_bits(out.compute(), ref_gather(x, 1, index))


def test_empty_index_and_explicit_split_every():
    x = da.zeros((3, 5), chunks=2)
    out = axisops.gather(x, 0, np.zeros((0, 5), np.int64))
    assert out.shape == (0, 5) and out.compute().shape == (0, 5)
    xs = np.arange(30).reshape(3, 10)
    index = np.tile(np.arange(10), (3, 1))
    spec = gather_spec(ArrayMeta(xs.shape, xs.dtype), 1,
                       ArrayMeta(index.shape, index.dtype))
    out = dask_gather(da.from_array(xs, chunks=(3, 1)), da.from_array(index, chunks=(3, 10)),
                      spec, split_every=2)
    assert_same_bits(out.compute(), xs)


def test_numpy_x_with_a_dask_index_is_served_by_numpy():
    x = np.arange(6)
    out = axisops.gather(x, 0, da.from_array(np.array([5, 0])))
    assert isinstance(out, np.ndarray) and out.tolist() == [5, 0]
