"""The backend registry: discovery, defaults, overrides, third-party backends."""

import subprocess
import sys

import numpy as np
import pytest

import axisops
from axisops import registry
from axisops.backends.base import Backend
from axisops.backends.numpy_backend import NumpyBackend

pytestmark = pytest.mark.usefixtures("restore_registry")  # backends registered here go after


def test_backends_lists_the_oracle():
    names = axisops.backends()
    assert "numpy" in names
    assert all(isinstance(n, str) for n in names)


def test_backends_stays_a_function_after_importing_backend_modules():
    import axisops.backends.numpy_backend

    assert callable(axisops.backends)


def test_default_for_numpy_is_the_highest_priority_available():
    chosen = registry.select(np.zeros(3))
    candidates = [b for b in registry.all_backends()
                  if "numpy" in b.array_modules and b.available()]
    assert chosen.priority == max(b.priority for b in candidates)


def test_lists_belong_to_the_numpy_family():
    assert registry.select([1, 2, 3]).array_modules == registry.select(np.zeros(1)).array_modules


def test_override_selects_the_named_backend():
    assert registry.select(np.zeros(3), "numpy").name == "numpy"


class _Counting(NumpyBackend):
    name = "counting-test"
    priority = -100
    calls = 0

    def topk(self, x, spec):
        type(self).calls += 1
        return super().topk(x, spec)


def test_register_a_third_party_backend():
    axisops.register_backend(_Counting(), replace=True)
    assert "counting-test" in axisops.backends()
    r = axisops.topk([1, 3, 2], 1, backend="counting-test")
    assert r.indices.tolist() == [1] and _Counting.calls == 1
    with pytest.raises(axisops.InvalidArgumentError, match="exists"):
        axisops.register_backend(_Counting())
    with pytest.raises(axisops.InvalidArgumentError, match="not a named axisops Backend"):
        axisops.register_backend(object())


class _Missing(NumpyBackend):
    name = "missing-test"
    requires = ("a_module_that_is_not_installed_anywhere",)
    extra = "nothing"


def test_unavailable_backend_is_refused_with_the_install_hint():
    axisops.register_backend(_Missing(), replace=True)
    assert "missing-test" not in axisops.backends()
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"backend='missing-test' is not available here: "
                             r"a_module_that_is_not_installed_anywhere is not installed "
                             r"\(pip install 'axisops\[nothing\]'\)"):
        axisops.topk([1], 1, backend="missing-test")


class _OtherFamily(Backend):
    name = "other-family-test"
    array_modules = ("somewhere_else",)

    def meta(self, x, name):
        raise AssertionError

    def broadcast_to(self, x, shape):
        raise AssertionError

    def topk(self, x, spec):
        raise AssertionError

    def gather(self, x, index, spec):
        raise AssertionError


def test_backend_of_another_family_is_refused():
    axisops.register_backend(_OtherFamily(), replace=True)
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"backend='other-family-test' does not take numpy\.ndarray inputs "
                             r"\(backends for them: .*numpy"):
        axisops.topk(np.zeros(2), 1, backend="other-family-test")


def test_import_is_light():
    code = ("import sys, axisops; heavy = {'numba', 'torch', 'dask', 'triton', 'jax', "
            "'ml_dtypes', 'distributed', 'zarr', 'tqdm', 'matplotlib'}; "
            "print(sorted(heavy & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_first_call_imports_only_what_the_chosen_backend_needs():
    code = ("import sys, numpy as np, axisops; axisops.topk(np.arange(5), 2); "
            "print(sorted({'torch', 'dask', 'triton', 'jax', 'distributed'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_backend_imports_the_registry():
    """Backends get the registry's resolver when registered (``Backend.delegate``); one
    that imported the registry would make a loop with the registry's scan of backends."""
    import ast
    import importlib
    from pathlib import Path

    package = importlib.import_module("axisops.backends")  # axisops.backends is the function
    for path in Path(package.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            assert not any(n == "registry" or n.endswith(".registry") for n in names), path


def test_a_registered_backend_delegates_through_the_registry(restore_registry):
    from axisops.backends.numpy_backend import NumpyBackend

    class Mine(NumpyBackend):
        name = "mine-delegating"
        priority = -5

    mine = Mine()
    with pytest.raises(RuntimeError, match="not registered"):
        mine.delegate(np.zeros(3))
    axisops.register_backend(mine)
    assert mine.delegate(np.zeros(3)) is registry.select(np.zeros(3))
