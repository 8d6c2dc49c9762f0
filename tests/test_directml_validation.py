"""Every descriptor rule of axisops.directml: enums, sizes, tensors, operators, feature levels.

Each rule is one row of a table: the desc that breaks it, and the message
DMLError(E_INVALIDARG) must carry (naming the field, the value and the rule).
"""

import re

import numpy as np
import pytest

from axisops import directml as dml

T = dml.TensorDataType
FL = dml.FeatureLevel
DEC, INC = dml.AxisDirection.DECREASING, dml.AxisDirection.INCREASING
OWNED = dml.TensorFlags.OWNED_BY_DML


def desc(dt, sizes, **kw):
    return dml.BufferTensorDesc(dt, sizes, **kw)


X = desc(T.FLOAT32, (1, 1, 3, 4))
V = desc(T.FLOAT32, (1, 1, 3, 2))
I = desc(T.UINT32, (1, 1, 3, 2))  # noqa: E741


def top_k1(**changes):
    fields = dict(input_tensor=X, output_value_tensor=V, output_index_tensor=I, axis=3, k=2,
                  axis_direction=DEC)
    fields.update(changes)
    return dml.TopK1OperatorDesc(**fields)


def top_k(**changes):
    fields = dict(input_tensor=X, output_value_tensor=V, output_index_tensor=I, axis=3, k=2)
    fields.update(changes)
    return dml.TopKOperatorDesc(**fields)


GX = desc(T.FLOAT32, (1, 2, 3, 4))
GI = desc(T.UINT32, (1, 2, 5, 4))
GO = desc(T.FLOAT32, (1, 2, 5, 4))


def gather_elements(**changes):
    fields = dict(input_tensor=GX, indices_tensor=GI, output_tensor=GO, axis=2)
    fields.update(changes)
    return dml.GatherElementsOperatorDesc(**fields)


def assert_invalid(call, pattern):
    with pytest.raises(dml.DMLError) as info:
        call()
    err = info.value
    assert err.hresult == dml.E_INVALIDARG == 0x80070057
    assert re.search(pattern, err.message), err.message
    assert str(err) == f"E_INVALIDARG (0x80070057): {err.message}"
    return err


# --- enumerations -------------------------------------------------------------

ENUM_VALUES = [
    (T, dict(UNKNOWN=0, FLOAT32=1, FLOAT16=2, UINT32=3, UINT16=4, UINT8=5, INT32=6, INT16=7,
             INT8=8, FLOAT64=9, UINT64=10, INT64=11), "DML_TENSOR_DATA_TYPE_"),
    (dml.AxisDirection, dict(INCREASING=0, DECREASING=1), "DML_AXIS_DIRECTION_"),
    (dml.TensorFlags, dict(NONE=0, OWNED_BY_DML=1), "DML_TENSOR_FLAG_"),
    (dml.OperatorType, dict(GATHER=67, TOP_K=71, GATHER_ELEMENTS=107, TOP_K1=112),
     "DML_OPERATOR_"),
    (FL, {f"FL_{v >> 12}_{(v >> 8) & 15}": v for v in (
        0x1000, 0x2000, 0x2100, 0x3000, 0x3100, 0x4000, 0x4100, 0x5000, 0x5100, 0x5200,
        0x6000, 0x6100, 0x6200, 0x6300, 0x6400)}, "DML_FEATURE_LEVEL_"),
]


@pytest.mark.parametrize("enum, values, prefix", ENUM_VALUES, ids=lambda v: getattr(v, "__name__", ""))
def test_enum_values_and_c_names(enum, values, prefix):
    assert {name: int(m) for name, m in enum.__members__.items()} == values
    for name, value in values.items():
        c = prefix + (name[3:] if enum is FL else name)
        alias = getattr(dml, c)
        assert alias is enum[name] and alias == value and alias.c_name == c
        assert c in dml.__all__


def test_no_stray_c_names():
    want = {prefix + (name[3:] if enum is FL else name)
            for enum, values, prefix in ENUM_VALUES for name in values}
    assert {n for n in dir(dml) if n.startswith("DML_")} == want


def test_hresult_constants():
    assert dml.E_INVALIDARG == 0x80070057
    assert dml.DXGI_ERROR_DEVICE_REMOVED == 0x887A0005
    assert dml.DXGI_ERROR_UNSUPPORTED == 0x887A0004
    err = dml.DMLError(dml.DXGI_ERROR_UNSUPPORTED, "why")
    assert isinstance(err, dml.DMLError) and err.hresult == 0x887A0004 and err.message == "why"
    assert str(err) == "DXGI_ERROR_UNSUPPORTED (0x887A0004): why"
    from axisops import AxisOpsError
    assert isinstance(err, AxisOpsError)


# --- create_device ------------------------------------------------------------

def test_create_device_default_is_the_highest_level():
    device = dml.create_device()
    assert device.feature_level is FL.FL_6_4 and device.strict_k is False
    assert dml.HIGHEST_FEATURE_LEVEL is FL.FL_6_4


