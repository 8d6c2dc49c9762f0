"""The four examples of the DML_TOP_K1 seed page, through create -> compile -> execute."""

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from axisops import directml as dml

ROOT = Path(__file__).resolve().parents[1]
F32, U32 = dml.TensorDataType.FLOAT32, dml.TensorDataType.UINT32
DEC, INC = dml.AxisDirection.DECREASING, dml.AxisDirection.INCREASING

X = [[[[0, 1, 10, 11], [3, 2, 9, 8], [4, 5, 6, 7]]]]
Y = [[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]]

# (input, axis, k, direction, values, indices), exactly as printed on the page.
SEED = [
    (X, 3, 2, DEC, [[[[11, 10], [9, 8], [7, 6]]]], [[[[3, 2], [2, 3], [3, 2]]]]),
    (X, 2, 2, DEC, [[[[4, 5, 10, 11], [3, 2, 9, 8]]]], [[[[2, 2, 0, 0], [1, 1, 1, 1]]]]),
    (Y, 3, 3, DEC, [[[[3, 2, 2], [5, 5, 4], [6, 6, 6]]]], [[[[3, 1, 2], [2, 3, 1], [0, 1, 2]]]]),
    (Y, 3, 3, INC, [[[[1, 2, 2], [3, 4, 5], [6, 6, 6]]]], [[[[0, 1, 2], [0, 1, 2], [0, 1, 2]]]]),
]
IDS = ["example1", "example2-axis", "example3-ties", "example4-increasing"]


def _compiled(device, axis, k, direction, op="TOP_K1"):
    out_sizes = tuple(k if d == axis else n for d, n in enumerate((1, 1, 3, 4)))
    x = dml.BufferTensorDesc(F32, (1, 1, 3, 4))
    v = dml.BufferTensorDesc(F32, out_sizes)
    i = dml.BufferTensorDesc(U32, out_sizes)
    if op == "TOP_K1":
        desc = dml.TopK1OperatorDesc(x, v, i, axis=axis, k=k, axis_direction=direction)
    else:
        desc = dml.TopKOperatorDesc(x, v, i, axis=axis, k=k)
    return device.compile_operator(device.create_operator(desc)), v, i


def _numpy_buffers(data, v, i):
    return (np.asarray(data, np.float32), np.zeros(v.sizes, np.float32),
            np.zeros(i.sizes, np.uint32))


def _bytearray_buffers(data, v, i):
    return (bytearray(np.asarray(data, "<f4").tobytes()),
            bytearray(v.total_tensor_size_in_bytes), bytearray(i.total_tensor_size_in_bytes))


def _mixed_buffers(data, v, i):
    # Input as immutable bytes; outputs as NumPy arrays of an unrelated dtype.
    return (np.asarray(data, "<f4").tobytes(), np.zeros(v.total_tensor_size_in_bytes, np.uint8),
            memoryview(bytearray(i.total_tensor_size_in_bytes)))


BUFFERS = {"numpy": _numpy_buffers, "bytearray": _bytearray_buffers, "mixed": _mixed_buffers}


def _read(buffer, dtype, sizes):
    return np.frombuffer(bytes(buffer), dtype, int(np.prod(sizes))).reshape(sizes)


@pytest.mark.parametrize("kind", sorted(BUFFERS))
@pytest.mark.parametrize("data, axis, k, direction, values, indices", SEED, ids=IDS)
def test_seed_example_end_to_end(kind, data, axis, k, direction, values, indices):
    device = dml.create_device(dml.FeatureLevel.FL_2_1)
    compiled, v, i = _compiled(device, axis, k, direction)
    x_buf, v_buf, i_buf = BUFFERS[kind](data, v, i)
    compiled.execute(inputs=[x_buf], outputs=[v_buf, i_buf])
    np.testing.assert_array_equal(_read(v_buf, "<f4", v.sizes), np.array(values, np.float32))
    np.testing.assert_array_equal(_read(i_buf, "<u4", i.sizes), np.array(indices, np.uint32))
    assert device.get_device_removed_reason() is None


