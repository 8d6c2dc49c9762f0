"""pytest configuration for the whole checkout; the tests' own is in tests/conftest.py.

The docstring examples of every module of ``src/axisops`` run beside the tests
(``--doctest-modules`` over ``testpaths``, in pyproject.toml):

- a module that cannot be imported because an optional stack (torch, jax,
  dask, zarr ...) is not installed is not collected, and an example that
  imports one itself is skipped, so the suite runs where they cannot be
  installed;
- every example leaves the engine table as it found it, and the examples
  of ``axisops.ascend`` start without a runtime and must leave none behind.
"""

from __future__ import annotations

import ast
import importlib
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent / "src"

#: Optional dependencies: a module or example that needs a missing one is skipped.
OPTIONAL_STACKS = frozenset({"torch", "triton", "jax", "jaxlib", "dask", "distributed", "zarr",
                             "cupy", "matplotlib", "psutil", "onnx", "onnxruntime"})


def _missing_stack(error: ModuleNotFoundError) -> bool:
    return (error.name or "").partition(".")[0] in OPTIONAL_STACKS


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Leave out a package module whose import needs an optional stack that is missing."""
    if collection_path.suffix != ".py" or collection_path.name == "__main__.py" \
            or SRC not in collection_path.parents:
        return None  # pytest's doctest plugin never imports __main__.py
    parts = collection_path.relative_to(SRC).with_suffix("").parts
    name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as error:
        if _missing_stack(error):
            return True
        raise
    return None


def _stacks_imported(examples: list) -> set[str]:
    """The optional stacks the examples import (``import x`` / ``from x import ...``)."""
    found = set()
    for example in examples:
        try:
            tree = ast.parse(example.source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.partition(".")[0])
    return found & OPTIONAL_STACKS


@pytest.fixture
def restore_registry():
    """The engine table as it was before the test (engines registered by it removed)."""
    from axisops import engines
    from axisops.engines import blocks

    engines.all_engines()  # loaded before the snapshot, so it is not redone after
    with blocks.IMPORTS:
        saved = dict(blocks.loaded)
    yield
    with blocks.IMPORTS:
        blocks.loaded.clear()
        blocks.loaded.update(saved)
        blocks._by_type.clear()


@pytest.fixture
def fresh_ascend_runtime():
    """No axisops.ascend runtime before the test, and none left behind by it."""
    runtime = sys.modules.get("axisops.ascend._context")
    if runtime is not None and runtime.CONTEXT.initialized:
        runtime.CONTEXT.finalize()
    yield
    runtime = sys.modules.get("axisops.ascend._context")
    assert runtime is None or not runtime.CONTEXT.initialized, "a runtime was left initialised"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Docstring examples: skip those needing a missing stack; isolate the others."""
    for item in items:
        if getattr(item, "dtest", None) is None:  # not a pytest.DoctestItem
            continue
        missing = sorted(s for s in _stacks_imported(item.dtest.examples) if find_spec(s) is None)
        if missing:
            item.add_marker(pytest.mark.skip(reason=f"needs {', '.join(missing)}"))
        item.fixturenames.append("restore_registry")
        if item.dtest.name.startswith("axisops.ascend"):
            item.fixturenames.append("fresh_ascend_runtime")