@pytest.mark.parametrize("level", list(FL), ids=lambda f: f.name)
def test_create_device_at_every_level(level):
    assert dml.create_device(level).feature_level is level
    assert dml.create_device(int(level)).feature_level is level


@pytest.mark.parametrize("level", [0x6401, 0x6500, 0x7000, 0xFFFFFFFF])
def test_create_device_above_the_highest_is_unsupported(level):
    with pytest.raises(dml.DMLError) as info:
        dml.create_device(level)
    assert info.value.hresult == dml.DXGI_ERROR_UNSUPPORTED
    assert f"feature_level={level:#x} is above the highest supported, DML_FEATURE_LEVEL_6_4" \
        in info.value.message


@pytest.mark.parametrize("level, pattern", [
    (0x2200, r"feature_level=0x2200 is not a DML_FEATURE_LEVEL \(known: 0x1000, 0x2000"),
    (0, r"feature_level=0x0 is not a DML_FEATURE_LEVEL"),
    (-1, r"feature_level=-0x1 is not a DML_FEATURE_LEVEL"),
    ("6_4", r"feature_level='6_4' \(str\) is not a FeatureLevel"),
    (6.4, r"feature_level=6\.4 \(float\) is not a FeatureLevel"),
    (True, r"feature_level=True \(bool\) is not a FeatureLevel"),
])
def test_create_device_bad_feature_level(level, pattern):
    assert_invalid(lambda: dml.create_device(level), r"^create_device\(\): " + pattern)


@pytest.mark.parametrize("value", [1, "yes", None])
def test_create_device_strict_k_must_be_bool(value):
    assert_invalid(lambda: dml.create_device(strict_k=value), r"strict_k=.* is not a bool")


# --- calc_buffer_tensor_size ----------------------------------------------------

@pytest.mark.parametrize("dt, sizes, strides, want", [
    (T.FLOAT16, (1, 1, 3, 3), None, 20),
    (T.FLOAT32, (2, 3), (0, 1), 12),
    (T.FLOAT16, (1, 1, 3, 3), (0, 0, 0, 1), 8),
    (T.UINT8, (3,), None, 4),
    (T.FLOAT32, (2, 2), (1, 2), 16),
    (T.FLOAT64, (5,), None, 40),
    (T.INT64, (2, 3), (3, 1), 48),
    (T.UINT16, (4, 4), (8, 1), 56),  # (1 + 3*8 + 3) * 2 = 56
    (T.INT8, (1,), None, 4),
    (T.UINT32, (3, 1, 2), (5, 0, 1), 48),  # (1 + 2*5 + 0 + 1*1) * 4
])
def test_calc_buffer_tensor_size(dt, sizes, strides, want):
    assert dml.calc_buffer_tensor_size(dt, sizes, strides) == want
    assert dml.calc_buffer_tensor_size(int(dt), list(sizes),
                                       None if strides is None else list(strides)) == want
    assert desc(dt, sizes, strides=strides).total_tensor_size_in_bytes == want


@pytest.mark.parametrize("args, pattern", [
    ((T.UNKNOWN, (2,)), r"data_type=UNKNOWN is not a tensor data type"),
    ((42, (2,)), r"data_type=42 is not a tensor data type"),
    ((T.FLOAT32, ()), r"sizes=\(\) has 0 entries \(need 1 to 8 dimensions\)"),
    ((T.FLOAT32, (1,) * 9), r"sizes=\(1, 1, 1, 1, 1, 1, 1, 1, 1\) has 9 entries \(need 1 to 8"),
    ((T.FLOAT32, (2, 0)), r"sizes\[1\]=0 is invalid \(need 1 <= size < 2\*\*32"),
    ((T.FLOAT32, (2,), (1, 1)), r"strides=\(1, 1\) has 2 entries but sizes has 1"),
    ((T.FLOAT32, (2,), (-1,)), r"strides\[0\]=-1 is invalid \(strides are UINT"),
    ((T.FLOAT32, 3), r"sizes=3 \(int\) is not a sequence of integers"),
    ((T.FLOAT32, (2.0,)), r"sizes\[0\]=2\.0 \(float\) is not an integer"),
    ((1.0, (2,)), r"data_type=1\.0 \(float\) is not a TensorDataType"),
])
def test_calc_buffer_tensor_size_rejects(args, pattern):
    assert_invalid(lambda: dml.calc_buffer_tensor_size(*args),
                   r"^calc_buffer_tensor_size\(\): " + pattern)


# --- BufferTensorDesc construction checks only types ------------------------------

