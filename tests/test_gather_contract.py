"""Each rule of the gather contract (torch.gather / aclnnGather semantics)."""

import numpy as np
import pytest

import axisops

from oracle import assert_same_bits, bits, ref_gather
from strategies import GATHER_DTYPES, INT_DTYPES, LAYOUTS, special_values, with_layout


def test_negative_indices_count_from_the_end(backend):
    x = np.arange(10, 16)
    np.testing.assert_array_equal(axisops.gather(x, 0, [-1, -6, 0, 5], backend=backend),
                                  [15, 10, 10, 15])


def test_index_smaller_than_x_in_other_dims(backend):
    x = np.arange(20).reshape(4, 5)
    idx = np.array([[4, 0], [1, 1]])
    got = axisops.gather(x, 1, idx, backend=backend)
    np.testing.assert_array_equal(got, [[4, 0], [6, 6]])


def test_index_longer_than_x_along_dim(backend):
    x = np.array([[1, 2], [3, 4]])
    idx = np.array([[0, 1, 1, 0, 1]])
    np.testing.assert_array_equal(axisops.gather(x, 1, idx, backend=backend), [[1, 2, 2, 1, 2]])


def test_empty_index_gives_empty_output(backend):
    x = np.arange(6.0).reshape(2, 3)
    out = axisops.gather(x, 1, np.zeros((2, 0), np.int64), backend=backend)
    assert out.shape == (2, 0) and out.dtype == x.dtype
    out = axisops.gather(np.zeros((2, 0)), 1, np.zeros((2, 0), np.int32), backend=backend)
    assert out.shape == (2, 0)


@pytest.mark.parametrize("dtype", GATHER_DTYPES, ids=str)
def test_every_dtype_moves_bits_exactly(backend, dtype):
    rng = np.random.default_rng(1)
    pool = special_values(dtype)
    x = pool[rng.integers(0, len(pool), size=(4, 6))]
    idx = rng.integers(-6, 6, size=(3, 9))
    got = axisops.gather(x, 1, idx, backend=backend)
    assert got.dtype == x.dtype
    assert_same_bits(got, ref_gather(x, 1, idx))


@pytest.mark.parametrize("index_dtype", INT_DTYPES, ids=str)
def test_every_index_dtype(backend, index_dtype):
    x = np.arange(30).reshape(5, 6)
    idx = np.array([[0, 4, 3], [2, 1, 0]], dtype=index_dtype)
    np.testing.assert_array_equal(axisops.gather(x, 0, idx, backend=backend), ref_gather(x, 0, idx))


@pytest.mark.parametrize("layout", [*LAYOUTS, "memmap"])
def test_every_layout_and_inputs_unchanged(backend, layout, tmp_path):
    rng = np.random.default_rng(4)
    base = rng.standard_normal((5, 7)).astype(np.float32)
    base_idx = rng.integers(-5, 5, size=(6, 7)).astype(np.int32)
    if layout == "memmap":
        np.save(tmp_path / "x.npy", base)
        np.save(tmp_path / "i.npy", base_idx)
        x = np.load(tmp_path / "x.npy", mmap_mode="r")
        idx = np.load(tmp_path / "i.npy", mmap_mode="r")
    else:
        x, idx = with_layout(base, layout), with_layout(base_idx, layout)
    before_x, before_i = bits(x).copy(), idx.copy()
    got = axisops.gather(x, 0, idx, backend=backend)
    assert type(got) is np.ndarray
    assert_same_bits(got, ref_gather(base, 0, base_idx))
    assert np.array_equal(bits(x), before_x) and np.array_equal(idx, before_i)


def test_broadcast_views_are_read_in_place(backend):
    x = np.broadcast_to(np.arange(4.0), (3, 4))
    idx = np.broadcast_to(np.array([[3, 0]]), (3, 2))
    np.testing.assert_array_equal(axisops.gather(x, 1, idx, backend=backend), [[3, 0]] * 3)


def test_take_along_axis_broadcasts():
    x = np.array([[10, 30, 20]])                      # (1, 3)
    idx = np.array([[1], [2], [0]])                   # (3, 1)
    np.testing.assert_array_equal(axisops.take_along_axis(x, idx, axis=1), [[30], [20], [10]])
    x2 = np.arange(12).reshape(3, 4)
    idx2 = np.array([[3, 0]])                         # broadcasts over rows
    np.testing.assert_array_equal(axisops.take_along_axis(x2, idx2), [[3, 0], [7, 4], [11, 8]])
    np.testing.assert_array_equal(axisops.take_along_axis(x2, np.array([[2, 0, 1, 2]]), axis=0),
                                  [[8, 1, 6, 11]])


def test_take_along_axis_matches_numpy():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((4, 1, 5))
    idx = rng.integers(0, 4, size=(2, 3, 5))
    want = np.take_along_axis(np.broadcast_to(x, (4, 3, 5)), idx, axis=0)
    np.testing.assert_array_equal(axisops.take_along_axis(x, idx, axis=0), want)


def test_take_along_axis_of_topk_indices():
    x = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    r = axisops.topk(x, 2)
    np.testing.assert_array_equal(axisops.take_along_axis(x, r.indices, axis=-1), r.values)
