"""The ported CANN samples, the docs' example and messages, the docstrings, the import cost."""

import ast
import contextlib
import doctest
import importlib
import io
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import axisops.ascend
from axisops.ascend import acl, aclnn

from ascend_helpers import end_runtime

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


#: Every module of the package, found in the tree (not kept by hand).
MODULES = ["axisops.ascend", *(found.name for found in pkgutil.walk_packages(
    axisops.ascend.__path__, "axisops.ascend."))]
#: What a pyACL program imports; every other module's name has a part starting with "_".
PUBLIC = {"axisops.ascend", "axisops.ascend.acl", "axisops.ascend.acl.rt",
          "axisops.ascend.acl.util", "axisops.ascend.aclnn"}


def test_the_public_surface_is_acl_and_aclnn_and_the_rest_is_private():
    assert {name for name in MODULES
            if not any(part.startswith("_") for part in name.split("."))} == PUBLIC
    assert len(MODULES) > len(PUBLIC)  # the walk did find the private modules
    assert axisops.ascend.__all__ == ["acl", "aclnn"]
    assert (acl.rt, acl.util) == (sys.modules["axisops.ascend.acl.rt"],
                                  sys.modules["axisops.ascend.acl.util"])
    functions = {"init", "finalize", "get_recent_err_msg", "rt", "util"}
    assert {name for name in acl.__all__ if not name.startswith("ACL_")} == functions
    assert {name for name in aclnn.__all__ if not name.startswith("ACLNN_")} == {
        "AclTensor", "Executor", "aclCreateTensor", "aclDestroyTensor", "aclGetRecentErrMsg",
        "aclSetAclOpExecutorRepeatable", "aclDestroyAclOpExecutor", "aclnnGather",
        "aclnnGatherGetWorkspaceSize", "aclnnTopk", "aclnnTopkGetWorkspaceSize",
        *(f"aclnn{op}{phase}" for op in ("Sort", "Argsort", "Kthvalue", "Median", "MedianDim",
                                           "NanMedian")
          for phase in ("", "GetWorkspaceSize"))}
    for module in (acl, acl.rt, acl.util, aclnn):
        assert all(hasattr(module, name) for name in module.__all__), module


#: The layers of the package, lowest first: each part imports only parts before it.
LAYERS = ["_constants", "_boundary", "_memory", "_context", "_tensors", "_executors", "_ops",
          "acl", "aclnn"]
PACKAGE = Path(axisops.ascend.__file__).parent


def _imported_parts(path):
    """The parts of the package (``LAYERS`` names) that the module at ``path`` imports."""
    folder = path.relative_to(PACKAGE).parts[:-1]  # what "." means in that file
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        up = node.level - 1 if isinstance(node, ast.ImportFrom) and node.level else None
        if up is None or up > len(folder):
            continue  # absolute, or above axisops.ascend (axisops.errors, axisops.ops ...)
        base = folder[:len(folder) - up]
        targets = [base + tuple(node.module.split("."))] if node.module else \
            [base + (alias.name,) for alias in node.names]
        found |= {target[0] for target in targets if target and target[0] in LAYERS}
    return found


def test_each_layer_imports_only_the_layers_below_it():
    checked = 0
    for path in PACKAGE.rglob("*.py"):
        own = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        if own == "__init__":
            continue
        assert own in LAYERS, f"{path} is in no layer: add it to LAYERS (and the docstring)"
        above = {part for part in _imported_parts(path)
                 if LAYERS.index(part) > LAYERS.index(own)}
        assert not above, f"{path.relative_to(PACKAGE)} imports {sorted(above)}"
        checked += 1
    assert checked == len(MODULES) - 1  # every module but the package itself


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    end_runtime()  # the examples start from a fresh runtime
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
    assert acl.finalize() == acl.ACL_ERROR_UNINITIALIZE  # and leave none behind


DOCS = (ROOT / "docs" / "ascend.md").read_text()


def test_docs_example_runs_and_prints_the_sample_result():
    code = DOCS.split("```python\n", 1)[1].split("```", 1)[0]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "docs/ascend.md", "exec"), {})
    assert printed.getvalue() == "[0, 3, 4, 7, 6, 5, 2, 1]\n"
    assert acl.finalize() == acl.ACL_ERROR_UNINITIALIZE  # the example finalised its runtime


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
    text = readme[readme.index("**Ascend CANN API users.**"):]
    text = text[:text.index("\n**", 1)]
    assert "(docs/ascend.md)" in text
    assert "examples/aclnn_gather_sample.py" in text and "[0, 3, 4, 7, 6, 5, 2, 1]" in text
