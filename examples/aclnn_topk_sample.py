"""An aclnnTopk sample in the shape of CANN's aclnn samples, on the emulator.

The same steps as ``aclnn_gather_sample.py`` (Init, CreateAclTensor, the two
phases, synchronise, copy back, release), with self (2, 4) float
``[0, 1, 2.5, 3, 4, 5.5, 6, 7]``, k=2, dim=1, largest, sorted.  Run it with

    python examples/aclnn_topk_sample.py

and it prints::

    values: [3.0, 2.5, 7.0, 6.0]
    indices: [3, 2, 3, 2]
"""

from __future__ import annotations

import sys

import numpy as np

from axisops.ascend import acl, aclnn


def LOG_PRINT(message: str, *args: object) -> None:
    print(message % args, end="")


def GetShapeSize(shape: list[int]) -> int:
    shape_size = 1
    for i in shape:
        shape_size *= i
    return shape_size


def Init(device_id: int) -> tuple[int, int]:
    """int Init(int32_t deviceId, aclrtStream* stream): returns (stream, ret)."""
    ret = acl.init(None)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclInit failed. ERROR: %d\n", ret)
        return 0, ret
    ret = acl.rt.set_device(device_id)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret)
        return 0, ret
    stream, ret = acl.rt.create_stream()
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret)
        return 0, ret
    return stream, 0


def CreateAclTensor(host_data: np.ndarray, shape: list[int],
                    data_type: int) -> tuple[int, aclnn.AclTensor | None, int]:
    """Malloc, copy host_data over, and wrap it in a row-major tensor: (addr, tensor, ret)."""
    size = GetShapeSize(shape) * host_data.itemsize
    device_addr, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret)
        return 0, None, ret
    ret = acl.rt.memcpy(device_addr, size, acl.util.numpy_to_ptr(host_data), size,
                        acl.ACL_MEMCPY_HOST_TO_DEVICE)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret)
        return 0, None, ret
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = shape[i + 1] * strides[i + 1]
    tensor = aclnn.aclCreateTensor(shape, data_type, strides, 0, acl.ACL_FORMAT_ND, shape,
                                   device_addr)
    return device_addr, tensor, 0


def CopyToHost(device_addr: int, shape: list[int], dtype: type) -> tuple[np.ndarray, int]:
    """aclrtMemcpy(DEVICE_TO_HOST) into a fresh host array: (array, ret)."""
    result = np.zeros(GetShapeSize(shape), dtype=dtype)
    ret = acl.rt.memcpy(acl.util.numpy_to_ptr(result), result.nbytes, device_addr,
                        result.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret)
    return result, ret


def main() -> int:
    # 1. Initialize the device and stream.
    device_id = 0
    stream, ret = Init(device_id)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("Init acl failed. ERROR: %d\n", ret)
        return ret

    # 2. Construct the input and outputs.
    self_shape = [2, 4]
    out_shape = [2, 2]
    self_host_data = np.array([0, 1, 2.5, 3, 4, 5.5, 6, 7], dtype=np.float32)
    values_host_data = np.zeros(4, dtype=np.float32)
    indices_host_data = np.zeros(4, dtype=np.int64)
    k, dim, largest, sorted_ = 2, 1, True, True
    self_addr, self, ret = CreateAclTensor(self_host_data, self_shape, acl.ACL_FLOAT)
    if ret != acl.ACL_SUCCESS:
        return ret
    values_addr, values_out, ret = CreateAclTensor(values_host_data, out_shape, acl.ACL_FLOAT)
    if ret != acl.ACL_SUCCESS:
        return ret
    indices_addr, indices_out, ret = CreateAclTensor(indices_host_data, out_shape,
                                                     acl.ACL_INT64)
    if ret != acl.ACL_SUCCESS:
        return ret

    # 3. The two phases of aclnnTopk.
    workspace_size, executor, ret = aclnn.aclnnTopkGetWorkspaceSize(
        self, k, dim, largest, sorted_, values_out, indices_out)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclnnTopkGetWorkspaceSize failed. ERROR: %d\n", ret)
        return ret
    workspace_addr = None
    if workspace_size > 0:
        workspace_addr, ret = acl.rt.malloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        if ret != acl.ACL_SUCCESS:
            LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret)
            return ret
    ret = aclnn.aclnnTopk(workspace_addr, workspace_size, executor, stream)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclnnTopk failed. ERROR: %d\n", ret)
        return ret

    # 4. Wait until the task execution is complete.
    ret = acl.rt.synchronize_stream(stream)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret)
        return ret

    # 5. Copy both outputs back to the host.
    values, ret = CopyToHost(values_addr, out_shape, np.float32)
    if ret != acl.ACL_SUCCESS:
        return ret
    indices, ret = CopyToHost(indices_addr, out_shape, np.int64)
    if ret != acl.ACL_SUCCESS:
        return ret
    print("values:", values.tolist())
    print("indices:", indices.tolist())

    # 6. Release the tensors and the device resources.
    aclnn.aclDestroyTensor(self)
    aclnn.aclDestroyTensor(values_out)
    aclnn.aclDestroyTensor(indices_out)
    acl.rt.free(self_addr)
    acl.rt.free(values_addr)
    acl.rt.free(indices_addr)
    if workspace_size > 0:
        acl.rt.free(workspace_addr)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(device_id)
    acl.finalize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