@pytest.mark.parametrize("kwargs, pattern", [
    (dict(data_type="FLOAT32", sizes=(1,)), r"data_type='FLOAT32' \(str\) is not a TensorDataType"),
    (dict(data_type=True, sizes=(1,)), r"data_type=True \(bool\)"),
    (dict(data_type=T.FLOAT32, sizes="12"), r"sizes='12' \(str\) is not a sequence"),
    (dict(data_type=T.FLOAT32, sizes=None), r"sizes=None \(NoneType\)"),
    (dict(data_type=T.FLOAT32, sizes=(1, True)), r"sizes\[1\]=True \(bool\) is not an integer"),
    (dict(data_type=T.FLOAT32, sizes=(2,), strides=(1.5,)), r"strides\[0\]=1\.5"),
    (dict(data_type=T.FLOAT32, sizes=(2,), total_tensor_size_in_bytes=8.0),
     r"total_tensor_size_in_bytes=8\.0 \(float\)"),
    (dict(data_type=T.FLOAT32, sizes=(2,), guaranteed_base_offset_alignment=None),
     r"guaranteed_base_offset_alignment=None"),
    (dict(data_type=T.FLOAT32, sizes=(2,), flags="NONE"), r"flags='NONE' \(str\)"),
])
def test_buffer_tensor_desc_type_checks(kwargs, pattern):
    assert_invalid(lambda: dml.BufferTensorDesc(**kwargs), r"^BufferTensorDesc\(\): " + pattern)


def test_buffer_tensor_desc_normalises_and_leaves_value_checks_to_create_operator():
    d = dml.BufferTensorDesc(3, [np.int64(2), 3], strides=np.array([3, 1]), flags=1)
    assert d.data_type is T.UINT32 and d.sizes == (2, 3) and d.strides == (3, 1)
    assert d.flags is OWNED and d.total_tensor_size_in_bytes == 24
    assert d.dimension_count == 2 and d.element_count == 6 and d.element_strides == (3, 1)
    assert desc(T.FLOAT32, (2, 3, 4)).element_strides == (12, 4, 1)
    bad = dml.BufferTensorDesc(T.FLOAT32, (2, 0))  # invalid: its total is left at 0
    assert bad.total_tensor_size_in_bytes == 0
    with pytest.raises(AttributeError):
        d.sizes = (1,)


# --- rules every tensor desc must meet (checked by create_operator) ---------------

