"""The DirectML enumerations this API uses, with the values of ``DirectML.h``.

Every member also has its C name, as a property (``c_name``) and as a
module-level alias, so that C++ code ports line by line:

>>> from axisops import directml as dml
>>> dml.DML_AXIS_DIRECTION_DECREASING is dml.AxisDirection.DECREASING
True
>>> int(dml.DML_OPERATOR_TOP_K1), dml.FeatureLevel.FL_5_0.c_name
(112, 'DML_FEATURE_LEVEL_5_0')
"""

from __future__ import annotations

from enum import IntEnum, IntFlag

__all__ = [
    "AxisDirection",
    "FeatureLevel",
    "OperatorType",
    "TensorDataType",
    "TensorFlags",
    "c_name",
]


def c_name(member: IntEnum | IntFlag) -> str:
    """The C spelling of an enumeration member, e.g. ``DML_TENSOR_DATA_TYPE_FLOAT32``."""
    prefix = _C_PREFIXES[type(member)]
    name = member.name or str(int(member))
    return prefix + (name[3:] if isinstance(member, FeatureLevel) else name)


class _CNamed:
    @property
    def c_name(self) -> str:
        """The C spelling of this member."""
        return c_name(self)  # type: ignore[arg-type]


class TensorDataType(_CNamed, IntEnum):
    """``DML_TENSOR_DATA_TYPE``."""

    UNKNOWN = 0
    FLOAT32 = 1
    FLOAT16 = 2
    UINT32 = 3
    UINT16 = 4
    UINT8 = 5
    INT32 = 6
    INT16 = 7
    INT8 = 8
    FLOAT64 = 9
    UINT64 = 10
    INT64 = 11


class AxisDirection(_CNamed, IntEnum):
    """``DML_AXIS_DIRECTION``: INCREASING selects the smallest, DECREASING the largest."""

    INCREASING = 0
    DECREASING = 1


class TensorFlags(_CNamed, IntFlag):
    """``DML_TENSOR_FLAGS``."""

    NONE = 0
    OWNED_BY_DML = 1


class OperatorType(_CNamed, IntEnum):
    """``DML_OPERATOR_TYPE`` (the members this API knows of)."""

    GATHER = 67
    TOP_K = 71
    GATHER_ELEMENTS = 107
    TOP_K1 = 112


class FeatureLevel(_CNamed, IntEnum):
    """``DML_FEATURE_LEVEL``."""

    FL_1_0 = 0x1000
    FL_2_0 = 0x2000
    FL_2_1 = 0x2100
    FL_3_0 = 0x3000
    FL_3_1 = 0x3100
    FL_4_0 = 0x4000
    FL_4_1 = 0x4100
    FL_5_0 = 0x5000
    FL_5_1 = 0x5100
    FL_5_2 = 0x5200
    FL_6_0 = 0x6000
    FL_6_1 = 0x6100
    FL_6_2 = 0x6200
    FL_6_3 = 0x6300
    FL_6_4 = 0x6400


_C_PREFIXES: dict[type, str] = {
    TensorDataType: "DML_TENSOR_DATA_TYPE_",
    AxisDirection: "DML_AXIS_DIRECTION_",
    TensorFlags: "DML_TENSOR_FLAG_",
    OperatorType: "DML_OPERATOR_",
    FeatureLevel: "DML_FEATURE_LEVEL_",
}

# The C names, as DirectML.h spells them.
DML_TENSOR_DATA_TYPE_UNKNOWN = TensorDataType.UNKNOWN
DML_TENSOR_DATA_TYPE_FLOAT32 = TensorDataType.FLOAT32
DML_TENSOR_DATA_TYPE_FLOAT16 = TensorDataType.FLOAT16
DML_TENSOR_DATA_TYPE_UINT32 = TensorDataType.UINT32
DML_TENSOR_DATA_TYPE_UINT16 = TensorDataType.UINT16
DML_TENSOR_DATA_TYPE_UINT8 = TensorDataType.UINT8
DML_TENSOR_DATA_TYPE_INT32 = TensorDataType.INT32
DML_TENSOR_DATA_TYPE_INT16 = TensorDataType.INT16
DML_TENSOR_DATA_TYPE_INT8 = TensorDataType.INT8
DML_TENSOR_DATA_TYPE_FLOAT64 = TensorDataType.FLOAT64
DML_TENSOR_DATA_TYPE_UINT64 = TensorDataType.UINT64
DML_TENSOR_DATA_TYPE_INT64 = TensorDataType.INT64

DML_AXIS_DIRECTION_INCREASING = AxisDirection.INCREASING
DML_AXIS_DIRECTION_DECREASING = AxisDirection.DECREASING

DML_TENSOR_FLAG_NONE = TensorFlags.NONE
DML_TENSOR_FLAG_OWNED_BY_DML = TensorFlags.OWNED_BY_DML

DML_OPERATOR_GATHER = OperatorType.GATHER
DML_OPERATOR_TOP_K = OperatorType.TOP_K
DML_OPERATOR_GATHER_ELEMENTS = OperatorType.GATHER_ELEMENTS
DML_OPERATOR_TOP_K1 = OperatorType.TOP_K1

DML_FEATURE_LEVEL_1_0 = FeatureLevel.FL_1_0
DML_FEATURE_LEVEL_2_0 = FeatureLevel.FL_2_0
DML_FEATURE_LEVEL_2_1 = FeatureLevel.FL_2_1
DML_FEATURE_LEVEL_3_0 = FeatureLevel.FL_3_0
DML_FEATURE_LEVEL_3_1 = FeatureLevel.FL_3_1
DML_FEATURE_LEVEL_4_0 = FeatureLevel.FL_4_0
DML_FEATURE_LEVEL_4_1 = FeatureLevel.FL_4_1
DML_FEATURE_LEVEL_5_0 = FeatureLevel.FL_5_0
DML_FEATURE_LEVEL_5_1 = FeatureLevel.FL_5_1
DML_FEATURE_LEVEL_5_2 = FeatureLevel.FL_5_2
DML_FEATURE_LEVEL_6_0 = FeatureLevel.FL_6_0
DML_FEATURE_LEVEL_6_1 = FeatureLevel.FL_6_1
DML_FEATURE_LEVEL_6_2 = FeatureLevel.FL_6_2
DML_FEATURE_LEVEL_6_3 = FeatureLevel.FL_6_3
DML_FEATURE_LEVEL_6_4 = FeatureLevel.FL_6_4

#: Every C alias defined above, for ``from axisops.directml import *``.
C_NAMES: tuple[str, ...] = tuple(n for n in dir() if n.startswith("DML_"))
__all__ += ["C_NAMES", *C_NAMES]
