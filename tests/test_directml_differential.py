"""Random descriptors, layouts and tie-heavy data: axisops.directml against axisops and the oracle.

Every example draws sizes, an axis, strides for each tensor (inputs: anything,
zero and overlapping strides included; outputs: any non-overlapping order with
padding), fills the input buffers with the special values of
``tests/strategies.py`` and checks the outputs bit for bit, and that every
byte an output desc does not address keeps its sentinel.
"""

import re

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import axisops
from axisops import directml as dml

from oracle import assert_same_bits, first_bad_index, ref_gather, ref_topk
from strategies import special_values

T = dml.TensorDataType
SENTINEL = 0x5A
DTYPES = {T.FLOAT32: "<f4", T.FLOAT16: "<f2", T.FLOAT64: "<f8", T.INT8: "i1", T.INT16: "<i2",
          T.INT32: "<i4", T.INT64: "<i8", T.UINT8: "u1", T.UINT16: "<u2", T.UINT32: "<u4",
          T.UINT64: "<u8"}
TOPK_TYPES = [t for t in DTYPES if t is not T.FLOAT64]
DEVICE = dml.create_device()


def offsets(sizes, strides):
    grid = np.indices(sizes, dtype=np.int64)
    return sum(grid[d] * s for d, s in enumerate(strides))