P = r"^create_operator\(TOP_K1\): "
BIG = 1 << 32
TENSOR_RULES = [
    ("not a desc", dict(input_tensor=None), P + r"input_tensor=None is not a BufferTensorDesc"),
    ("numpy array as desc", dict(output_index_tensor=np.zeros(3)),
     P + r"output_index_tensor=array\(.*\) is not a BufferTensorDesc"),
    ("unknown data type", dict(input_tensor=desc(42, (1, 1, 3, 4), total_tensor_size_in_bytes=48)),
     P + r"input_tensor\.data_type=42 is not a tensor data type \(allowed: FLOAT32, FLOAT16"),
    ("UNKNOWN data type", dict(output_value_tensor=desc(T.UNKNOWN, (1, 1, 3, 2))),
     P + r"output_value_tensor\.data_type=UNKNOWN is not a tensor data type"),
    ("no sizes", dict(input_tensor=desc(T.FLOAT32, ())),
     P + r"input_tensor\.sizes=\(\) has 0 entries \(need 1 to 8 dimensions\)"),
    ("nine sizes", dict(input_tensor=desc(T.FLOAT32, (1,) * 9)),
     P + r"input_tensor\.sizes=\(1, 1, 1, 1, 1, 1, 1, 1, 1\) has 9 entries"),
    ("zero size", dict(input_tensor=desc(T.FLOAT32, (1, 1, 0, 4))),
     P + r"input_tensor\.sizes\[2\]=0 is invalid \(need 1 <= size < 2\*\*32; a zero size is invalid\)"),
    ("negative size", dict(output_index_tensor=desc(T.UINT32, (-1, 1, 3, 2))),
     P + r"output_index_tensor\.sizes\[0\]=-1 is invalid"),
    ("size beyond UINT", dict(input_tensor=desc(T.FLOAT32, (1, 1, 3, BIG),
                                                total_tensor_size_in_bytes=12 * BIG)),
     P + r"input_tensor\.sizes\[3\]=4294967296 is invalid"),
    ("2**32 elements", dict(input_tensor=desc(T.UINT8, (1, 65536, 65536, 4))),
     P + r"input_tensor\.sizes=\(1, 65536, 65536, 4\) hold 17179869184 elements \(need fewer "
         r"than 2\*\*32\)"),
    ("stride count", dict(input_tensor=desc(T.FLOAT32, (1, 1, 3, 4), strides=(4, 1),
                                            total_tensor_size_in_bytes=48)),
     P + r"input_tensor\.strides=\(4, 1\) has 2 entries but sizes has 4 \(need one stride per size\)"),
    ("negative stride", dict(input_tensor=desc(T.FLOAT32, (1, 1, 3, 4), strides=(0, 0, 4, -1),
                                               total_tensor_size_in_bytes=48)),
     P + r"input_tensor\.strides\[3\]=-1 is invalid \(strides are UINT: need 0 <= stride < 2\*\*32\)"),
    ("stride beyond UINT", dict(input_tensor=desc(T.FLOAT32, (1, 1, 3, 4),
                                                  strides=(0, 0, BIG, 1))),
     P + r"input_tensor\.strides\[2\]=4294967296 is invalid"),
    ("total below packed minimum", dict(input_tensor=desc(T.FLOAT32, (1, 1, 3, 4),
                                                          total_tensor_size_in_bytes=44)),
     P + r"input_tensor\.total_tensor_size_in_bytes=44 is below the 48 bytes its sizes and "
         r"strides address \(need >= calc_buffer_tensor_size\(\.\.\.\) = 48\)"),
    ("total below strided minimum", dict(output_value_tensor=desc(
        T.FLOAT32, (1, 1, 3, 2), strides=(0, 0, 8, 1), total_tensor_size_in_bytes=68)),
     P + r"output_value_tensor\.total_tensor_size_in_bytes=68 is below the 72 bytes"),
    ("total beyond UINT64", dict(input_tensor=desc(T.FLOAT32, (1, 1, 3, 4),
                                                   total_tensor_size_in_bytes=1 << 64)),
     P + r"input_tensor\.total_tensor_size_in_bytes=18446744073709551616 does not fit a UINT64"),
    ("alignment not a power of two", dict(input_tensor=desc(
        T.FLOAT32, (1, 1, 3, 4), guaranteed_base_offset_alignment=12)),
     P + r"input_tensor\.guaranteed_base_offset_alignment=12 is invalid \(need 0, or a power of "
         r"two >= the element size 4\)"),
    ("alignment below element size", dict(output_index_tensor=desc(
        T.UINT32, (1, 1, 3, 2), guaranteed_base_offset_alignment=2)),
     P + r"output_index_tensor\.guaranteed_base_offset_alignment=2 is invalid"),
    ("negative alignment", dict(input_tensor=desc(T.FLOAT32, (1, 1, 3, 4),
                                                  guaranteed_base_offset_alignment=-4)),
     P + r"input_tensor\.guaranteed_base_offset_alignment=-4 is invalid"),
    ("unknown flag bits", dict(input_tensor=desc(T.FLOAT32, (1, 1, 3, 4), flags=2)),
     P + r"input_tensor\.flags=2 has unknown bits \(allowed: NONE 0, OWNED_BY_DML 1\)"),
    ("OWNED_BY_DML output", dict(output_value_tensor=desc(T.FLOAT32, (1, 1, 3, 2), flags=OWNED)),
     P + r"output_value_tensor\.flags=OWNED_BY_DML is allowed on input tensors only"),
    ("output zero stride", dict(output_value_tensor=desc(T.FLOAT32, (1, 1, 3, 2),
                                                         strides=(0, 0, 0, 1))),
     P + r"output_value_tensor\.strides\[2\]=0 broadcasts sizes\[2\]=3 \(an output tensor must "
         r"not address any element twice; a zero stride is allowed only where the size is 1\)"),
    ("output overlapping strides", dict(output_index_tensor=desc(T.UINT32, (1, 1, 3, 2),
                                                                 strides=(6, 6, 1, 1))),
     P + r"output_index_tensor\.strides=\(6, 6, 1, 1\) with sizes=\(1, 1, 3, 2\) address an "
         r"element twice \(an output tensor must not address any element twice\)"),
    ("output interleaved overlap", dict(output_value_tensor=desc(T.FLOAT32, (1, 1, 3, 2),
                                                                 strides=(1, 1, 2, 4))),
     P + r"output_value_tensor\.strides=\(1, 1, 2, 4\) .* address an element twice"),
]


@pytest.mark.parametrize("changes, pattern", [r[1:] for r in TENSOR_RULES],
                         ids=[r[0] for r in TENSOR_RULES])
def test_tensor_rule(changes, pattern):
    device = dml.create_device()
    assert_invalid(lambda: device.create_operator(top_k1(**changes)), pattern)
    assert device.get_device_removed_reason() is None  # a bad desc does not remove the device


TENSOR_ACCEPTED = [
    ("alignment 0, 4, 16, 2**31", [desc(T.FLOAT32, (1, 1, 3, 4), guaranteed_base_offset_alignment=a)
                                   for a in (0, 4, 16, 1 << 31)], "input_tensor"),
    ("total above the minimum", [desc(T.FLOAT32, (1, 1, 3, 4), total_tensor_size_in_bytes=1000)],
     "input_tensor"),
    ("OWNED_BY_DML input", [desc(T.FLOAT32, (1, 1, 3, 4), flags=OWNED)], "input_tensor"),
    ("input zero strides", [desc(T.FLOAT32, (1, 1, 3, 4), strides=(0, 0, 0, 1))], "input_tensor"),
    ("input overlapping strides", [desc(T.FLOAT32, (1, 1, 3, 4), strides=(9, 9, 1, 1))],
     "input_tensor"),
    ("output zero stride where the size is 1",
     [desc(T.FLOAT32, (1, 1, 3, 2), strides=(0, 0, 2, 1))], "output_value_tensor"),
    ("output interleaved but distinct", [desc(T.FLOAT32, (1, 1, 3, 2), strides=(0, 7, 2, 3))],
     "output_value_tensor"),
    ("output transposed and padded", [desc(T.UINT32, (1, 1, 3, 2), strides=(100, 50, 1, 9))],
     "output_index_tensor"),
]


