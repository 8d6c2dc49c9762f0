"""Property-based tests: every NumPy-family backend against the pure-Python oracle (NumPy's
time types and ``axis=None`` included)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import axisops

from oracle import (
    assert_same_bits,
    bits,
    first_bad_index,
    ref_gather,
    ref_kthvalue,
    ref_partition,
    ref_sort,
    ref_topk,
)
from strategies import (
    GATHER_DTYPES,
    INT_DTYPES,
    LAYOUTS,
    TIME_DTYPES,
    TOPK_DTYPES,
    arrays,
    with_layout,
)


@st.composite
def topk_cases(draw):
    x = draw(arrays())
    axis = draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[axis]
    k = draw(st.sampled_from(sorted({0, min(1, n), n, draw(st.integers(0, n))})))
    return x, k, axis, draw(st.booleans()), draw(st.sampled_from(LAYOUTS))


@given(case=topk_cases())
def test_topk_matches_oracle(backend, case):
    x, k, axis, largest, layout = case
    arr = with_layout(x, layout)
    before = bits(arr).copy()
    got = axisops.topk(arr, k, axis, largest=largest, backend=backend)
    want_v, want_i = ref_topk(x, k, axis, largest)
    assert_same_bits(got.values, want_v)
    assert got.indices.dtype == np.int64
    np.testing.assert_array_equal(got.indices, want_i)
    assert np.array_equal(bits(arr), before)


@given(case=topk_cases())
def test_unsorted_topk_selects_the_same_set(backend, case):
    x, k, axis, largest, layout = case
    got = axisops.topk(with_layout(x, layout), k, axis, largest=largest, sorted=False,
                       backend=backend)
    _, want_i = ref_topk(x, k, axis, largest)
    np.testing.assert_array_equal(np.sort(got.indices, axis=axis), np.sort(want_i, axis=axis))
    assert_same_bits(got.values, np.take_along_axis(x, got.indices, axis))


@given(case=topk_cases(), index_dtype=st.sampled_from(INT_DTYPES))
def test_index_dtype_is_exact_or_refused(backend, case, index_dtype):
    x, k, axis, largest, _ = case
    n = x.shape[axis]
    if n and np.iinfo(index_dtype).max < n - 1:
        with pytest.raises(axisops.InvalidArgumentError, match="cannot hold index"):
            axisops.topk(x, k, axis, index_dtype=index_dtype, backend=backend)
        return
    got = axisops.topk(x, k, axis, largest=largest, index_dtype=index_dtype, backend=backend)
    assert got.indices.dtype == index_dtype
    np.testing.assert_array_equal(got.indices, ref_topk(x, k, axis, largest)[1])


@st.composite
def gather_cases(draw, broadcast=False, dtypes=GATHER_DTYPES):
    x = draw(arrays(dtypes=dtypes, min_side=1))
    dim = draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[dim % x.ndim]
    shape = [draw(st.integers(0, s)) for s in x.shape]
    shape[dim % x.ndim] = draw(st.integers(0, 2 * n + 1))
    dtype = draw(st.sampled_from(INT_DTYPES))
    lo = max(-n, int(np.iinfo(dtype).min))
    hi = min(n - 1, int(np.iinfo(dtype).max))
    size = int(np.prod(shape))
    values = draw(st.lists(st.integers(lo, hi), min_size=size, max_size=size))
    index = np.array(values, dtype=dtype).reshape(shape)
    return x, dim, index, draw(st.sampled_from(LAYOUTS))


@given(case=gather_cases())
def test_gather_matches_oracle(backend, case):
    x, dim, index, layout = case
    arr, idx = with_layout(x, layout), with_layout(index, layout)
    before_x, before_i = bits(arr).copy(), idx.copy()
    got = axisops.gather(arr, dim, idx, backend=backend)
    assert_same_bits(got, ref_gather(x, dim, index))
    assert np.array_equal(bits(arr), before_x) and np.array_equal(idx, before_i)


@st.composite
def bad_gather_cases(draw):
    """A gather whose index holds one to three values outside ``[-n, n-1]`` (always one).

    Bad values are the extremes (``n``, ``-n-1``, ``2**62``, ``-2**62``, the dtype's
    maximum and minimum) where the index dtype holds them, or any value out of range.
    """
    x = draw(arrays(dtypes=GATHER_DTYPES, min_side=1))
    dim = draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[dim % x.ndim]
    shape = [draw(st.integers(1, s)) for s in x.shape]
    shape[dim % x.ndim] = draw(st.integers(1, 2 * n + 1))
    dtype = draw(st.sampled_from(INT_DTYPES))
    lo, hi = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    size = int(np.prod(shape))
    values = draw(st.lists(st.integers(max(-n, lo), min(n - 1, hi)), min_size=size, max_size=size))
    index = np.array(values, dtype=dtype).reshape(shape)
    extremes = [v for v in (n, -n - 1, 2**62, -(2**62), hi, lo) if lo <= v <= hi and not -n <= v < n]
    ranges = [st.integers(n, hi)] + ([st.integers(lo, -n - 1)] if lo < -n else [])
    bad = st.one_of(st.sampled_from(extremes), *ranges)
    for where in draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=3)):
        index.flat[where] = draw(bad)
    return x, dim, index


@given(case=bad_gather_cases())
def test_gather_out_of_range_is_refused(backend, case):
    x, dim, index = case
    pos, val = first_bad_index(index, x.shape[dim % x.ndim])
    with pytest.raises(axisops.IndexOutOfRangeError) as err:
        axisops.gather(x, dim, index, backend=backend)
    assert f"index[{', '.join(map(str, pos))}]={val} is out of range" in str(err.value)


@st.composite
def take_cases(draw):
    x = draw(arrays(dtypes=GATHER_DTYPES, min_side=1, max_dims=3))
    axis = draw(st.integers(-x.ndim, x.ndim - 1))
    a = axis % x.ndim
    n = x.shape[a]
    shape = [draw(st.sampled_from([1, s])) for s in x.shape]
    shape[a] = draw(st.integers(0, 4))
    if draw(st.booleans()):  # broadcast x instead of the index in some dimension
        d = draw(st.integers(0, x.ndim - 1))
        if d != a and shape[d] == 1:
            x = x.take([0], axis=d)
            shape[d] = draw(st.integers(1, 3))
    size = int(np.prod(shape))
    index = np.array(draw(st.lists(st.integers(-n, n - 1), min_size=size, max_size=size)),
                     dtype=np.int64).reshape(shape)
    return x, index, axis


@given(case=take_cases())
def test_take_along_axis_matches_numpy(case):
    x, index, axis = case
    a = axis % x.ndim
    full = [max(s, t) if d != a else s for d, (s, t) in enumerate(zip(x.shape, index.shape))]
    ifull = [max(s, t) if d != a else t for d, (s, t) in enumerate(zip(x.shape, index.shape))]
    want = np.take_along_axis(np.broadcast_to(x, full), np.broadcast_to(index, ifull), axis)
    assert_same_bits(axisops.take_along_axis(x, index, axis=axis), want)


# ---- the time types and axis=None (NumPy's habits) -------------------------------------------

#: Every dtype top-k and the selection family order: the numbers and NumPy's time types.
ORDERED_DTYPES = [*TOPK_DTYPES, *TIME_DTYPES]


@st.composite
def flat_or_axis_cases(draw, dtypes=ORDERED_DTYPES):
    """An array (any rank up to 3, the time types among the dtypes), an axis or None, a
    layout: the oracle's input is the array, or it flattened in C order for None."""
    x = draw(arrays(dtypes=dtypes, min_dims=0))
    axes = [st.none()] + ([st.integers(-x.ndim, x.ndim - 1)] if x.ndim else [])
    axis = draw(st.one_of(*axes))
    return x, axis, draw(st.sampled_from(LAYOUTS))


