"""Buffers at execute: strided and broadcast inputs, sentinel-filled outputs, misuse, removal.

Expected results come from ``tests/oracle.py``; element offsets are computed
here independently (``sum(i_d * stride_d)``), so every byte an output desc
does not address can be checked to survive.
"""

import array
import re

import numpy as np
import pytest

from axisops import directml as dml

from oracle import assert_same_bits, ref_gather, ref_topk

T = dml.TensorDataType
DEC, INC = dml.AxisDirection.DECREASING, dml.AxisDirection.INCREASING
SENTINEL = 0xA5
DTYPES = {T.FLOAT32: "<f4", T.FLOAT16: "<f2", T.FLOAT64: "<f8", T.INT8: "i1", T.INT16: "<i2",
          T.INT32: "<i4", T.INT64: "<i8", T.UINT8: "u1", T.UINT16: "<u2", T.UINT32: "<u4",
          T.UINT64: "<u8"}


def packed(sizes):
    out, step = [], 1
    for n in reversed(sizes):
        out.append(step)
        step *= n
    return tuple(reversed(out))


def offsets(sizes, strides):
    """Element offset of every coordinate, shaped like ``sizes``."""
    grid = np.indices(sizes, dtype=np.int64)
    return sum(grid[d] * s for d, s in enumerate(strides))


def raw_bytes(buf):
    """The bytes of ``buf`` in memory order (a Fortran-ordered array's too)."""
    return buf.tobytes(order="A") if isinstance(buf, np.ndarray) else bytes(buf)