@pytest.mark.parametrize("descs, field", [r[1:] for r in TENSOR_ACCEPTED],
                         ids=[r[0] for r in TENSOR_ACCEPTED])
def test_tensor_accepted(descs, field):
    device = dml.create_device()
    for d in descs:
        op = device.create_operator(top_k1(**{field: d}))
        assert op.operator_type is dml.OperatorType.TOP_K1 and getattr(op.desc, field) is d


# --- TOP_K1 and TOP_K rules -----------------------------------------------------------

def _sized(dt, sizes):
    return desc(dt, sizes)


TOPK_RULES = [
    ("dimension counts differ", dict(output_value_tensor=_sized(T.FLOAT32, (1, 3, 2))),
     r"output_value_tensor has 3 dimensions but input_tensor has 4 \(need the same dimension "
     r"count for input_tensor, output_value_tensor, output_index_tensor\)"),
    ("index dimension count differs", dict(output_index_tensor=_sized(T.UINT32, (1, 1, 1, 3, 2))),
     r"output_index_tensor has 5 dimensions but input_tensor has 4"),
    ("axis negative", dict(axis=-1),
     r"axis=-1 is out of range for 4 dimensions \(need 0 <= axis < 4; Axis is unsigned, so a "
     r"negative axis is invalid\)"),
    ("axis = dimension count", dict(axis=4), r"axis=4 is out of range for 4 dimensions \(need 0 <= axis < 4\)$"),
    ("axis float", dict(axis=3.0), r"axis=3\.0 \(float\) is not an integer \(Axis is a UINT\)"),
    ("axis bool", dict(axis=True), r"axis=True \(bool\) is not an integer"),
    ("axis None", dict(axis=None), r"axis=None \(NoneType\) is not an integer"),
    ("k zero", dict(k=0), r"k=0 is out of range for input_tensor\.sizes\[3\]=4 \(need 1 <= k <= 4\)"),
    ("k above the axis size", dict(k=5), r"k=5 is out of range for input_tensor\.sizes\[3\]=4"),
    ("k negative", dict(k=-2), r"k=-2 is out of range"),
    ("k float", dict(k=2.0), r"k=2\.0 \(float\) is not an integer \(K is a UINT\)"),
    ("k numpy float", dict(k=np.float32(2)), r"k=.*\(float32\) is not an integer"),
    ("value sizes at axis", dict(output_value_tensor=_sized(T.FLOAT32, (1, 1, 3, 3))),
     r"output_value_tensor\.sizes=\(1, 1, 3, 3\) must be \(1, 1, 3, 2\) \(need input_tensor\.sizes "
     r"with sizes\[3\] = k = 2\)"),
    ("value sizes off axis", dict(output_value_tensor=_sized(T.FLOAT32, (1, 1, 2, 2))),
     r"output_value_tensor\.sizes=\(1, 1, 2, 2\) must be \(1, 1, 3, 2\)"),
    ("index sizes", dict(output_index_tensor=_sized(T.UINT32, (1, 2, 3, 2))),
     r"output_index_tensor\.sizes=\(1, 2, 3, 2\) must be \(1, 1, 3, 2\)"),
    ("value dtype differs", dict(output_value_tensor=_sized(T.FLOAT16, (1, 1, 3, 2))),
     r"output_value_tensor\.data_type=FLOAT16 must equal input_tensor\.data_type=FLOAT32"),
    ("FLOAT64 input never", dict(input_tensor=_sized(T.FLOAT64, (1, 1, 3, 4)),
                                 output_value_tensor=_sized(T.FLOAT64, (1, 1, 3, 2))),
     r"input_tensor\.data_type=FLOAT64 is not supported by DML_OPERATOR_TOP_K\w* at "
     r"DML_FEATURE_LEVEL_6_4 \(supported: FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, "
     r"UINT8, INT64, UINT64; DML_OPERATOR_TOP_K\w* never accepts FLOAT64 for input_tensor\)"),
    ("signed index never", dict(output_index_tensor=_sized(T.INT32, (1, 1, 3, 2))),
     r"output_index_tensor\.data_type=INT32 is not supported .*\(supported: UINT32, UINT64; "
     r"DML_OPERATOR_TOP_K\w* never accepts INT32 for output_index_tensor\)"),
    ("INT64 index never", dict(output_index_tensor=_sized(T.INT64, (1, 1, 3, 2))),
     r"output_index_tensor\.data_type=INT64 is not supported"),
    ("UINT16 index never", dict(output_index_tensor=_sized(T.UINT16, (1, 1, 3, 2))),
     r"output_index_tensor\.data_type=UINT16 is not supported"),
    ("FLOAT32 index never", dict(output_index_tensor=_sized(T.FLOAT32, (1, 1, 3, 2))),
     r"output_index_tensor\.data_type=FLOAT32 is not supported"),
]


