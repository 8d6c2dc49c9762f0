"""A CANN-style API: the acl runtime slice and aclnnGather / aclnnTopk, on any machine.

A program written for Huawei CANN's two-phase aclnn operators ports line by
line, in the conventions of Huawei's Python binding pyACL: C out-parameters
come back first and the status code last (``stream, ret =
acl.rt.create_stream()``), and the aclnn functions keep their C names.  Device
memory, streams and executors are emulated; pointers are integers into an
address space the emulator owns, so a wrong pointer or length is a status
code, never a crash.  The computation is :func:`axisops.gather` /
:func:`axisops.topk`.  See ``docs/ascend.md``.

The public API is exactly what a pyACL program imports:

- :mod:`axisops.ascend.acl`: ``acl.init``, ``acl.finalize``,
  ``acl.get_recent_err_msg``, the namespaces ``acl.rt`` (devices, streams,
  device memory) and ``acl.util`` (host pointers), and every ``ACL_*``
  constant of ``acl_base.h`` / ``acl_rt.h``;
- :mod:`axisops.ascend.aclnn`: ``aclCreateTensor`` / ``aclDestroyTensor``,
  the two phases of ``aclnnGather`` and ``aclnnTopk``, the executor calls,
  ``aclGetRecentErrMsg``, the ``ACLNN_*`` status codes, and the handle types
  ``AclTensor`` and ``Executor``.

Everything whose name starts with an underscore is internal and may change.
The internals are layers, lowest first, and each imports only the layers
before it (``tests/test_ascend_samples.py`` checks it):

1. ``_constants``: every number of the headers, defined once;
2. ``_boundary``: the wrapper that turns any argument into a status code, and
   the per-thread recent-error message;
3. ``_memory``: the emulated address space (pointers are ints into it);
4. ``_context``: the runtime state (init, device, streams and their queues);
5. ``_tensors``: ``aclTensor`` and where a view lives in device memory;
6. ``_executors``: ``aclOpExecutor`` and the checks of phase 2;
7. ``_ops``: one module per operator, with its phase-1 rules and queued work;

then the public ``acl`` (``acl/__init__.py``, ``acl/rt.py``, ``acl/util.py``)
and ``aclnn``.  A new operator is a module in ``_ops`` and two functions in
``aclnn``; a new runtime call is a function in ``acl/rt.py``.

>>> import numpy as np
>>> from axisops.ascend import acl, aclnn
>>> acl.init(), acl.rt.set_device(0)
(0, 0)
>>> stream, ret = acl.rt.create_stream()
>>> def to_device(host, data_type):
...     ptr, ret = acl.rt.malloc(host.nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
...     acl.rt.memcpy(ptr, host.nbytes, acl.util.numpy_to_ptr(host), host.nbytes,
...                   acl.ACL_MEMCPY_HOST_TO_DEVICE)
...     strides = [s // host.itemsize for s in host.strides]
...     tensor = aclnn.aclCreateTensor(host.shape, data_type, strides, 0, acl.ACL_FORMAT_ND,
...                                    host.shape, ptr)
...     return ptr, tensor
>>> self_ptr, self = to_device(np.arange(8, dtype=np.float32).reshape(4, 2), acl.ACL_FLOAT)
>>> index_ptr, index = to_device(np.array([[0, 1], [2, 3], [3, 2], [1, 0]]), acl.ACL_INT64)
>>> out_ptr, out = to_device(np.zeros((4, 2), np.float32), acl.ACL_FLOAT)
>>> workspace_size, executor, ret = aclnn.aclnnGatherGetWorkspaceSize(self, 0, index, out)
>>> aclnn.aclnnGather(None, workspace_size, executor, stream)
0
>>> acl.rt.synchronize_stream(stream)
0
>>> result = np.zeros(8, np.float32)
>>> acl.rt.memcpy(acl.util.numpy_to_ptr(result), 32, out_ptr, 32, acl.ACL_MEMCPY_DEVICE_TO_HOST)
0
>>> result.astype(int).tolist()
[0, 3, 4, 7, 6, 5, 2, 1]
>>> acl.rt.destroy_stream(stream), acl.rt.reset_device(0), acl.finalize()
(0, 0, 0)
"""

from __future__ import annotations

from . import acl, aclnn

__all__ = ["acl", "aclnn"]