def _flat(x, axis):
    return (x.reshape(-1), 0) if axis is None else (x, axis)


@given(case=flat_or_axis_cases(), largest=st.booleans(), data=st.data())
def test_topk_of_times_and_flattened_matches_oracle(backend, case, largest, data):
    x, axis, layout = case
    flat, ax = _flat(x, axis)
    n = flat.shape[ax]
    k = data.draw(st.integers(0, n))
    arr = with_layout(x, layout) if x.ndim else x
    before = bits(arr).copy()
    got = axisops.topk(arr, k, axis, largest=largest, backend=backend)
    want_v, want_i = ref_topk(flat, k, ax, largest)
    assert_same_bits(got.values, want_v)
    np.testing.assert_array_equal(got.indices, want_i)
    assert np.array_equal(bits(arr), before)


@given(case=flat_or_axis_cases(), descending=st.booleans(), data=st.data())
def test_selection_of_times_and_flattened_matches_oracle(backend, case, descending, data):
    x, axis, layout = case
    flat, ax = _flat(x, axis)
    n = flat.shape[ax]
    arr = with_layout(x, layout) if x.ndim else x
    want_v, want_i = ref_sort(flat, ax, descending)
    assert_same_bits(axisops.sort(arr, axis, descending=descending, backend=backend), want_v)
    np.testing.assert_array_equal(
        axisops.argsort(arr, axis, descending=descending, backend=backend), want_i)
    if n == 0:
        return
    kth = data.draw(st.lists(st.integers(-n, n - 1), max_size=3))
    want_v, want_i = ref_partition(flat, kth, ax)
    assert_same_bits(axisops.partition(arr, kth, axis, backend=backend), want_v)
    np.testing.assert_array_equal(axisops.argpartition(arr, kth, axis, backend=backend), want_i)
    if flat.size == 0:
        return
    k, keepdims = data.draw(st.integers(1, n)), data.draw(st.booleans())
    for got, rank in ((axisops.kthvalue(arr, k, axis, keepdims=keepdims, backend=backend), k),
                      (axisops.median(arr, axis, keepdims=keepdims, backend=backend),
                       (n - 1) // 2 + 1)):
        want_v, want_i = ref_kthvalue(flat, rank, ax, keepdims and axis is not None)
        if axis is None and keepdims:
            want_v, want_i = want_v.reshape((1,) * x.ndim), want_i.reshape((1,) * x.ndim)
        assert_same_bits(got.values, want_v)
        np.testing.assert_array_equal(got.indices, want_i)


@given(case=gather_cases(dtypes=TIME_DTYPES))
def test_gather_of_times_matches_oracle(backend, case):
    x, dim, index, layout = case
    got = axisops.gather(with_layout(x, layout), dim, with_layout(index, layout), backend=backend)
    assert_same_bits(got, ref_gather(x, dim, index))
