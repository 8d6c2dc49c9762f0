"""The exact torch-ops path (what non-CPU tensors run), called directly on CPU tensors."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

import axisops
from axisops.errors import boundary
from axisops.kernels.torch import ops as torch_ops
from axisops.validation import ArrayMeta, gather_spec, topk_spec

from oracle import assert_same_bits, first_bad_index, ref_gather, ref_topk
from strategies import GATHER_DTYPES, TOPK_DTYPES, arrays, special_values
from torch_helpers import to_numpy, to_torch


# Run as the public functions run them: errors from the kernels get the function's name.
@boundary("topk")
def run_topk(x: np.ndarray, k, axis=-1, largest=True, index_dtype=None):
    spec = topk_spec(ArrayMeta(x.shape, x.dtype), k, axis, largest, True, index_dtype)
    values, indices = torch_ops.topk(to_torch(x), spec)
    return to_numpy(values), to_numpy(indices)


@boundary("gather")
def run_gather(x: np.ndarray, dim, index: np.ndarray):
    spec = gather_spec(ArrayMeta(x.shape, x.dtype), dim,
                       ArrayMeta(index.shape, index.dtype))
    return to_numpy(torch_ops.gather(to_torch(x), to_torch(index), spec))


@settings(max_examples=150)
@given(x=arrays(), data=st.data())
def test_topk_matches_the_oracle(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[axis]
    k = data.draw(st.sampled_from(sorted({0, min(1, n), n // 2, n})))
    largest = data.draw(st.booleans())
    values, indices = run_topk(x, k, axis, largest)
    want_v, want_i = ref_topk(x, k, axis, largest)
    assert_same_bits(values, want_v)
    np.testing.assert_array_equal(indices, want_i)


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=str)
@pytest.mark.parametrize("k", [1, 3, 15, 16, 40, 64])  # 4k < n repairs ties, else sorts
def test_both_strategies_on_long_tie_heavy_rows(dtype, k):
    rng = np.random.default_rng(k)
    pool = special_values(dtype)
    x = pool[rng.integers(0, min(4, len(pool)), size=(3, 64))]
    for largest in (True, False):
        values, indices = run_topk(x, k, -1, largest)
        want_v, want_i = axisops.topk(x, k, largest=largest, backend="numpy")
        assert_same_bits(values, want_v)
        np.testing.assert_array_equal(indices, want_i)


def test_tie_at_the_cut_takes_the_lowest_indices():
    x = np.array([[5, 7, 5, 7, 5, 7, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5]], np.int32)
    assert run_topk(x, 4)[1].tolist() == [[1, 3, 5, 0]]
    assert run_topk(x, 3, largest=False)[1].tolist() == [[0, 2, 4]]


@pytest.mark.parametrize("dtype, values", [
    ("int64", [-(2**63), 2**63 - 1, 2**53 + 1, 2**53, 0, -1]),
    ("uint64", [2**64 - 1, 0, 2**63, 2**63 - 1, 2**53 + 1, 2**53]),
    ("int32", [-(2**31), 2**31 - 1, 0, -1]),
    ("uint32", [2**32 - 1, 0, 2**31, 2**31 - 1]),
    ("uint16", [65535, 0, 32768, 32767]),
])
def test_integer_extremes_compare_exactly(dtype, values):
    x = np.array(values, dtype)
    for k in (0, 1, len(values)):
        for largest in (True, False):
            got_v, got_i = run_topk(x, k, largest=largest)
            want_v, want_i = ref_topk(x, k, -1, largest)
            assert got_v.tolist() == want_v.tolist() and got_i.tolist() == want_i.tolist()


def test_order_key_of_floats():
    nan = float("nan")
    x = torch.tensor([-0.0, 0.0, nan, -nan, float("inf"), -float("inf"), 1.0], dtype=torch.float64)
    key = torch_ops.order_key(x, True).tolist()
    assert key[0] == key[1] == 0 and key[2] == key[3] > key[4] > key[6] > key[0] > key[5]
    low = torch_ops.order_key(x, False).tolist()
    assert low == [~v for v in key]


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=str)
def test_order_key_is_the_contract_order(dtype):
    pool = special_values(dtype)
    key = torch_ops.order_key(to_torch(pool), True).numpy()
    want = ref_topk(pool, len(pool), -1, True)[1]
    got = np.argsort(-key.astype(object), kind="stable")  # object: -INT64_MIN is exact
    np.testing.assert_array_equal(got.astype(np.int64), want)


@pytest.mark.parametrize("index_dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                         "int64", "uint64"])
def test_index_dtypes(index_dtype):
    x = np.arange(100, dtype=np.float32)[::-1].copy()
    _, indices = run_topk(x, 3, index_dtype=index_dtype)
    assert indices.dtype == np.dtype(index_dtype) and indices.tolist() == [0, 1, 2]


def test_zero_size_inputs():
    values, indices = run_topk(np.zeros((0, 5), np.float16), 2)
    assert values.shape == (0, 2) and values.dtype == np.float16 and indices.dtype == np.int64
    values, indices = run_topk(np.zeros((3, 0), np.int8), 0)
    assert values.shape == (3, 0)


def test_values_keep_nan_payloads_and_zero_signs():
    x = np.array([0x7FC00001, 0xFFC00002, 0x80000000, 0x00000000], np.uint32).view(np.float32)
    values, _ = run_topk(x, 4)
    assert_same_bits(values, x)
    values, indices = run_topk(x, 2, largest=False)
    assert indices.tolist() == [2, 3]
    assert_same_bits(values, x[2:])


@st.composite
def gather_case(draw):
    x = draw(arrays(dtypes=GATHER_DTYPES, min_side=1))
    dim = draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[dim]
    shape = [draw(st.integers(0, s)) for s in x.shape]
    shape[dim % x.ndim] = draw(st.integers(0, 7))
    dtype = draw(st.sampled_from(["int8", "int16", "int32", "int64", "uint8", "uint16",
                                  "uint32", "uint64"]))
    low = 0 if dtype.startswith("u") else -min(n, 128)
    size = int(np.prod(shape))
    vals = draw(st.lists(st.integers(low, min(n, 127) - 1), min_size=size, max_size=size))
    return x, dim, np.array(vals, dtype).reshape(shape)


@settings(max_examples=150)
@given(gather_case())
def test_gather_matches_the_oracle(case):
    x, dim, index = case
    assert_same_bits(run_gather(x, dim, index), ref_gather(x, dim, index))


@pytest.mark.parametrize("index", [[[0, 2], [-4, 1]], [[0, 1], [2, 3]], [[9, -9], [-9, 9]]])
def test_gather_reports_the_first_offender_like_the_numpy_backend(index):
    x = np.arange(6.0).reshape(2, 3)
    idx = np.array(index)
    pos, value = first_bad_index(idx, 3)
    where = f"index[{', '.join(map(str, pos))}]={value} "
    with pytest.raises(axisops.IndexOutOfRangeError) as want:
        axisops.gather(x, 1, idx, backend="numpy")
    with pytest.raises(axisops.IndexOutOfRangeError, match=re.escape(where)) as got:
        run_gather(x, 1, idx)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dtype, bad", [("uint64", 2**64 - 1), ("uint64", 2**63),
                                        ("uint32", 2**32 - 1), ("uint16", 40000),
                                        ("uint8", 200), ("int8", -128), ("int64", -(2**63))])
def test_gather_rejects_wide_values_without_wrapping(dtype, bad):
    x = np.arange(4, dtype=np.int16)
    idx = np.array([1, bad, 0], dtype)
    with pytest.raises(axisops.IndexOutOfRangeError,
                       match=rf"^gather\(\): index\[1\]={bad} is out of range for dim 0 of size 4"):
        run_gather(x, 0, idx)


def test_gather_cuts_x_to_the_index_extent():
    x = np.arange(20).reshape(4, 5)
    idx = np.array([[4, -1], [0, 2]])
    np.testing.assert_array_equal(run_gather(x, 1, idx), ref_gather(x, 1, idx))


def test_gather_empty_index():
    out = run_gather(np.arange(5.0), 0, np.zeros(0, np.int64))
    assert out.shape == (0,) and out.dtype == np.float64
