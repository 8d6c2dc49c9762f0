"""The ported CANN samples, the docs' example and messages, the import cost."""

import contextlib
import io
import subprocess
import sys
from pathlib import Path

from axisops.ascend.runtime import CONTEXT

ROOT = Path(__file__).resolve().parents[1]


def run_script(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


def test_gather_sample_prints_the_official_result():
    done = run_script(str(ROOT / "examples" / "aclnn_gather_sample.py"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "[0, 3, 4, 7, 6, 5, 2, 1]\n", "")


def test_topk_sample_prints_values_and_indices():
    done = run_script(str(ROOT / "examples" / "aclnn_topk_sample.py"))
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == "values: [3.0, 2.5, 7.0, 6.0]\nindices: [3, 2, 3, 2]\n"


def test_import_is_light():
    code = ("import sys; import axisops.ascend; from axisops.ascend import acl, aclnn; "
            "heavy = {'numba', 'torch', 'dask', 'jax', 'ml_dtypes', 'triton'}; "
            "print(sorted(heavy & set(sys.modules)))")
    done = run_script("-c", code)
    assert done.stdout.strip() == "[]", done.stderr


DOCS = (ROOT / "docs" / "ascend.md").read_text()


def test_docs_example_runs_and_prints_the_sample_result():
    code = DOCS.split("```python\n", 1)[1].split("```", 1)[0]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "docs/ascend.md", "exec"), {})
    assert printed.getvalue() == "[0, 3, 4, 7, 6, 5, 2, 1]\n"
    assert not CONTEXT.initialized


MESSAGES = """
import numpy as np
from axisops.ascend import acl, aclnn
acl.init(); acl.rt.set_device(0); stream, _ = acl.rt.create_stream()
ptr, _ = acl.rt.malloc(8, 0)
acl.rt.memcpy(ptr, 8, ptr + 4, 8, acl.ACL_MEMCPY_DEVICE_TO_DEVICE)
memcpy_message = aclnn.aclGetRecentErrMsg()
def t(shape, dtype, data):
    return aclnn.aclCreateTensor(shape, dtype, None, 0, acl.ACL_FORMAT_ND, shape, data)
aclnn.aclnnGatherGetWorkspaceSize(t((3,), 0, ptr), 0, t((2,), 0, ptr), t((2,), 0, ptr))
print(aclnn.aclGetRecentErrMsg())
aclnn.aclnnTopkGetWorkspaceSize(t((2, 4), 0, 0), 5, 1, True, True, t((2, 2), 0, 0), t((2, 2), 9, 0))
print(aclnn.aclGetRecentErrMsg())
print(memcpy_message)
host = np.array([0, 1, 2, 3, 4, 5, 0, 1, 3, 2, 0, 0], np.int64)
dev, _ = acl.rt.malloc(96, 0)
acl.rt.memcpy(dev, 96, acl.util.numpy_to_ptr(host), 96, acl.ACL_MEMCPY_HOST_TO_DEVICE)
x = t((3, 2), 9, dev)
index = aclnn.aclCreateTensor((2, 2), 9, None, 6, acl.ACL_FORMAT_ND, (12,), dev)
out = aclnn.aclCreateTensor((2, 2), 9, None, 0, acl.ACL_FORMAT_ND, (4,), dev + 64)
ws, ex, ret = aclnn.aclnnGatherGetWorkspaceSize(x, 0, index, out)
aclnn.aclnnGather(None, ws, ex, stream)
acl.rt.synchronize_stream(stream)
print(aclnn.aclGetRecentErrMsg())
"""


def test_docs_messages_are_the_real_ones():
    done = run_script("-c", MESSAGES)
    assert done.returncode == 0, done.stderr
    block = DOCS.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    assert done.stdout.splitlines() == block


def test_readme_section():
    readme = (ROOT / "README.md").read_text()
    text = readme[readme.index("## Ascend CANN-style API\n"):]
    text = text[:text.index("\n## ", 1)]
    assert "[`docs/ascend.md`](docs/ascend.md)" in text
    assert "examples/aclnn_gather_sample.py" in text and "[0, 3, 4, 7, 6, 5, 2, 1]" in text