def get(buf, data_type, sizes, strides):
    dt = np.dtype(DTYPES[data_type])
    raw = bytes(buf)
    return np.frombuffer(raw, dt, len(raw) // dt.itemsize)[offsets(sizes, strides)]


def untouched_outside(buf, d):
    size = np.dtype(DTYPES[d.data_type]).itemsize
    raw = np.frombuffer(bytes(buf), np.uint8)
    mask = np.ones(len(raw), bool)
    start = offsets(d.sizes, d.element_strides).ravel() * size
    for b in range(size):
        mask[start + b] = False
    return bool((raw[mask] == SENTINEL).all())


@st.composite
def input_strides(draw, sizes):
    if draw(st.booleans()):
        return None
    return tuple(draw(st.integers(0, 9)) for _ in sizes)


@st.composite
def output_strides(draw, sizes):
    """None, or strides in a random dimension order with padding (never overlapping)."""
    if draw(st.booleans()):
        return None
    order = draw(st.permutations(range(len(sizes))))
    strides, step = [0] * len(sizes), 1
    for d in reversed(order):
        strides[d] = 0 if sizes[d] == 1 and draw(st.booleans()) else step
        step = step * sizes[d] + draw(st.integers(0, 3))
    return tuple(strides)


@st.composite
def filled_input(draw, data_type, sizes):
    """(desc, buffer, logical array): the buffer filled from the special-value pool."""
    d = dml.BufferTensorDesc(data_type, sizes, strides=draw(input_strides(sizes)))
    dt = np.dtype(DTYPES[data_type])
    pool = special_values(dt.newbyteorder("="))
    n = d.total_tensor_size_in_bytes // dt.itemsize
    width = draw(st.integers(1, len(pool)))
    picks = draw(st.lists(st.integers(0, width - 1), min_size=n, max_size=n))
    buf = bytearray(d.total_tensor_size_in_bytes + draw(st.integers(0, 5)))
    np.frombuffer(buf, dt, n)[:] = pool[np.array(picks, np.intp)]
    return d, buf, get(buf, data_type, sizes, d.element_strides)


def output_buffer(draw, d):
    buf = bytearray([SENTINEL]) * (d.total_tensor_size_in_bytes + draw(st.integers(0, 3)))
    return buf if draw(st.booleans()) else np.frombuffer(buf, np.uint8).copy()


sizes_strategy = st.lists(st.integers(1, 5), min_size=1, max_size=4).map(tuple)


@given(st.data())
def test_top_k1_matches_axisops_topk(data):
    draw = data.draw
    data_type = draw(st.sampled_from(TOPK_TYPES))
    sizes = draw(sizes_strategy)
    axis = draw(st.integers(0, len(sizes) - 1))
    k = draw(st.integers(1, sizes[axis]))
    direction = draw(st.sampled_from(list(dml.AxisDirection)))
    index_type = draw(st.sampled_from([T.UINT32, T.UINT64]))
    x, x_buf, logical = draw(filled_input(data_type, sizes))
    out_sizes = sizes[:axis] + (k,) + sizes[axis + 1:]
    v = dml.BufferTensorDesc(data_type, out_sizes, strides=draw(output_strides(out_sizes)))
    i = dml.BufferTensorDesc(index_type, out_sizes, strides=draw(output_strides(out_sizes)))
    if direction == dml.AxisDirection.DECREASING and draw(st.booleans()):
        desc = dml.TopKOperatorDesc(x, v, i, axis, k)
    else:
        desc = dml.TopK1OperatorDesc(x, v, i, axis, k, direction)
    op = DEVICE.compile_operator(DEVICE.create_operator(desc))
    v_buf, i_buf = output_buffer(draw, v), output_buffer(draw, i)
    op.execute([x_buf], [v_buf, i_buf])

    largest = direction == dml.AxisDirection.DECREASING
    got_v = get(v_buf, data_type, out_sizes, v.element_strides)
    got_i = get(i_buf, index_type, out_sizes, i.element_strides)
    want = axisops.topk(logical, k, axis, largest=largest,
                        index_dtype=np.dtype(DTYPES[index_type]))
    assert_same_bits(got_v, want.values)
    assert_same_bits(got_i, want.indices)
    ref_v, ref_i = ref_topk(logical, k, axis, largest)
    assert_same_bits(got_v, ref_v)
    np.testing.assert_array_equal(got_i, ref_i)
    assert untouched_outside(v_buf, v) and untouched_outside(i_buf, i)


@given(st.data())
def test_gather_elements_matches_axisops_gather(data):
    draw = data.draw
    data_type = draw(st.sampled_from(list(DTYPES)))
    index_type = draw(st.sampled_from([T.INT32, T.INT64, T.UINT32, T.UINT64]))
    sizes = draw(sizes_strategy)
    axis = draw(st.integers(0, len(sizes) - 1))
    x, x_buf, logical = draw(filled_input(data_type, sizes))
    idx_sizes = sizes[:axis] + (draw(st.integers(1, 6)),) + sizes[axis + 1:]
    n = sizes[axis]
    lo = -n if index_type in (T.INT32, T.INT64) else 0
    count = int(np.prod(idx_sizes))
    values = draw(st.lists(st.integers(lo, n - 1), min_size=count, max_size=count))
    bad = draw(st.sampled_from([None, None, None, n, lo - 1]))
    if bad is not None and bad >= np.iinfo(DTYPES[index_type]).min:
        values[draw(st.integers(0, count - 1))] = bad
    index = np.array(values, DTYPES[index_type]).reshape(idx_sizes)
    idx = dml.BufferTensorDesc(index_type, idx_sizes, strides=draw(output_strides(idx_sizes)))
    idx_buf = bytearray(idx.total_tensor_size_in_bytes)
    np.frombuffer(idx_buf, DTYPES[index_type])[offsets(idx_sizes, idx.element_strides)] = index
    out = dml.BufferTensorDesc(data_type, idx_sizes, strides=draw(output_strides(idx_sizes)))
    op = DEVICE.compile_operator(DEVICE.create_operator(
        dml.GatherElementsOperatorDesc(x, idx, out, axis)))
    out_buf = output_buffer(draw, out)

    first_bad = first_bad_index(index, n)
    if first_bad is not None:
        (pos, value) = first_bad
        try:
            op.execute([x_buf, idx_buf], [out_buf])
        except dml.DMLError as err:
            assert err.hresult == dml.E_INVALIDARG
            where = ", ".join(map(str, pos))
            assert re.search(rf"indices_tensor\[{where}\]={value} is out of range", err.message)
        else:
            raise AssertionError("an out-of-range index was accepted")
        assert (np.frombuffer(bytes(out_buf), np.uint8) == SENTINEL).all()
        return
    op.execute([x_buf, idx_buf], [out_buf])
    got = get(out_buf, data_type, idx_sizes, out.element_strides)
    assert_same_bits(got, axisops.gather(logical, axis, index))
    assert_same_bits(got, ref_gather(logical, axis, index))
    assert untouched_outside(out_buf, out)


@given(st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple), st.data())
def test_output_stride_rule_matches_brute_force(sizes, data):
    strides = tuple(data.draw(st.integers(0, 8)) for _ in sizes)
    d = dml.BufferTensorDesc(T.UINT8, sizes, strides=strides)
    x = dml.BufferTensorDesc(T.UINT8, sizes)
    idx = dml.BufferTensorDesc(T.UINT32, sizes)
    offs = offsets(sizes, strides).ravel()
    distinct = len(set(offs.tolist())) == len(offs)
    try:
        DEVICE.create_operator(dml.GatherElementsOperatorDesc(x, idx, d, 0))
    except dml.DMLError as err:
        assert not distinct and "twice" in err.message
    else:
        assert distinct
