"""Each rule of the top-k contract, one test per rule."""

import ml_dtypes
import numpy as np
import pytest

import axisops

from oracle import assert_same_bits, bits, ref_topk
from strategies import LAYOUTS, TOPK_DTYPES, special_values, with_layout

BF16 = np.dtype(ml_dtypes.bfloat16)


def test_nan_is_greater_than_inf(backend):
    x = np.array([1.0, np.inf, np.nan, -np.inf, np.nan], np.float32)
    r = axisops.topk(x, 5, backend=backend)
    assert r.indices.tolist() == [2, 4, 1, 0, 3]
    s = axisops.topk(x, 5, largest=False, backend=backend)
    assert s.indices.tolist() == [3, 0, 1, 2, 4]


def test_negative_zero_equals_positive_zero(backend):
    for x in (np.array([0.0, -0.0, 0.0]), np.array([-0.0, 0.0, -0.0])):
        for largest in (True, False):
            r = axisops.topk(x, 3, largest=largest, backend=backend)
            assert r.indices.tolist() == [0, 1, 2]
            assert_same_bits(r.values, x)  # the sign of each zero is kept


def test_nan_payloads_survive(backend):
    x = np.array([0x7FC00001, 0xFFC00000, 0x3F800000], np.uint32).view(np.float32)
    r = axisops.topk(x, 2, backend=backend)
    assert bits(r.values).tolist() == [0x7FC00001, 0xFFC00000]


@pytest.mark.parametrize("dtype, values, order", [
    ("int64", [2**53, 2**53 + 1, -(2**63), 2**63 - 1], [3, 1, 0, 2]),
    ("uint64", [2**64 - 1, 0, 2**63, 2**53 + 1], [0, 2, 3, 1]),
    ("int32", [-(2**31), 2**31 - 1, 0, -1], [1, 2, 3, 0]),
    ("int8", [-128, 127, -1, 0], [1, 3, 2, 0]),
    ("uint8", [255, 0, 128, 127], [0, 2, 3, 1]),
])
def test_integers_compare_exactly(backend, dtype, values, order):
    x = np.array(values, dtype)
    r = axisops.topk(x, len(values), backend=backend)
    assert r.indices.tolist() == order
    assert r.values.tolist() == [values[i] for i in order]
    s = axisops.topk(x, 1, largest=False, backend=backend)
    assert s.indices.tolist() == [order[-1]]


def test_bool_false_below_true(backend):
    x = np.array([False, True, False, True])
    assert axisops.topk(x, 4, backend=backend).indices.tolist() == [1, 3, 0, 2]
    assert axisops.topk(x, 4, largest=False, backend=backend).indices.tolist() == [0, 2, 1, 3]


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=str)
def test_every_dtype_matches_the_oracle(backend, dtype):
    rng = np.random.default_rng(7)
    pool = special_values(dtype)
    x = pool[rng.integers(0, len(pool), size=(3, 17))]
    for largest in (True, False):
        for k in (0, 1, 5, 17):
            r = axisops.topk(x, k, largest=largest, backend=backend)
            v, i = ref_topk(x, k, -1, largest)
            assert r.values.dtype == x.dtype
            assert_same_bits(r.values, v)
            np.testing.assert_array_equal(r.indices, i)


def test_ties_decide_the_cut_by_lower_index(backend):
    x = np.array([5, 7, 5, 7, 5, 7])
    assert axisops.topk(x, 2, backend=backend).indices.tolist() == [1, 3]
    assert axisops.topk(x, 4, backend=backend).indices.tolist() == [1, 3, 5, 0]
    assert axisops.topk(x, 2, largest=False, backend=backend).indices.tolist() == [0, 2]


def test_k_equal_n_is_a_full_stable_sort(backend):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, size=(5, 40)).astype(np.float64)
    s = axisops.topk(x, 40, largest=False, backend=backend)
    np.testing.assert_array_equal(s.indices, np.argsort(x, axis=-1, kind="stable"))
    d = axisops.topk(x, 40, backend=backend)
    desc = np.argsort(-x, axis=-1, kind="stable")  # exact here: small integers as floats
    np.testing.assert_array_equal(d.indices, desc)