@pytest.mark.parametrize("data, axis, k, direction, values, indices",
                         [s for s in SEED if s[3] == DEC], ids=IDS[:3])
def test_top_k_equals_top_k1_decreasing(data, axis, k, direction, values, indices):
    # The page: with DECREASING, TOP_K1 is the same as TOP_K (available from 1_0).
    device = dml.create_device(dml.FeatureLevel.FL_1_0)
    compiled, v, i = _compiled(device, axis, k, direction, op="TOP_K")
    x_buf, v_buf, i_buf = _bytearray_buffers(data, v, i)
    compiled.execute([x_buf], [v_buf, i_buf])
    np.testing.assert_array_equal(_read(v_buf, "<f4", v.sizes), values)
    np.testing.assert_array_equal(_read(i_buf, "<u4", i.sizes), indices)


def test_seed_examples_are_rejected_below_feature_level_2_1():
    device = dml.create_device(dml.FeatureLevel.FL_2_0)
    with pytest.raises(dml.DMLError, match="needs DML_FEATURE_LEVEL_2_1 or higher") as info:
        _compiled(device, 3, 2, DEC)
    assert info.value.hresult == dml.E_INVALIDARG


def _blocks(text):
    """(title, values, indices) for each example the script prints."""
    out, lines = [], text.splitlines()
    for n, line in enumerate(lines):
        if line.startswith("OutputValueTensor:"):
            out.append((lines[n - 2], ast.literal_eval(lines[n + 1]),
                        ast.literal_eval(lines[n + 3])))
    return out


def test_example_script_prints_the_seed_results():
    script = ROOT / "examples" / "directml_topk.py"
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         check=True, timeout=120)
    blocks = _blocks(run.stdout)
    assert [b[0] for b in blocks] == [
        "Example 1", "Example 2. Using a different axis", "Example 3. Tied values",
        "Example 4. Increasing axis direction"]
    for (_, values, indices), (*_, want_values, want_indices) in zip(blocks, SEED):
        assert values == [[[[float(v) for v in row] for row in want_values[0][0]]]]
        assert indices == want_indices
    assert "Sizes:{1,1,2,4}, DataType:UINT32" in run.stdout
    assert run.stderr == ""


def test_import_is_light_and_lazy():
    code = ("import sys, axisops; assert 'axisops.directml' not in sys.modules; "
            "import axisops.directml; heavy = {'numba', 'torch', 'dask', 'jax', 'ml_dtypes'}; "
            "print(sorted(heavy & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_docs_section_example_runs_and_its_messages_are_real():
    text = (ROOT / "docs" / "directml.md").read_text()
    assert text.startswith("# DirectML-style API\n")
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict = {}
    exec(compile(code, "docs/directml.md", "exec"), scope)
    assert np.frombuffer(scope["values"], np.float32).tolist() == [11, 10, 9, 8, 7, 6]
    assert scope["indices"].tolist() == [3, 2, 2, 3, 3, 2]
    device = dml.create_device(dml.FeatureLevel.FL_4_1)
    x, v, i = (dml.BufferTensorDesc(t, s) for t, s in [
        (F32, (1, 1, 3, 4)), (F32, (1, 1, 3, 5)), (U32, (1, 1, 3, 5))])
    wide = [dml.BufferTensorDesc(t, s) for t, s in [
        (dml.TensorDataType.INT64, (1, 1, 3, 4)), (dml.TensorDataType.INT64, (1, 1, 3, 2)),
        (U32, (1, 1, 3, 2))]]
    for desc in (dml.TopK1OperatorDesc(x, v, i, 3, 5, DEC), dml.TopK1OperatorDesc(*wide, 3, 2, DEC)):
        with pytest.raises(dml.DMLError) as info:
            device.create_operator(desc)
        assert str(info.value) in text