@pytest.mark.parametrize("make, name", [(top_k1, "TOP_K1"), (top_k, "TOP_K")], ids=["TOP_K1", "TOP_K"])
@pytest.mark.parametrize("changes, pattern", [r[1:] for r in TOPK_RULES], ids=[r[0] for r in TOPK_RULES])
def test_topk_rule(make, name, changes, pattern):
    device = dml.create_device()
    assert_invalid(lambda: device.create_operator(make(**changes)),
                   rf"^create_operator\({name}\): " + pattern)


@pytest.mark.parametrize("value, ok", [(0, True), (1, True), (INC, True), (DEC, True),
                                       (np.int8(1), True), (2, False), (-1, False),
                                       (True, False), ("DECREASING", False), (None, False)])
def test_top_k1_axis_direction(value, ok):
    device = dml.create_device()
    if ok:
        device.create_operator(top_k1(axis_direction=value))
    else:
        assert_invalid(lambda: device.create_operator(top_k1(axis_direction=value)),
                       r"^create_operator\(TOP_K1\): axis_direction=.* is not an AxisDirection "
                       r"\(need INCREASING 0 or DECREASING 1\)$")


@pytest.mark.parametrize("make", [top_k1, top_k], ids=["TOP_K1", "TOP_K"])
@pytest.mark.parametrize("k, strict_ok", [(1, True), (3, True), (4, False), (np.uint32(2), True)])
def test_k_bound_lenient_and_strict(make, k, strict_ok):
    v, i = _sized(T.FLOAT32, (1, 1, 3, int(k))), _sized(T.UINT32, (1, 1, 3, int(k)))
    d = make(k=k, output_value_tensor=v, output_index_tensor=i)
    assert dml.create_device().create_operator(d).desc is d  # 1 <= K <= Sizes[axis]
    device = dml.create_device(strict_k=True)
    if strict_ok:
        assert device.create_operator(d).desc is d
    else:
        assert_invalid(lambda: device.create_operator(d),
                       r"k=4 is out of range for input_tensor\.sizes\[3\]=4 \(need 0 < k < 4: "
                       r"strict_k=True applies the page's bound 0 < K < Sizes\[axis\]\)")


def test_strict_k_rejects_every_k_on_an_axis_of_size_one():
    d = top_k1(input_tensor=_sized(T.FLOAT32, (1, 1, 3, 1)),
               output_value_tensor=_sized(T.FLOAT32, (1, 1, 3, 1)),
               output_index_tensor=_sized(T.UINT32, (1, 1, 3, 1)), k=1)
    dml.create_device().create_operator(d)
    assert_invalid(lambda: dml.create_device(strict_k=True).create_operator(d), r"need 0 < k < 1")


@pytest.mark.parametrize("bad, pattern", [
    ("top_k1", r"desc='top_k1' is not an operator desc"),
    (None, r"desc=None is not an operator desc \(need TopK1OperatorDesc, TopKOperatorDesc or "
           r"GatherElementsOperatorDesc\)"),
    (X, r"desc=BufferTensorDesc\(.*\) is not an operator desc"),
])
def test_create_operator_needs_an_operator_desc(bad, pattern):
    assert_invalid(lambda: dml.create_device().create_operator(bad), r"^create_operator\(\): " + pattern)


# --- GATHER_ELEMENTS rules --------------------------------------------------------------

G = r"^create_operator\(GATHER_ELEMENTS\): "
GATHER_RULES = [
    ("indices dimension count", dict(indices_tensor=_sized(T.UINT32, (2, 5, 4))),
     r"indices_tensor has 3 dimensions but input_tensor has 4 \(need the same dimension count "
     r"for input_tensor, indices_tensor, output_tensor\)"),
    ("output dimension count", dict(output_tensor=_sized(T.FLOAT32, (1, 1, 2, 5, 4))),
     r"output_tensor has 5 dimensions but input_tensor has 4"),
    ("axis too big", dict(axis=4), r"axis=4 is out of range for 4 dimensions \(need 0 <= axis < 4\)"),
    ("axis negative", dict(axis=-1), r"axis=-1 is out of range .*Axis is unsigned"),
    ("axis str", dict(axis="2"), r"axis='2' \(str\) is not an integer \(Axis is a UINT\)"),
    ("indices larger off axis", dict(indices_tensor=_sized(T.UINT32, (1, 2, 5, 5)),
                                     output_tensor=_sized(T.FLOAT32, (1, 2, 5, 5))),
     r"indices_tensor\.sizes\[3\]=5 must equal input_tensor\.sizes\[3\]=4 \(index sizes equal "
     r"the input's in every dimension except axis=2\)"),
    ("indices smaller off axis", dict(indices_tensor=_sized(T.UINT32, (1, 1, 5, 4)),
                                      output_tensor=_sized(T.FLOAT32, (1, 1, 5, 4))),
     r"indices_tensor\.sizes\[1\]=1 must equal input_tensor\.sizes\[1\]=2"),
    ("output sizes", dict(output_tensor=_sized(T.FLOAT32, (1, 2, 3, 4))),
     r"output_tensor\.sizes=\(1, 2, 3, 4\) must be \(1, 2, 5, 4\) \(need indices_tensor\.sizes\)"),
    ("output dtype", dict(output_tensor=_sized(T.INT32, (1, 2, 5, 4))),
     r"output_tensor\.data_type=INT32 must equal input_tensor\.data_type=FLOAT32"),
    ("FLOAT32 indices never", dict(indices_tensor=_sized(T.FLOAT32, (1, 2, 5, 4))),
     r"indices_tensor\.data_type=FLOAT32 is not supported by DML_OPERATOR_GATHER_ELEMENTS at "
     r"DML_FEATURE_LEVEL_6_4 \(supported: INT32, INT64, UINT32, UINT64; "
     r"DML_OPERATOR_GATHER_ELEMENTS never accepts FLOAT32 for indices_tensor\)"),
    ("INT16 indices never", dict(indices_tensor=_sized(T.INT16, (1, 2, 5, 4))),
     r"indices_tensor\.data_type=INT16 is not supported"),
    ("UINT8 indices never", dict(indices_tensor=_sized(T.UINT8, (1, 2, 5, 4))),
     r"indices_tensor\.data_type=UINT8 is not supported"),
    ("indices tensor rules apply", dict(indices_tensor=_sized(T.UINT32, (1, 2, 0, 4))),
     r"indices_tensor\.sizes\[2\]=0 is invalid"),
    ("output tensor rules apply", dict(output_tensor=desc(T.FLOAT32, (1, 2, 5, 4),
                                                          strides=(0, 0, 0, 1))),
     r"output_tensor\.strides\[1\]=0 broadcasts sizes\[1\]=2"),
]


