"""The four examples of the DML_TOP_K1_OPERATOR_DESC page, ported from DirectML C++.

Each step carries, as a comment, the C++ line it replaces: the same descs, the
same create/compile/execute sequence, the same buffers of bytes.  Run it with

    python examples/directml_topk.py

and it prints each example's OutputValueTensor and OutputIndexTensor.
"""

from __future__ import annotations

import numpy as np

from axisops import directml as dml

X = [[[[0, 1, 10, 11], [3, 2, 9, 8], [4, 5, 6, 7]]]]
Y = [[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]]

# (title, input, Axis, K, AxisDirection), as on the page.
EXAMPLES = [
    ("Example 1", X, 3, 2, dml.DML_AXIS_DIRECTION_DECREASING),
    ("Example 2. Using a different axis", X, 2, 2, dml.DML_AXIS_DIRECTION_DECREASING),
    ("Example 3. Tied values", Y, 3, 3, dml.DML_AXIS_DIRECTION_DECREASING),
    ("Example 4. Increasing axis direction", Y, 3, 3, dml.DML_AXIS_DIRECTION_INCREASING),
]


def buffer_desc(data_type: dml.TensorDataType, sizes: tuple[int, ...]) -> dml.BufferTensorDesc:
    """A packed buffer tensor, spelled field by field as in C++."""
    # DML_BUFFER_TENSOR_DESC desc = { dataType, DML_TENSOR_FLAG_NONE, 4, sizes, nullptr,
    #     DMLCalcBufferTensorSize(dataType, 4, sizes, nullptr), 0 };
    return dml.BufferTensorDesc(
        data_type=data_type,
        sizes=sizes,
        strides=None,
        total_tensor_size_in_bytes=dml.calc_buffer_tensor_size(data_type, sizes, None),
        guaranteed_base_offset_alignment=0,
        flags=dml.DML_TENSOR_FLAG_NONE,
    )


def run_top_k1(device: dml.Device, data: list, axis: int, k: int,
               direction: dml.AxisDirection) -> tuple[np.ndarray, np.ndarray]:
    """Create, compile and execute one TOP_K1 operator; return (values, indices)."""
    input_sizes = (1, 1, 3, 4)
    output_sizes = tuple(k if d == axis else n for d, n in enumerate(input_sizes))
    input_desc = buffer_desc(dml.DML_TENSOR_DATA_TYPE_FLOAT32, input_sizes)
    value_desc = buffer_desc(dml.DML_TENSOR_DATA_TYPE_FLOAT32, output_sizes)
    index_desc = buffer_desc(dml.DML_TENSOR_DATA_TYPE_UINT32, output_sizes)

    # DML_TOP_K1_OPERATOR_DESC topK = { &inputTensor, &valueTensor, &indexTensor,
    #                                   axis, k, direction };
    # DML_OPERATOR_DESC opDesc = { DML_OPERATOR_TOP_K1, &topK };
    top_k = dml.TopK1OperatorDesc(
        input_tensor=input_desc,
        output_value_tensor=value_desc,
        output_index_tensor=index_desc,
        axis=axis,
        k=k,
        axis_direction=direction,
    )
    # THROW_IF_FAILED(device->CreateOperator(&opDesc, IID_PPV_ARGS(&op)));
    op = device.create_operator(top_k)
    # THROW_IF_FAILED(device->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE,
    #                                         IID_PPV_ARGS(&compiled)));
    compiled = device.compile_operator(op)

    # Upload the input; allocate the two readback buffers at their total sizes.
    upload = bytearray(np.asarray(data, dtype="<f4").tobytes())
    values = bytearray(value_desc.total_tensor_size_in_bytes)
    indices = bytearray(index_desc.total_tensor_size_in_bytes)
    # Bind input 0 and outputs 0, 1; record the dispatch; execute and wait.
    compiled.execute(inputs=[upload], outputs=[values, indices])

    count = int(np.prod(output_sizes))
    return (np.frombuffer(values, "<f4", count).reshape(output_sizes),
            np.frombuffer(indices, "<u4", count).reshape(output_sizes))


def sizes_text(a: np.ndarray) -> str:
    return "{" + ",".join(map(str, a.shape)) + "}"


def main() -> None:
    # THROW_IF_FAILED(DMLCreateDevice1(d3d12Device, DML_CREATE_DEVICE_FLAG_NONE,
    #                                  DML_FEATURE_LEVEL_2_1, IID_PPV_ARGS(&device)));
    device = dml.create_device(dml.DML_FEATURE_LEVEL_2_1)
    for title, data, axis, k, direction in EXAMPLES:
        values, indices = run_top_k1(device, data, axis, k, direction)
        print(title)
        print(f"Axis: {axis}  K: {k}  AxisDirection: {direction.c_name}")
        print(f"OutputValueTensor: (Sizes:{sizes_text(values)}, DataType:FLOAT32)")
        print(values.tolist())
        print(f"OutputIndexTensor: (Sizes:{sizes_text(indices)}, DataType:UINT32)")
        print(indices.tolist())
        print()


if __name__ == "__main__":
    main()
