"""The top-k rules that are not about values; the values (every dtype, special value,
integer extreme, k, axis and layout, on every adapter and engine) are tests/samples.py's,
run by tests/test_contract.py."""

import ml_dtypes
import numpy as np
import pytest

import axisops

BF16 = np.dtype(ml_dtypes.bfloat16)


def test_k_equal_n_is_a_full_stable_sort(backend):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, size=(5, 40)).astype(np.float64)
    s = axisops.topk(x, 40, largest=False, backend=backend)
    np.testing.assert_array_equal(s.indices, np.argsort(x, axis=-1, kind="stable"))
    d = axisops.topk(x, 40, backend=backend)
    desc = np.argsort(-x, axis=-1, kind="stable")  # exact here: small integers as floats
    np.testing.assert_array_equal(d.indices, desc)


def test_unsorted_returns_the_same_set(backend):
    rng = np.random.default_rng(5)
    x = rng.integers(0, 6, size=(4, 50)).astype(np.int32)
    srt = axisops.topk(x, 11, backend=backend)
    uns = axisops.topk(x, 11, sorted=False, backend=backend)
    assert np.array_equal(np.sort(uns.indices, -1), np.sort(srt.indices, -1))
    np.testing.assert_array_equal(np.take_along_axis(x, uns.indices, -1), uns.values)


@pytest.mark.parametrize("index_dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                         "int64", "uint64", np.int32, np.dtype("uint16")])
def test_index_dtype(backend, index_dtype):
    x = np.arange(100, dtype=np.float32)[::-1].copy()
    r = axisops.topk(x, 3, index_dtype=index_dtype, backend=backend)
    assert r.indices.dtype == np.dtype(index_dtype)
    assert r.indices.tolist() == [0, 1, 2]


def test_index_dtype_exactly_big_enough(backend):
    x = np.zeros(128)
    assert axisops.topk(x, 128, index_dtype="int8", backend=backend).indices[-1] == 127
    x = np.zeros(256)
    assert axisops.topk(x, 1, largest=False, index_dtype="uint8", backend=backend).indices[0] == 0


def test_array_likes(backend):
    assert axisops.topk([3, 1, 2], 2, backend=backend).indices.tolist() == [0, 2]
    assert axisops.topk((1.5, 2.5), 1, backend=backend).values.tolist() == [2.5]
    assert axisops.topk(np.array([[1, 2]]).tolist(), 1, axis=0, backend=backend).values.shape == (1, 2)


def test_numpy_integer_k_and_axis(backend):
    r = axisops.topk(np.arange(5), np.int64(2), axis=np.int8(0), backend=backend)
    assert r.indices.tolist() == [4, 3]


def test_result_is_a_namedtuple():
    values, indices = axisops.topk([2, 1], 1)
    r = axisops.topk([2, 1], 1)
    assert r._fields == ("values", "indices") and values.tolist() == [2] and indices.tolist() == [0]


def test_top_k_array_api_spelling():
    x = np.array([[4, 1, 4, 0]])
    assert axisops.top_k(x, 2).indices.tolist() == [[0, 2]]
    assert axisops.top_k(x, 2, mode="smallest").indices.tolist() == [[3, 1]]
    assert axisops.top_k(x.T, 1, axis=0).values.tolist() == [[4]]
