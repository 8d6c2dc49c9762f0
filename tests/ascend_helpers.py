"""Shared pieces of the axisops.ascend tests: device buffers and tensors (the ``stream``
fixture is in conftest.py), and the few white-box looks at the emulator's state that no
public call gives (every test reaches the internals through here)."""

import ml_dtypes
import numpy as np

from axisops.ascend import acl, aclnn
from axisops.ascend._context import CONTEXT

H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
ND = acl.ACL_FORMAT_ND
SENTINEL = 0x5A
#: aclnnTopk's data types and their NumPy types; aclnnGather adds ACL_BOOL.
TOPK_TYPES = {
    acl.ACL_FLOAT: np.float32, acl.ACL_FLOAT16: np.float16, acl.ACL_BF16: ml_dtypes.bfloat16,
    acl.ACL_DOUBLE: np.float64, acl.ACL_INT8: np.int8, acl.ACL_INT16: np.int16,
    acl.ACL_INT32: np.int32, acl.ACL_INT64: np.int64, acl.ACL_UINT8: np.uint8,
    acl.ACL_UINT16: np.uint16, acl.ACL_UINT32: np.uint32, acl.ACL_UINT64: np.uint64,
}
GATHER_TYPES = {**TOPK_TYPES, acl.ACL_BOOL: np.bool_}


def put(host, pad=0):
    """Device memory holding ``host``'s bytes, then ``pad`` sentinel bytes."""
    raw = np.concatenate([np.ascontiguousarray(host).reshape(-1).view(np.uint8),
                          np.full(pad, SENTINEL, np.uint8)])
    ptr, ret = acl.rt.malloc(max(raw.size, 1), acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    assert acl.rt.memcpy(ptr, raw.size, acl.util.numpy_to_ptr(raw), raw.size, H2D) == 0
    return ptr


def filled(nbytes):
    """Device memory of ``nbytes`` sentinel bytes."""
    return put(np.full(nbytes, SENTINEL, np.uint8))


def get(ptr, nbytes):
    """``nbytes`` of device memory from ``ptr``, copied to the host."""
    out = np.zeros(nbytes, np.uint8)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(out), nbytes, ptr, nbytes, D2H) == 0
    return out


def read(t):
    """The elements ``t``'s view addresses, read back from device memory (complex types,
    which the tables leave out, as complex64)."""
    dtype = np.dtype(GATHER_TYPES.get(t.data_type, np.complex64))
    raw = get(t.data, int(np.prod(t.storage_dims)) * dtype.itemsize)
    return np.ndarray(t.view_dims, dtype, buffer=raw, offset=t.offset * dtype.itemsize,
                      strides=[s * dtype.itemsize for s in t.strides])


def snapshot():
    """Every byte of emulated device memory, by allocation (to check nothing changed)."""
    return memory()


def tensor(ptr, dims, data_type, strides=None, offset=0, storage=None):
    """A tensor over device memory (``storage`` defaults to ``dims``); never None."""
    t = aclnn.aclCreateTensor(dims, data_type, strides, offset, ND,
                              dims if storage is None else storage, ptr)
    assert t is not None, aclnn.aclGetRecentErrMsg()
    return t


def host_tensor(host, data_type):
    """Device memory holding ``host`` (row-major) and a contiguous tensor over it."""
    return tensor(put(host), host.shape, data_type)


def end_runtime():
    """Finalise whatever runtime is left (100001: there was none), and clear the message."""
    assert acl.finalize() in (0, acl.ACL_ERROR_UNINITIALIZE)
    acl.get_recent_err_msg()


def memory(space=None):
    """The bytes of every live region (of one space: "device" or "host"), by base address:
    what a failed call must leave unchanged."""
    return {r.base: bytes(r.data) for r in CONTEXT.space.regions(space)}


def pending(stream):
    """How many tasks wait on ``stream`` (None or 0: the default stream)."""
    return CONTEXT.find_stream(stream).pending


def device_bytes():
    """The bytes the emulated device has allocated (its accounting, against its 64 GiB)."""
    return CONTEXT.space.device_bytes
