"""The numbers of CANN's headers, defined once: data types, formats, copy kinds, policies, codes.

Every value is the one ``acl/acl_base.h``, ``acl/acl_rt.h`` and
``aclnn/aclnn_base.h`` define, so a C++ program's constants port unchanged.
The public modules export them by prefix, without a list of their own:
:mod:`axisops.ascend.acl` every ``ACL_*`` name (:data:`ACL_EXPORTS`) and
:mod:`axisops.ascend.aclnn` every ``ACLNN_*`` code (:data:`ACLNN_EXPORTS`).
The name tables are read off the definitions, section by section.

>>> from axisops.ascend import _constants as c
>>> c.ACL_FLOAT, c.ACL_INT64, c.ACL_BF16, c.ACL_FORMAT_ND
(0, 9, 27, 2)
>>> c.DTYPE_NAMES[c.ACL_FLOAT16], c.ACL_EXPORTS["ACL_INT8"], c.ACLNN_EXPORTS["ACLNN_ERR_INNER"]
('ACL_FLOAT16', 2, 561000)
>>> listing(FORMAT_NAMES)
'ACL_FORMAT_NCHW 0, ACL_FORMAT_NHWC 1, ACL_FORMAT_ND 2'
"""

from __future__ import annotations

import numpy as np

from .._forksafe import imported


def _section(first: str, last: str) -> dict[int, str]:
    """``{value: name}`` of the constants defined from ``first`` to ``last``, in file order."""
    names = list(globals())
    return {globals()[name]: name for name in names[names.index(first):names.index(last) + 1]}


def listing(names: dict[int, str]) -> str:
    """``"NAME value, NAME value"`` of a name table, for the messages that list what is allowed."""
    return ", ".join(f"{name} {value}" for value, name in names.items())


# --- aclDataType ----------------------------------------------------------------
ACL_FLOAT = 0
ACL_FLOAT16 = 1
ACL_INT8 = 2
ACL_INT32 = 3
ACL_UINT8 = 4
ACL_INT16 = 6
ACL_UINT16 = 7
ACL_UINT32 = 8
ACL_INT64 = 9
ACL_UINT64 = 10
ACL_DOUBLE = 11
ACL_BOOL = 12
ACL_COMPLEX64 = 16
ACL_COMPLEX128 = 17
ACL_BF16 = 27

#: The data types this emulator knows, by value (anything else is refused by aclCreateTensor).
DTYPE_NAMES: dict[int, str] = _section("ACL_FLOAT", "ACL_BF16")

# NumPy names of the element types; bfloat16 comes from ml_dtypes, imported on first use.
_NUMPY_NAMES: dict[int, str] = {
    ACL_FLOAT: "float32", ACL_FLOAT16: "float16", ACL_INT8: "int8", ACL_INT32: "int32",
    ACL_UINT8: "uint8", ACL_INT16: "int16", ACL_UINT16: "uint16", ACL_UINT32: "uint32",
    ACL_INT64: "int64", ACL_UINT64: "uint64", ACL_DOUBLE: "float64", ACL_BOOL: "bool",
    ACL_COMPLEX64: "complex64", ACL_COMPLEX128: "complex128",
}


def numpy_dtype(data_type: int) -> np.dtype:
    """The NumPy dtype of a known ``aclDataType`` (device memory is in host byte order).

    >>> numpy_dtype(ACL_INT64), numpy_dtype(ACL_BF16).name
    (dtype('int64'), 'bfloat16')
    """
    if data_type == ACL_BF16:
        imported("axisops.dtypes")
        from ..dtypes import bfloat16

        return bfloat16()
    return np.dtype(_NUMPY_NAMES[data_type])


# --- aclFormat --------------------------------------------------------------------
ACL_FORMAT_NCHW = 0
ACL_FORMAT_NHWC = 1
ACL_FORMAT_ND = 2

#: The formats aclCreateTensor accepts; NCHW and NHWC are treated as ND.
FORMAT_NAMES: dict[int, str] = _section("ACL_FORMAT_NCHW", "ACL_FORMAT_ND")

# --- aclrtMemcpyKind and aclrtMemMallocPolicy ---------------------------------------
ACL_MEMCPY_HOST_TO_HOST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3

MEMCPY_KIND_NAMES: dict[int, str] = _section("ACL_MEMCPY_HOST_TO_HOST",
                                             "ACL_MEMCPY_DEVICE_TO_DEVICE")

ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEM_MALLOC_HUGE_ONLY = 1
ACL_MEM_MALLOC_NORMAL_ONLY = 2

# --- status codes -------------------------------------------------------------------
ACL_SUCCESS = 0
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_UNINITIALIZE = 100001
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_ERROR_INVALID_DEVICE = 200002
ACL_ERROR_RT_CONTEXT_NULL = 107002
ACL_ERROR_RT_MEMORY_ALLOCATION = 207001
ACL_ERROR_RT_AICORE_EXCEPTION = 507015
ACL_ERROR_INTERNAL_ERROR = 500000

ACLNN_SUCCESS = 0
ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACLNN_ERR_RUNTIME_ERROR = 361001
ACLNN_ERR_INNER = 561000
ACLNN_ERR_INNER_NULLPTR = 561103

# --- what the public modules export ------------------------------------------------------
#: Every ``ACL_*`` constant by name: what :mod:`axisops.ascend.acl` exports.
ACL_EXPORTS: dict[str, int] = {n: v for n, v in globals().items() if n.startswith("ACL_")}
#: Every ``ACLNN_*`` status code by name: what :mod:`axisops.ascend.aclnn` exports.
ACLNN_EXPORTS: dict[str, int] = {n: v for n, v in globals().items() if n.startswith("ACLNN_")}
