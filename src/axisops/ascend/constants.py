"""The numbers of CANN's headers: data types, formats, copy kinds, malloc policies, codes.

Every value is the one ``acl/acl_base.h``, ``acl/acl_rt.h`` and
``aclnn/aclnn_base.h`` define, so a C++ program's constants port unchanged.
:mod:`axisops.ascend.acl` re-exports the runtime ones and
:mod:`axisops.ascend.aclnn` the ``ACLNN_*`` status codes.

>>> from axisops.ascend import constants as c
>>> c.ACL_FLOAT, c.ACL_INT64, c.ACL_BF16, c.ACL_FORMAT_ND
(0, 9, 27, 2)
>>> c.DTYPE_NAMES[c.ACL_FLOAT16], c.code_name(161002)
('ACL_FLOAT16', 'ACLNN_ERR_PARAM_INVALID')
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "ACLNN_ERR_INNER",
    "ACLNN_ERR_INNER_NULLPTR",
    "ACLNN_ERR_PARAM_INVALID",
    "ACLNN_ERR_PARAM_NULLPTR",
    "ACLNN_ERR_RUNTIME_ERROR",
    "ACLNN_SUCCESS",
    "ACL_BF16",
    "ACL_BOOL",
    "ACL_COMPLEX64",
    "ACL_COMPLEX128",
    "ACL_DOUBLE",
    "ACL_ERROR_INTERNAL_ERROR",
    "ACL_ERROR_INVALID_DEVICE",
    "ACL_ERROR_INVALID_PARAM",
    "ACL_ERROR_REPEAT_INITIALIZE",
    "ACL_ERROR_RT_AICORE_EXCEPTION",
    "ACL_ERROR_RT_CONTEXT_NULL",
    "ACL_ERROR_RT_MEMORY_ALLOCATION",
    "ACL_ERROR_UNINITIALIZE",
    "ACL_FLOAT",
    "ACL_FLOAT16",
    "ACL_FORMAT_NCHW",
    "ACL_FORMAT_ND",
    "ACL_FORMAT_NHWC",
    "ACL_INT8",
    "ACL_INT16",
    "ACL_INT32",
    "ACL_INT64",
    "ACL_MEMCPY_DEVICE_TO_DEVICE",
    "ACL_MEMCPY_DEVICE_TO_HOST",
    "ACL_MEMCPY_HOST_TO_DEVICE",
    "ACL_MEMCPY_HOST_TO_HOST",
    "ACL_MEM_MALLOC_HUGE_FIRST",
    "ACL_MEM_MALLOC_HUGE_ONLY",
    "ACL_MEM_MALLOC_NORMAL_ONLY",
    "ACL_SUCCESS",
    "ACL_UINT8",
    "ACL_UINT16",
    "ACL_UINT32",
    "ACL_UINT64",
    "DTYPE_NAMES",
    "FORMAT_NAMES",
    "MEMCPY_KIND_NAMES",
    "RUNTIME_CONSTANTS",
    "code_name",
    "numpy_dtype",
]

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
DTYPE_NAMES: dict[int, str] = {
    ACL_FLOAT: "ACL_FLOAT", ACL_FLOAT16: "ACL_FLOAT16", ACL_INT8: "ACL_INT8",
    ACL_INT32: "ACL_INT32", ACL_UINT8: "ACL_UINT8", ACL_INT16: "ACL_INT16",
    ACL_UINT16: "ACL_UINT16", ACL_UINT32: "ACL_UINT32", ACL_INT64: "ACL_INT64",
    ACL_UINT64: "ACL_UINT64", ACL_DOUBLE: "ACL_DOUBLE", ACL_BOOL: "ACL_BOOL",
    ACL_COMPLEX64: "ACL_COMPLEX64", ACL_COMPLEX128: "ACL_COMPLEX128", ACL_BF16: "ACL_BF16",
}

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
        from ..dtypes import bfloat16

        return bfloat16()
    return np.dtype(_NUMPY_NAMES[data_type])


# --- aclFormat --------------------------------------------------------------------
ACL_FORMAT_NCHW = 0
ACL_FORMAT_NHWC = 1
ACL_FORMAT_ND = 2

#: The formats aclCreateTensor accepts; NCHW and NHWC are treated as ND.
FORMAT_NAMES: dict[int, str] = {
    ACL_FORMAT_NCHW: "ACL_FORMAT_NCHW", ACL_FORMAT_NHWC: "ACL_FORMAT_NHWC",
    ACL_FORMAT_ND: "ACL_FORMAT_ND",
}

# --- aclrtMemcpyKind and aclrtMemMallocPolicy ---------------------------------------
ACL_MEMCPY_HOST_TO_HOST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3

MEMCPY_KIND_NAMES: dict[int, str] = {
    ACL_MEMCPY_HOST_TO_HOST: "ACL_MEMCPY_HOST_TO_HOST",
    ACL_MEMCPY_HOST_TO_DEVICE: "ACL_MEMCPY_HOST_TO_DEVICE",
    ACL_MEMCPY_DEVICE_TO_HOST: "ACL_MEMCPY_DEVICE_TO_HOST",
    ACL_MEMCPY_DEVICE_TO_DEVICE: "ACL_MEMCPY_DEVICE_TO_DEVICE",
}

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

_CODE_NAMES: dict[int, str] = {
    ACL_ERROR_INVALID_PARAM: "ACL_ERROR_INVALID_PARAM",
    ACL_ERROR_UNINITIALIZE: "ACL_ERROR_UNINITIALIZE",
    ACL_ERROR_REPEAT_INITIALIZE: "ACL_ERROR_REPEAT_INITIALIZE",
    ACL_ERROR_INVALID_DEVICE: "ACL_ERROR_INVALID_DEVICE",
    ACL_ERROR_RT_CONTEXT_NULL: "ACL_ERROR_RT_CONTEXT_NULL",
    ACL_ERROR_RT_MEMORY_ALLOCATION: "ACL_ERROR_RT_MEMORY_ALLOCATION",
    ACL_ERROR_RT_AICORE_EXCEPTION: "ACL_ERROR_RT_AICORE_EXCEPTION",
    ACL_ERROR_INTERNAL_ERROR: "ACL_ERROR_INTERNAL_ERROR",
    ACLNN_ERR_PARAM_NULLPTR: "ACLNN_ERR_PARAM_NULLPTR",
    ACLNN_ERR_PARAM_INVALID: "ACLNN_ERR_PARAM_INVALID",
    ACLNN_ERR_RUNTIME_ERROR: "ACLNN_ERR_RUNTIME_ERROR",
    ACLNN_ERR_INNER: "ACLNN_ERR_INNER",
    ACLNN_ERR_INNER_NULLPTR: "ACLNN_ERR_INNER_NULLPTR",
}


def code_name(code: int) -> str:
    """The symbolic name of a status code (``"ACL_SUCCESS"`` for 0)."""
    return "ACL_SUCCESS" if code == 0 else _CODE_NAMES.get(code, f"status {code}")


#: The names :mod:`axisops.ascend.acl` re-exports (everything but the ACLNN codes).
RUNTIME_CONSTANTS: tuple[str, ...] = tuple(
    name for name in __all__ if name.startswith("ACL_")
)
