"""The official aclnnGather sample (CANN's aclnn_gather example), ported line by line.

Each step keeps the C++ sample's shape: the same Init, CreateAclTensor and main,
the same calls in the same order, with pyACL's conventions (out-values first,
status code last).  Run it with

    python examples/aclnn_gather_sample.py

and it prints the gathered result, ``[0, 3, 4, 7, 6, 5, 2, 1]``.
"""

from __future__ import annotations

import sys

import numpy as np

from axisops.ascend import acl, aclnn


def LOG_PRINT(message: str, *args: object) -> None:
    # #define LOG_PRINT(message, ...) do { printf(message, ##__VA_ARGS__); } while (0)
    print(message % args, end="")


def GetShapeSize(shape: list[int]) -> int:
    # int64_t GetShapeSize(const std::vector<int64_t>& shape) { ... shapeSize *= i; ... }
    shape_size = 1
    for i in shape:
        shape_size *= i
    return shape_size


def Init(device_id: int) -> tuple[int, int]:
    """int Init(int32_t deviceId, aclrtStream* stream): returns (stream, ret)."""
    # auto ret = aclInit(nullptr);
    ret = acl.init(None)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclInit failed. ERROR: %d\n", ret)
        return 0, ret
    # ret = aclrtSetDevice(deviceId);
    ret = acl.rt.set_device(device_id)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret)
        return 0, ret
    # ret = aclrtCreateStream(stream);
    stream, ret = acl.rt.create_stream()
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret)
        return 0, ret
    return stream, 0


def CreateAclTensor(host_data: np.ndarray, shape: list[int],
                    data_type: int) -> tuple[int, aclnn.AclTensor | None, int]:
    """int CreateAclTensor(hostData, shape, void** deviceAddr, dataType, aclTensor** tensor).

    Returns (device_addr, tensor, ret).
    """
    # auto size = GetShapeSize(shape) * sizeof(T);
    size = GetShapeSize(shape) * host_data.itemsize
    # auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
    device_addr, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret)
        return 0, None, ret
    # ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
    ret = acl.rt.memcpy(device_addr, size, acl.util.numpy_to_ptr(host_data), size,
                        acl.ACL_MEMCPY_HOST_TO_DEVICE)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret)
        return 0, None, ret

    # std::vector<int64_t> strides(shape.size(), 1);
    # for (int64_t i = shape.size() - 2; i >= 0; i--) strides[i] = shape[i + 1] * strides[i + 1];
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = shape[i + 1] * strides[i + 1]

    # *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0,
    #                           aclFormat::ACL_FORMAT_ND, shape.data(), shape.size(), *deviceAddr);
    tensor = aclnn.aclCreateTensor(shape, data_type, strides, 0, acl.ACL_FORMAT_ND, shape,
                                   device_addr)
    return device_addr, tensor, 0


def main() -> int:
    # 1. (Fixed writing) Initialize the device and stream.
    device_id = 0
    stream, ret = Init(device_id)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("Init acl failed. ERROR: %d\n", ret)
        return ret

    # 2. Construct the input and output based on the API definition.
    self_shape = [4, 2]
    index_shape = [4, 2]
    out_shape = [4, 2]
    self_host_data = np.array([0, 1, 2, 3, 4, 5, 6, 7], dtype=np.float32)
    index_host_data = np.array([0, 1, 2, 3, 3, 2, 1, 0], dtype=np.int64)
    out_host_data = np.zeros(8, dtype=np.float32)
    dim = 0
    # Create a self aclTensor.
    self_device_addr, self, ret = CreateAclTensor(self_host_data, self_shape, acl.ACL_FLOAT)
    if ret != acl.ACL_SUCCESS:
        return ret
    # Create an index aclTensor.
    index_device_addr, index, ret = CreateAclTensor(index_host_data, index_shape, acl.ACL_INT64)
    if ret != acl.ACL_SUCCESS:
        return ret
    # Create an out aclTensor.
    out_device_addr, out, ret = CreateAclTensor(out_host_data, out_shape, acl.ACL_FLOAT)
    if ret != acl.ACL_SUCCESS:
        return ret

    # 3. Call the CANN operator library API.
    # ret = aclnnGatherGetWorkspaceSize(self, dim, index, out, &workspaceSize, &executor);
    workspace_size, executor, ret = aclnn.aclnnGatherGetWorkspaceSize(self, dim, index, out)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclnnGatherGetWorkspaceSize failed. ERROR: %d\n", ret)
        return ret
    # Allocate device memory based on workspaceSize computed by the first-phase API.
    workspace_addr = None
    if workspace_size > 0:
        workspace_addr, ret = acl.rt.malloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        if ret != acl.ACL_SUCCESS:
            LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret)
            return ret
    # ret = aclnnGather(workspaceAddr, workspaceSize, executor, stream);
    ret = aclnn.aclnnGather(workspace_addr, workspace_size, executor, stream)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclnnGather failed. ERROR: %d\n", ret)
        return ret

    # 4. (Fixed writing) Wait until the task execution is complete.
    ret = acl.rt.synchronize_stream(stream)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret)
        return ret

    # 5. Copy the result from the device memory to the host.
    size = GetShapeSize(out_shape)
    result_data = np.zeros(size, dtype=np.float32)
    ret = acl.rt.memcpy(acl.util.numpy_to_ptr(result_data), result_data.nbytes, out_device_addr,
                        size * result_data.itemsize, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    if ret != acl.ACL_SUCCESS:
        LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret)
        return ret
    # for (int64_t i = 0; i < size; i++) LOG_PRINT("result[%ld] is: %f\n", i, resultData[i]);
    print([int(v) for v in result_data])

    # 6. Release aclTensor.
    aclnn.aclDestroyTensor(self)
    aclnn.aclDestroyTensor(index)
    aclnn.aclDestroyTensor(out)

    # 7. Release device resources.
    acl.rt.free(self_device_addr)
    acl.rt.free(index_device_addr)
    acl.rt.free(out_device_addr)
    if workspace_size > 0:
        acl.rt.free(workspace_addr)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(device_id)
    acl.finalize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