@pytest.mark.parametrize("changes, pattern", [r[1:] for r in GATHER_RULES],
                         ids=[r[0] for r in GATHER_RULES])
def test_gather_elements_rule(changes, pattern):
    assert_invalid(lambda: dml.create_device().create_operator(gather_elements(**changes)),
                   G + pattern)


@pytest.mark.parametrize("axis_size", [1, 3, 7])
def test_gather_elements_index_axis_size_is_free(axis_size):
    idx, out = _sized(T.INT64, (1, 2, axis_size, 4)), _sized(T.FLOAT32, (1, 2, axis_size, 4))
    op = dml.create_device().create_operator(gather_elements(indices_tensor=idx, output_tensor=out))
    assert op.operator_type is dml.OperatorType.GATHER_ELEMENTS


# --- feature-level rows of the tensor-support tables ----------------------------------

EIGHT = ["FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8"]
ALL_TYPES = [t for t in T if t is not T.UNKNOWN]
LEVELS = list(FL)

# (operator, since, dimension counts, data types, index types): the spec's tables.
SUPPORT_ROWS = [
    ("TOP_K", FL.FL_1_0, (4, 4), ["FLOAT32", "FLOAT16"], ["UINT32"]),
    ("TOP_K", FL.FL_2_1, (4, 4), EIGHT, ["UINT32"]),
    ("TOP_K", FL.FL_3_1, (1, 8), EIGHT, ["UINT32"]),
    ("TOP_K", FL.FL_5_0, (1, 8), EIGHT + ["INT64", "UINT64"], ["UINT32", "UINT64"]),
    ("TOP_K1", FL.FL_2_1, (4, 4), EIGHT, ["UINT32"]),
    ("TOP_K1", FL.FL_3_1, (1, 8), EIGHT, ["UINT32"]),
    ("TOP_K1", FL.FL_5_0, (1, 8), EIGHT + ["INT64", "UINT64"], ["UINT32", "UINT64"]),
    ("GATHER_ELEMENTS", FL.FL_2_1, (4, 4), EIGHT, ["UINT32"]),
    ("GATHER_ELEMENTS", FL.FL_3_0, (1, 8), EIGHT, ["INT32", "INT64", "UINT32", "UINT64"]),
    ("GATHER_ELEMENTS", FL.FL_4_1, (1, 8), EIGHT + ["FLOAT64", "INT64", "UINT64"],
     ["INT32", "INT64", "UINT32", "UINT64"]),
]
FIRST_LEVEL = {"TOP_K": FL.FL_1_0, "TOP_K1": FL.FL_2_1, "GATHER_ELEMENTS": FL.FL_2_1}


def _levels_of(row):
    op, since = row[0], row[1]
    later = [r[1] for r in SUPPORT_ROWS if r[0] == op and r[1] > since]
    until = min(later) if later else 0x10000
    return [f for f in LEVELS if since <= f < until]


def _make(op, ndim, data_type, index_type):
    """A desc of ``op`` that is valid except perhaps for the given types and rank."""
    sizes = (2,) * (ndim - 1) + (3,)
    out = sizes[:-1] + (2,)
    if op == "GATHER_ELEMENTS":
        return dml.GatherElementsOperatorDesc(desc(data_type, sizes), desc(index_type, out),
                                              desc(data_type, out), axis=ndim - 1)
    x, v, i = desc(data_type, sizes), desc(data_type, out), desc(index_type, out)
    if op == "TOP_K":
        return dml.TopKOperatorDesc(x, v, i, axis=ndim - 1, k=2)
    return dml.TopK1OperatorDesc(x, v, i, axis=ndim - 1, k=2, axis_direction=INC)


