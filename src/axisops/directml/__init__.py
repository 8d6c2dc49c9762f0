"""A DirectML-style API: TOP_K1, TOP_K and GATHER_ELEMENTS on byte buffers.

A program written for DirectML's TopK and GatherElements operators ports line
by line: descs with sizes and strides over flat byte buffers, feature levels
that decide what is supported, ``create_operator`` that validates every rule
(raising :class:`DMLError` with ``E_INVALIDARG``), and ``execute`` that reads
and writes buffers only where the descs address them.  The computation is
:func:`axisops.topk` / :func:`axisops.gather`.

>>> import numpy as np
>>> from axisops import directml as dml
>>> device = dml.create_device()
>>> x = dml.BufferTensorDesc(dml.TensorDataType.FLOAT32, (1, 1, 3, 4))
>>> v = dml.BufferTensorDesc(dml.TensorDataType.FLOAT32, (1, 1, 3, 2))
>>> i = dml.BufferTensorDesc(dml.TensorDataType.UINT32, (1, 1, 3, 2))
>>> desc = dml.TopK1OperatorDesc(x, v, i, axis=3, k=2,
...                              axis_direction=dml.AxisDirection.DECREASING)
>>> op = device.compile_operator(device.create_operator(desc))
>>> data = np.array([0, 1, 10, 11, 3, 2, 9, 8, 4, 5, 6, 7], np.float32)
>>> values, indices = bytearray(v.total_tensor_size_in_bytes), np.zeros(6, np.uint32)
>>> op.execute(inputs=[data], outputs=[values, indices])
>>> np.frombuffer(values, np.float32).tolist(), indices.tolist()
([11.0, 10.0, 9.0, 8.0, 7.0, 6.0], [3, 2, 2, 3, 3, 2])
"""

from __future__ import annotations

from .device import HIGHEST_FEATURE_LEVEL, CompiledOperator, Device, Operator, create_device
from .enums import *  # noqa: F403  (the enumerations and their C names)
from .enums import C_NAMES, AxisDirection, FeatureLevel, OperatorType, TensorDataType, TensorFlags
from .errors import DXGI_ERROR_DEVICE_REMOVED, DXGI_ERROR_UNSUPPORTED, E_INVALIDARG, DMLError
from .operators import (
    GATHER_ELEMENTS_SUPPORT,
    TOP_K1_SUPPORT,
    TOP_K_SUPPORT,
    GatherElementsOperatorDesc,
    Support,
    TopK1OperatorDesc,
    TopKOperatorDesc,
)
from .tensors import MAX_DIMENSIONS, BufferTensorDesc, calc_buffer_tensor_size

__all__ = [
    "DXGI_ERROR_DEVICE_REMOVED",
    "DXGI_ERROR_UNSUPPORTED",
    "E_INVALIDARG",
    "GATHER_ELEMENTS_SUPPORT",
    "HIGHEST_FEATURE_LEVEL",
    "MAX_DIMENSIONS",
    "TOP_K1_SUPPORT",
    "TOP_K_SUPPORT",
    "AxisDirection",
    "BufferTensorDesc",
    "CompiledOperator",
    "DMLError",
    "Device",
    "FeatureLevel",
    "GatherElementsOperatorDesc",
    "Operator",
    "OperatorType",
    "Support",
    "TensorDataType",
    "TensorFlags",
    "TopK1OperatorDesc",
    "TopKOperatorDesc",
    "calc_buffer_tensor_size",
    "create_device",
    *C_NAMES,
]