def test_k_zero_gives_empty_outputs(backend):
    x = np.arange(12.0).reshape(3, 4)
    r = axisops.topk(x, 0, axis=0, backend=backend)
    assert r.values.shape == (0, 4) and r.indices.shape == (0, 4)
    assert r.values.dtype == x.dtype and r.indices.dtype == np.int64


def test_empty_axis_with_k_zero(backend):
    r = axisops.topk(np.zeros((2, 0), np.int16), 0, backend=backend)
    assert r.values.shape == (2, 0) and r.values.dtype == np.int16


def test_zero_size_batch_dimension(backend):
    r = axisops.topk(np.zeros((0, 5, 3), np.float32), 2, axis=1, backend=backend)
    assert r.values.shape == (0, 2, 3) and r.indices.shape == (0, 2, 3)


def test_unsorted_returns_the_same_set(backend):
    rng = np.random.default_rng(5)
    x = rng.integers(0, 6, size=(4, 50)).astype(np.int32)
    srt = axisops.topk(x, 11, backend=backend)
    uns = axisops.topk(x, 11, sorted=False, backend=backend)
    assert np.array_equal(np.sort(uns.indices, -1), np.sort(srt.indices, -1))
    np.testing.assert_array_equal(np.take_along_axis(x, uns.indices, -1), uns.values)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
def test_any_axis_any_rank(backend, axis):
    rng = np.random.default_rng(11)
    x = rng.integers(-3, 3, size=(4, 5, 6)).astype(np.int64)
    for largest in (True, False):
        r = axisops.topk(x, 3, axis=axis, largest=largest, backend=backend)
        v, i = ref_topk(x, 3, axis, largest)
        np.testing.assert_array_equal(r.values, v)
        np.testing.assert_array_equal(r.indices, i)


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


@pytest.mark.parametrize("layout", [*LAYOUTS, "memmap"])
def test_every_layout_and_input_unchanged(backend, layout, tmp_path):
    rng = np.random.default_rng(2)
    pool = special_values(np.float32)
    base = pool[rng.integers(0, len(pool), size=(6, 9))]
    if layout == "memmap":
        np.save(tmp_path / "x.npy", base)
        x = np.load(tmp_path / "x.npy", mmap_mode="r")
    else:
        x = with_layout(base, layout)
    before = bits(x).copy()
    for axis in (0, 1):
        r = axisops.topk(x, 4, axis=axis, backend=backend)
        v, i = ref_topk(base, 4, axis, True)
        assert type(r.values) is np.ndarray
        assert_same_bits(r.values, v)
        np.testing.assert_array_equal(r.indices, i)
    assert np.array_equal(bits(x), before)


def test_array_likes(backend):
    assert axisops.topk([3, 1, 2], 2, backend=backend).indices.tolist() == [0, 2]
    assert axisops.topk((1.5, 2.5), 1, backend=backend).values.tolist() == [2.5]
    assert axisops.topk(np.array([[1, 2]]).tolist(), 1, axis=0, backend=backend).values.shape == (1, 2)


def test_non_native_byte_order(backend):
    x = np.array([3, 1, 2, 3], dtype=">i4")
    r = axisops.topk(x, 2, backend=backend)
    assert r.values.dtype == np.dtype("int32") and r.values.tolist() == [3, 3]
    assert r.indices.tolist() == [0, 3]


def test_bfloat16_and_float16(backend):
    for dt in (BF16, np.dtype(np.float16)):
        x = np.array([1.0, np.nan, -np.inf, 0.5, np.inf], dtype=dt)
        r = axisops.topk(x, 3, backend=backend)
        assert r.values.dtype == dt
        assert r.indices.tolist() == [1, 4, 0]


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