def _accepted(device, d):
    try:
        device.create_operator(d)
    except dml.DMLError as err:
        assert err.hresult == dml.E_INVALIDARG
        return False
    return True


@pytest.mark.parametrize("row", SUPPORT_ROWS, ids=[f"{r[0]}-{r[1].name}" for r in SUPPORT_ROWS])
def test_feature_level_row(row):
    op, _, (lo, hi), data_types, index_types = row
    index0, data0 = T[index_types[0]], T[data_types[0]]
    for level in _levels_of(row):
        device = dml.create_device(level)
        for t in ALL_TYPES:
            assert _accepted(device, _make(op, 4, t, index0)) == (t.name in data_types), (level, t)
            assert _accepted(device, _make(op, 4, data0, t)) == (t.name in index_types), (level, t)
        for ndim in range(1, 9):
            assert _accepted(device, _make(op, ndim, data0, index0)) == (lo <= ndim <= hi), \
                (level, ndim)


@pytest.mark.parametrize("op", sorted(FIRST_LEVEL))
def test_operator_is_unavailable_below_its_first_level(op):
    first = FIRST_LEVEL[op]
    for level in (f for f in LEVELS if f < first):
        assert_invalid(lambda lv=level: dml.create_device(lv).create_operator(
            _make(op, 4, T.FLOAT32, T.UINT32)),
            rf"^create_operator\({op}\): DML_OPERATOR_{op} needs {first.c_name} or higher "
            rf"\(the device was created at {level.c_name}\)$")


@pytest.mark.parametrize("op, level, make, pattern", [
    ("TOP_K1", FL.FL_4_1, lambda: _make("TOP_K1", 4, T.INT64, T.UINT32),
     r"input_tensor\.data_type=INT64 is not supported by DML_OPERATOR_TOP_K1 at "
     r"DML_FEATURE_LEVEL_4_1 \(supported: FLOAT32, .*, UINT8; INT64 needs DML_FEATURE_LEVEL_5_0 "
     r"or higher\)"),
    ("TOP_K1", FL.FL_4_1, lambda: _make("TOP_K1", 4, T.FLOAT32, T.UINT64),
     r"output_index_tensor\.data_type=UINT64 .*\(supported: UINT32; UINT64 needs "
     r"DML_FEATURE_LEVEL_5_0 or higher\)"),
    ("TOP_K", FL.FL_2_0, lambda: _make("TOP_K", 4, T.INT8, T.UINT32),
     r"input_tensor\.data_type=INT8 is not supported by DML_OPERATOR_TOP_K at "
     r"DML_FEATURE_LEVEL_2_0 \(supported: FLOAT32, FLOAT16; INT8 needs DML_FEATURE_LEVEL_2_1"),
    ("TOP_K1", FL.FL_3_0, lambda: _make("TOP_K1", 3, T.FLOAT32, T.UINT32),
     r"input_tensor has 3 dimensions, which DML_OPERATOR_TOP_K1 does not support at "
     r"DML_FEATURE_LEVEL_3_0 \(need exactly 4; 1 to 8 from DML_FEATURE_LEVEL_3_1\)$"),
    ("GATHER_ELEMENTS", FL.FL_2_1, lambda: _make("GATHER_ELEMENTS", 8, T.FLOAT32, T.UINT32),
     r"input_tensor has 8 dimensions, .* at DML_FEATURE_LEVEL_2_1 \(need exactly 4; 1 to 8 from "
     r"DML_FEATURE_LEVEL_3_0\)$"),
    ("GATHER_ELEMENTS", FL.FL_2_1, lambda: _make("GATHER_ELEMENTS", 4, T.FLOAT32, T.INT32),
     r"indices_tensor\.data_type=INT32 .*\(supported: UINT32; INT32 needs DML_FEATURE_LEVEL_3_0"),
    ("GATHER_ELEMENTS", FL.FL_4_0, lambda: _make("GATHER_ELEMENTS", 4, T.FLOAT64, T.INT64),
     r"input_tensor\.data_type=FLOAT64 .*; FLOAT64 needs DML_FEATURE_LEVEL_4_1 or higher\)"),
])
def test_feature_level_messages_say_where_support_starts(op, level, make, pattern):
    assert_invalid(lambda: dml.create_device(level).create_operator(make()),
                   rf"^create_operator\({op}\): " + pattern)


def test_support_tables_are_exported():
    assert [r.since for r in dml.TOP_K1_SUPPORT] == [FL.FL_2_1, FL.FL_3_1, FL.FL_5_0]
    assert [r.since for r in dml.TOP_K_SUPPORT] == [FL.FL_1_0, FL.FL_2_1, FL.FL_3_1, FL.FL_5_0]
    assert [r.since for r in dml.GATHER_ELEMENTS_SUPPORT] == [FL.FL_2_1, FL.FL_3_0, FL.FL_4_1]