def get(buf, data_type, sizes, strides):
    dt = np.dtype(DTYPES[data_type])
    raw = raw_bytes(buf)
    flat = np.frombuffer(raw, dt, len(raw) // dt.itemsize)
    return flat[offsets(sizes, strides)]


def put(buf, data_type, sizes, strides, values):
    dt = np.dtype(DTYPES[data_type])
    flat = np.frombuffer(buf, dt, len(buf) // dt.itemsize)
    flat[offsets(sizes, strides)] = values


def addressed(nbytes, data_type, sizes, strides):
    size = np.dtype(DTYPES[data_type]).itemsize
    mask = np.zeros(nbytes, bool)
    start = offsets(sizes, strides).ravel() * size
    for b in range(size):
        mask[start + b] = True
    return mask


def sentinel_buffer(d, extra=0):
    return bytearray([SENTINEL]) * (d.total_tensor_size_in_bytes + extra)


def assert_only_addressed_changed(buf, d):
    raw = np.frombuffer(bytes(buf), np.uint8)
    keep = ~addressed(len(raw), d.data_type, d.sizes, d.element_strides)
    assert (raw[keep] == SENTINEL).all(), np.flatnonzero(raw[keep] != SENTINEL)


def compile_op(desc, level=None):
    device = dml.create_device(level)
    return device, device.compile_operator(device.create_operator(desc))


# --- strided and broadcast layouts --------------------------------------------------

SIZES = (2, 3, 5)
# (name, strides for SIZES or None): inputs may broadcast and overlap.
INPUT_LAYOUTS = [
    ("packed", None),
    ("padded rows", (24, 8, 1)),
    ("column-major", (1, 2, 6)),
    ("broadcast outer", (0, 5, 1)),
    ("broadcast along axis", (15, 5, 0)),
    ("sliding window", (7, 1, 1)),
    ("everything one element", (0, 0, 0)),
]
OUTPUT_LAYOUTS = [
    ("packed", lambda s: None),
    ("padded", lambda s: (s[1] * s[2] * 2 + 3, s[2] + 1, 1)),
    ("column-major", lambda s: (1, s[0], s[0] * s[1])),
    ("reversed padding", lambda s: (1, s[0] * s[2] + 2, s[0])),
]


def _input(data_type, strides, seed):
    d = dml.BufferTensorDesc(data_type, SIZES, strides=strides)
    buf = bytearray(d.total_tensor_size_in_bytes + 3)
    rng = np.random.default_rng(seed)
    n = len(buf) // np.dtype(DTYPES[data_type]).itemsize
    flat = np.frombuffer(buf, DTYPES[data_type], n)
    flat[:] = rng.integers(0, 4, n)  # few distinct values: ties everywhere
    return d, buf, get(buf, data_type, SIZES, d.element_strides)


@pytest.mark.parametrize("in_name, in_strides", INPUT_LAYOUTS, ids=[n for n, _ in INPUT_LAYOUTS])
@pytest.mark.parametrize("out_name, out_strides", OUTPUT_LAYOUTS,
                         ids=[n for n, _ in OUTPUT_LAYOUTS])
@pytest.mark.parametrize("axis, k, direction", [(2, 3, DEC), (1, 2, INC), (0, 2, DEC)])
def test_top_k1_strided_layouts(in_name, in_strides, out_name, out_strides, axis, k, direction):
    x, x_buf, logical = _input(T.INT16, in_strides, seed=axis)
    before = bytes(x_buf)
    out_sizes = tuple(k if d == axis else n for d, n in enumerate(SIZES))
    v = dml.BufferTensorDesc(T.INT16, out_sizes, strides=out_strides(out_sizes))
    i = dml.BufferTensorDesc(T.UINT32, out_sizes, strides=out_strides(out_sizes))
    _, op = compile_op(dml.TopK1OperatorDesc(x, v, i, axis, k, direction))
    v_buf, i_buf = sentinel_buffer(v, extra=5), sentinel_buffer(i, extra=1)
    op.execute([x_buf], [v_buf, i_buf])
    want_v, want_i = ref_topk(logical, k, axis, largest=direction == DEC)
    assert_same_bits(get(v_buf, T.INT16, out_sizes, v.element_strides), want_v)
    np.testing.assert_array_equal(get(i_buf, T.UINT32, out_sizes, i.element_strides), want_i)
    assert_only_addressed_changed(v_buf, v)
    assert_only_addressed_changed(i_buf, i)
    assert bytes(x_buf) == before


@pytest.mark.parametrize("in_name, in_strides", INPUT_LAYOUTS, ids=[n for n, _ in INPUT_LAYOUTS])
@pytest.mark.parametrize("out_name, out_strides", OUTPUT_LAYOUTS,
                         ids=[n for n, _ in OUTPUT_LAYOUTS])
def test_gather_elements_strided_layouts(in_name, in_strides, out_name, out_strides):
    x, x_buf, logical = _input(T.FLOAT64, in_strides, seed=3)
    idx_sizes = (2, 4, 5)  # axis 1: 4 indices into a size-3 axis
    rng = np.random.default_rng(5)
    index = rng.integers(-3, 3, idx_sizes)
    # The indices themselves broadcast along axis 0.
    idx = dml.BufferTensorDesc(T.INT32, idx_sizes, strides=(0, 5, 1))
    idx_buf = bytearray(idx.total_tensor_size_in_bytes)
    index[1] = index[0]
    put(idx_buf, T.INT32, idx_sizes, idx.element_strides, index)
    out = dml.BufferTensorDesc(T.FLOAT64, idx_sizes, strides=out_strides(idx_sizes))
    _, op = compile_op(dml.GatherElementsOperatorDesc(x, idx, out, axis=1))
    out_buf = sentinel_buffer(out, extra=8)
    op.execute([x_buf, idx_buf], [out_buf])
    want = ref_gather(logical, 1, index)
    assert_same_bits(get(out_buf, T.FLOAT64, idx_sizes, out.element_strides), want)
    assert_only_addressed_changed(out_buf, out)


def test_interleaved_output_strides_write_every_element_once():
    sizes = (3, 2)
    x = dml.BufferTensorDesc(T.UINT8, (3, 4))
    v = dml.BufferTensorDesc(T.UINT8, sizes, strides=(2, 3))  # offsets 0, 3, 2, 5, 4, 7
    i = dml.BufferTensorDesc(T.UINT64, sizes, strides=(1, 3))  # offsets 0, 3, 1, 4, 2, 5
    _, op = compile_op(dml.TopK1OperatorDesc(x, v, i, 1, 2, INC))
    data = np.array([[9, 3, 3, 1], [0, 0, 0, 0], [255, 7, 128, 7]], np.uint8)
    v_buf, i_buf = sentinel_buffer(v), sentinel_buffer(i)
    op.execute([data], [v_buf, i_buf])
    want_v, want_i = ref_topk(data, 2, 1, largest=False)
    np.testing.assert_array_equal(get(v_buf, T.UINT8, sizes, (2, 3)), want_v)
    np.testing.assert_array_equal(get(i_buf, T.UINT64, sizes, (1, 3)), want_i)
    assert_only_addressed_changed(v_buf, v)
    assert_only_addressed_changed(i_buf, i)


# --- every kind of buffer ----------------------------------------------------------

X_DESC = dml.BufferTensorDesc(T.FLOAT32, (1, 1, 3, 4))
V_DESC = dml.BufferTensorDesc(T.FLOAT32, (1, 1, 3, 2))
I_DESC = dml.BufferTensorDesc(T.UINT32, (1, 1, 3, 2))
DATA = np.array([[[[0, 1, 10, 11], [3, 2, 9, 8], [4, 5, 6, 7]]]], "<f4")
WANT_V = [[[[11, 10], [9, 8], [7, 6]]]]
WANT_I = [[[[3, 2], [2, 3], [3, 2]]]]


def seed_op():
    return compile_op(dml.TopK1OperatorDesc(X_DESC, V_DESC, I_DESC, 3, 2, DEC))


def _unaligned(payload, size):
    # A view one byte into a bytearray: no element is aligned.
    raw = bytearray(size + 1)
    raw[1:1 + len(payload)] = payload
    return memoryview(raw)[1:], raw


def _fortran(nbytes):
    out = np.asfortranarray(np.zeros((2, nbytes // 8), np.float32))
    assert out.flags.f_contiguous and not out.flags.c_contiguous
    return out


BUFFER_KINDS = {
    "bytes input, numpy outputs": lambda: (DATA.tobytes(), np.zeros(6, "<f4"), np.zeros(6, "<u4")),
    "numpy float64 outputs": lambda: (DATA, np.zeros(3, np.float64), np.zeros(3, np.float64)),
    "fortran-ordered outputs": lambda: (DATA, _fortran(24), _fortran(24)),
    "array.array": lambda: (array.array("f", DATA.ravel()), array.array("I", [0] * 6),
                            array.array("B", [0] * 24)),
    "memoryview casts": lambda: (memoryview(DATA.tobytes()).cast("f"),
                                 memoryview(bytearray(24)).cast("f"),
                                 memoryview(bytearray(24)).cast("I", (2, 3))),
    "read-only numpy input": lambda: (_readonly(DATA.copy()), bytearray(24), bytearray(24)),
    "longer than needed": lambda: (DATA.tobytes() + b"\x00" * 9, bytearray(31), bytearray(40)),
}


def _readonly(a):
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("kind", sorted(BUFFER_KINDS))
def test_buffer_kinds(kind):
    _, op = seed_op()
    x_buf, v_buf, i_buf = BUFFER_KINDS[kind]()
    op.execute([x_buf], [v_buf, i_buf])
    np.testing.assert_array_equal(get(v_buf, T.FLOAT32, (1, 1, 3, 2), packed((1, 1, 3, 2))),
                                  WANT_V)
    np.testing.assert_array_equal(get(i_buf, T.UINT32, (1, 1, 3, 2), packed((1, 1, 3, 2))),
                                  WANT_I)


def test_unaligned_buffers():
    _, op = seed_op()
    x_view, _ = _unaligned(DATA.tobytes(), 48)
    v_view, v_raw = _unaligned(b"", 24)
    i_view, i_raw = _unaligned(b"", 24)
    op.execute([x_view], [v_view, i_view])
    assert v_raw[0] == 0 and i_raw[0] == 0
    np.testing.assert_array_equal(np.frombuffer(bytes(v_raw[1:]), "<f4").reshape(1, 1, 3, 2), WANT_V)
    np.testing.assert_array_equal(np.frombuffer(bytes(i_raw[1:]), "<u4").reshape(1, 1, 3, 2), WANT_I)


def test_memmap_buffers(tmp_path):
    _, op = seed_op()
    x = np.memmap(tmp_path / "x.bin", "<f4", "w+", shape=(12,))
    x[:] = DATA.ravel()
    v = np.memmap(tmp_path / "v.bin", "<f4", "w+", shape=(6,))
    i = np.memmap(tmp_path / "i.bin", np.uint8, "w+", shape=(24,))
    op.execute([x], [v, i])
    v.flush()
    i.flush()
    np.testing.assert_array_equal(np.fromfile(tmp_path / "v.bin", "<f4").reshape(1, 1, 3, 2), WANT_V)
    np.testing.assert_array_equal(np.fromfile(tmp_path / "i.bin", "<u4").reshape(1, 1, 3, 2), WANT_I)


def test_adjacent_slices_of_one_buffer_do_not_overlap():
    _, op = seed_op()
    big = bytearray(96)
    big[:48] = DATA.tobytes()
    view = memoryview(big)
    op.execute([view[:48]], [view[48:72], view[72:96]])
    np.testing.assert_array_equal(np.frombuffer(big, "<f4", 6, 48).reshape(1, 1, 3, 2), WANT_V)
    np.testing.assert_array_equal(np.frombuffer(big, "<u4", 6, 72).reshape(1, 1, 3, 2), WANT_I)


def test_inputs_may_share_memory():
    # GATHER_ELEMENTS reading data and indices from the same bytes is fine.
    x = dml.BufferTensorDesc(T.UINT32, (4,))
    idx = dml.BufferTensorDesc(T.UINT32, (4,))
    out = dml.BufferTensorDesc(T.UINT32, (4,))
    _, op = compile_op(dml.GatherElementsOperatorDesc(x, idx, out, 0))
    shared = np.array([3, 0, 2, 1], "<u4")
    result = np.zeros(4, "<u4")
    op.execute([shared, shared], [result])
    assert result.tolist() == [1, 3, 2, 0]


# --- misuse removes the device -------------------------------------------------------

def _overlapping_numpy():
    arr = np.zeros(30, "<f4")
    arr[:12] = DATA.ravel()
    return [arr[:12]], [arr[10:16], np.zeros(6, "<u4")]


def _partial_overlap():
    big = bytearray(100)
    big[:48] = DATA.tobytes()
    view = memoryview(big)
    return [view[:48]], [view[40:64], view[64:88]]


def _same_output_twice():
    out = bytearray(24)
    return [DATA.tobytes()], [out, out]


def _object_array():
    return [DATA], [np.array([None] * 24, dtype=object), bytearray(24)]


MISUSE = [
    ("no inputs", lambda b: ([], list(b[1:])),
     r"inputs has 0 buffers \(need a list of 1 buffer: input_tensor\)"),
    ("two inputs", lambda b: ([b[0], b[0]], list(b[1:])), r"inputs has 2 buffers"),
    ("one output", lambda b: ([b[0]], [b[1]]),
     r"outputs has 1 buffers \(need a list of 2 buffers: output_value_tensor, output_index_tensor\)"),
    ("inputs not a list", lambda b: (b[0], list(b[1:])), r"inputs is a bytearray, not a list of buffers \(need a list of 1 buffer: input_tensor\)"),
    ("None buffer", lambda b: ([None], list(b[1:])),
     r"inputs\[0\] \(input_tensor\) is a NoneType object, not a contiguous bytes-like buffer"),
    ("str buffer", lambda b: ([b[0]], ["x" * 24, b[2]]),
     r"outputs\[0\] \(output_value_tensor\) is a str object, not a contiguous bytes-like buffer"),
    ("short input", lambda b: ([bytes(b[0])[:47]], list(b[1:])),
     r"inputs\[0\] \(input_tensor\) holds 47 bytes, fewer than its desc's "
     r"total_tensor_size_in_bytes=48"),
    ("short output", lambda b: ([b[0]], [b[1], bytearray(20)]),
     r"outputs\[1\] \(output_index_tensor\) holds 20 bytes, fewer than .*=24"),
    ("bytes output", lambda b: ([b[0]], [bytes(24), b[2]]),
     r"outputs\[0\] \(output_value_tensor\) is read-only \(a bytes object\); an output must be "
     r"writable"),
    ("read-only numpy output", lambda b: ([b[0]], [b[1], _readonly(np.zeros(6, "<u4"))]),
     r"outputs\[1\] \(output_index_tensor\) is read-only \(a NumPy array of dtype uint32"),
    ("read-only memoryview output", lambda b: ([b[0]], [memoryview(bytearray(24)).toreadonly(), b[2]]),
     r"outputs\[0\] \(output_value_tensor\) is read-only \(a memoryview object\)"),
    ("non-contiguous numpy output", lambda b: ([b[0]], [np.zeros(12, "<f4")[::2], b[2]]),
     r"outputs\[0\] \(output_value_tensor\) is a NumPy array of dtype float32 and shape \(6,\) "
     r"that is not contiguous"),
    ("non-contiguous memoryview", lambda b: ([memoryview(bytearray(96))[::2]], list(b[1:])),
     r"inputs\[0\] \(input_tensor\) is a memoryview object, not a contiguous bytes-like buffer"),
    ("object array output", lambda b: _object_array(),
     r"outputs\[0\] \(output_value_tensor\) is a NumPy array of dtype object .* which holds Python "
     r"references, not bytes"),
    ("output is the input", lambda b: ([b[0]], [b[0], b[2]]),
     r"outputs\[0\] \(output_value_tensor\) overlaps inputs\[0\] \(input_tensor\)"),
    ("output overlaps input partly", lambda b: _partial_overlap(),
     r"outputs\[0\] \(output_value_tensor\) overlaps inputs\[0\] \(input_tensor\) \(bytes "
     r"\[0x[0-9a-f]+, 0x[0-9a-f]+\) and \[0x[0-9a-f]+, 0x[0-9a-f]+\)\); an output must not share "
     r"memory with another binding"),
    ("numpy views overlap", lambda b: _overlapping_numpy(),
     r"outputs\[0\] \(output_value_tensor\) overlaps inputs\[0\] \(input_tensor\)"),
    ("outputs overlap each other", lambda b: _same_output_twice(),
     r"outputs\[1\] \(output_index_tensor\) overlaps outputs\[0\] \(output_value_tensor\)"),
]


def _fresh_buffers():
    return bytearray(DATA.tobytes()), bytearray([SENTINEL]) * 24, bytearray([SENTINEL]) * 24


def _snapshot(objs):
    out = []
    for o in objs:
        try:
            out.append(bytes(memoryview(o).cast("B")) if not isinstance(o, np.ndarray)
                       else o.tobytes(order="A") if not o.dtype.hasobject else o.copy())
        except (TypeError, ValueError):
            out.append(repr(o))
    return out


def _all_buffers(inputs, outputs):
    items = []
    for group in (inputs, outputs):
        items.extend(group if isinstance(group, list) else [group])
    return items


@pytest.mark.parametrize("make, pattern", [m[1:] for m in MISUSE], ids=[m[0] for m in MISUSE])
def test_misuse_removes_the_device(make, pattern):
    device, op = seed_op()
    inputs, outputs = make(_fresh_buffers())
    buffers = _all_buffers(inputs, outputs)
    before = _snapshot(buffers)
    with pytest.raises(dml.DMLError) as info:
        op.execute(inputs, outputs)
    err = info.value
    assert err.hresult == dml.DXGI_ERROR_DEVICE_REMOVED == 0x887A0005
    assert re.search(r"^execute\(TOP_K1\): " + pattern, err.message), err.message
    assert err.message.endswith("; the device is removed")
    assert str(err).startswith("DXGI_ERROR_DEVICE_REMOVED (0x887A0005): execute(TOP_K1): ")
    after = _snapshot(buffers)
    for a, b in zip(before, after):
        if isinstance(a, np.ndarray):
            assert (a == b).all()
        else:
            assert a == b  # nothing was written
    assert device.get_device_removed_reason() == err.message
    _assert_removed(device, op, err.message)


def _assert_removed(device, op, message):
    desc = dml.TopK1OperatorDesc(X_DESC, V_DESC, I_DESC, 3, 2, DEC)
    calls = [lambda: device.create_operator(desc),
             lambda: device.compile_operator(op.operator),
             lambda: op.execute(*_good_buffers()),
             lambda: device.create_operator("not even a desc")]
    for call in calls:
        with pytest.raises(dml.DMLError) as info:
            call()
        assert info.value.hresult == dml.DXGI_ERROR_DEVICE_REMOVED
        assert info.value.message == message


def _good_buffers():
    return [DATA.tobytes()], [bytearray(24), bytearray(24)]


def test_removal_reaches_every_operator_of_the_device_and_no_other():
    device, op = seed_op()
    other_op = device.compile_operator(device.create_operator(
        dml.TopKOperatorDesc(X_DESC, V_DESC, I_DESC, 3, 2)))
    healthy, healthy_op = seed_op()
    with pytest.raises(dml.DMLError):
        op.execute([DATA.tobytes()], [bytes(24), bytearray(24)])
    first = device.get_device_removed_reason()
    with pytest.raises(dml.DMLError) as info:
        other_op.execute(*_good_buffers())
    assert info.value.hresult == dml.DXGI_ERROR_DEVICE_REMOVED and info.value.message == first
    # A later, different misuse does not change the reason.
    with pytest.raises(dml.DMLError):
        op.execute([], [])
    assert device.get_device_removed_reason() == first
    assert "removed" in repr(device)
    inputs, outputs = _good_buffers()
    healthy_op.execute(inputs, outputs)
    assert healthy.get_device_removed_reason() is None
    np.testing.assert_array_equal(np.frombuffer(outputs[1], "<u4").reshape(1, 1, 3, 2), WANT_I)


def test_compile_operator_misuse_is_invalid_arg_without_removal():
    device, _ = seed_op()
    other = dml.create_device()
    foreign = other.create_operator(dml.TopKOperatorDesc(X_DESC, V_DESC, I_DESC, 3, 2))
    for bad, pattern in [(foreign, r"^compile_operator\(\): op was created by another device$"),
                         ("op", r"^compile_operator\(\): op='op' is not an Operator")]:
        with pytest.raises(dml.DMLError) as info:
            device.compile_operator(bad)
        assert info.value.hresult == dml.E_INVALIDARG
        assert re.search(pattern, info.value.message), info.value.message
    assert device.get_device_removed_reason() is None


def test_compiled_operator_reports_its_bindings():
    _, op = seed_op()
    assert op.input_names == ("input_tensor",)
    assert op.output_names == ("output_value_tensor", "output_index_tensor")
    assert op.operator.operator_type is dml.OperatorType.TOP_K1
    assert "DML_OPERATOR_TOP_K1" in repr(op) and "DML_OPERATOR_TOP_K1" in repr(op.operator)


# --- gather index values at execute ------------------------------------------------------

def _gather_op(index_type, idx_sizes=(2, 3)):
    x = dml.BufferTensorDesc(T.INT64, (2, 4))
    idx = dml.BufferTensorDesc(index_type, idx_sizes)
    out = dml.BufferTensorDesc(T.INT64, idx_sizes)
    return compile_op(dml.GatherElementsOperatorDesc(x, idx, out, axis=1))


GX = np.array([[-(2**63), 2**63 - 1, 2**53 + 1, 7], [0, 1, 2, 3]], "<i8")


@pytest.mark.parametrize("index_type, values, pattern", [
    (T.UINT32, [[0, 1, 4], [5, 0, 0]],
     r"indices_tensor\[0, 2\]=4 is out of range for input_tensor\.sizes\[1\]=4 \(need 0 <= index <= 3\)"),
    (T.INT32, [[0, 1, 2], [3, -5, 9]],
     r"indices_tensor\[1, 1\]=-5 is out of range for input_tensor\.sizes\[1\]=4 \(need -4 <= index <= 3\)"),
    (T.INT64, [[-(2**63), 0, 0], [0, 0, 0]], r"indices_tensor\[0, 0\]=-9223372036854775808"),
    (T.UINT64, [[0, 0, 0], [0, 0, 2**64 - 1]], r"indices_tensor\[1, 2\]=18446744073709551615"),
])
def test_gather_out_of_range_index_is_invalid_arg_and_writes_nothing(index_type, values, pattern):
    device, op = _gather_op(index_type)
    out = bytearray([SENTINEL]) * 48
    idx = np.array(values, DTYPES[index_type])
    with pytest.raises(dml.DMLError) as info:
        op.execute([GX, idx], [out])
    assert info.value.hresult == dml.E_INVALIDARG
    assert re.search(r"^execute\(GATHER_ELEMENTS\): " + pattern, info.value.message), \
        info.value.message
    assert out == bytearray([SENTINEL]) * 48
    assert device.get_device_removed_reason() is None  # bad data is not misuse
    good = np.zeros((2, 3), DTYPES[index_type])
    op.execute([GX, good], [out])
    assert np.frombuffer(out, "<i8").tolist() == [GX[0, 0]] * 3 + [0] * 3


@pytest.mark.parametrize("index_type", [T.INT32, T.INT64])
def test_gather_negative_indices_count_from_the_end(index_type):
    _, op = _gather_op(index_type, (2, 5))
    idx = np.array([[-4, -3, -2, -1, 3], [-1, 0, -4, 2, 1]], DTYPES[index_type])
    out = np.zeros((2, 5), "<i8")
    op.execute([GX, idx], [out])
    assert_same_bits(out, ref_gather(GX, 1, idx))


@pytest.mark.parametrize("data_type", sorted(DTYPES, key=int), ids=lambda t: t.name)
def test_every_data_type_round_trips_bits(data_type):
    dt = np.dtype(DTYPES[data_type])
    raw = np.random.default_rng(int(data_type)).integers(0, 256, 4 * 6 * dt.itemsize, np.uint8)
    x = dml.BufferTensorDesc(data_type, (4, 6))
    logical = np.frombuffer(raw.tobytes(), dt).reshape(4, 6)
    idx = dml.BufferTensorDesc(T.UINT32, (4, 6))
    out = dml.BufferTensorDesc(data_type, (4, 6))
    _, gather_op = compile_op(dml.GatherElementsOperatorDesc(x, idx, out, axis=0))
    index = np.random.default_rng(1).integers(0, 4, (4, 6)).astype("<u4")
    result = np.zeros(4 * 6 * dt.itemsize, np.uint8)
    gather_op.execute([raw, index], [result])
    assert_same_bits(result.view(dt).reshape(4, 6), ref_gather(logical, 0, index))
    if data_type is T.FLOAT64:
        return  # TOP_K never accepts FLOAT64
    v = dml.BufferTensorDesc(data_type, (4, 3))
    i = dml.BufferTensorDesc(T.UINT64, (4, 3))
    _, topk_op = compile_op(dml.TopK1OperatorDesc(x, v, i, axis=1, k=3, axis_direction=DEC))
    values, indices = np.zeros(12, dt), np.zeros(12, "<u8")
    topk_op.execute([raw], [values, indices])
    want_v, want_i = ref_topk(logical, 3, 1, largest=True)
    assert_same_bits(values.reshape(4, 3), want_v)
    np.testing.assert_array_equal(indices.reshape(4, 3), want_i)
