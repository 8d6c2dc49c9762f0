"""The arrows of docs/architecture.md, read from the source: who may import whom, and who
may raise an argument error.

Every ``import`` in ``src/axisops`` counts, at module level or inside a function (a lazy
import is an arrow all the same).  The exceptions are listed here, each with its reason;
nothing may be added to those lists without one.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

import axisops

SRC = Path(axisops.__file__).parent

#: The rules: the modules that make argument errors.
RULES = ("axisops.rules",)
#: Modules outside the rules that construct argument errors, and why.
OWN_ERRORS = {
    # acl.util's helpers raise InvalidArgumentError by design (pyACL's raise ValueError),
    # for acl's own rules (host pointers and buffer shapes), in acl's words.
    "axisops.ascend._boundary", "axisops.ascend.acl.util",
}
#: The argument errors (a front may catch one and write its own text from its fields).
ARGUMENT_ERRORS = {"InvalidArgumentError", "UnsupportedDTypeError", "IndexOutOfRangeError"}
#: Fronts: the modules that take a user's call, and so may import the public functions.
FRONTS = ("axisops", "axisops.torch", "axisops.streaming", "axisops.directml",
          "axisops.ascend", "axisops.cli")


def _name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, Path]:
    return {_name(p): p for p in SRC.rglob("*.py")}


def _resolve(target: str) -> str | None:
    """The package module ``target`` names, or None outside the package."""
    modules = _modules()
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target or None


@cache
def _imports(module: str) -> frozenset[str]:
    """The package modules ``module`` imports, anywhere in its code."""
    path = _modules()[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[: len(up) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            # ``from pkg import name``: the submodule pkg.name if there is one, else pkg.
            targets = [f"{base}.{a.name}" for a in node.names] or [base]
        else:
            continue
        found |= {t for t in map(_resolve, targets) if t is not None and t != module}
    return frozenset(found)


def _graph() -> dict[str, frozenset[str]]:
    return {m: _imports(m) for m in _modules()}


def _is_engine(module: str) -> bool:
    parts = module.split(".")
    return len(parts) == 3 and parts[1] == "engines" and parts[2] not in ("base",)


def test_no_engine_imports_the_registry_or_another_engine():
    engines = [m for m in _modules() if _is_engine(m)]
    assert {"axisops.engines.cpu", "axisops.engines.numpy", "axisops.engines.dask"} <= set(engines)
    for module in engines:
        bad = {t for t in _imports(module)
               if t == "axisops.registry" or (_is_engine(t) and t != module)
               or t == "axisops.engines" or t.startswith(("axisops.adapters", "axisops.api"))}
        assert not bad, (module, bad)


def test_every_array_type_has_its_adapter_and_engines():
    engines = {m.rpartition(".")[2] for m in _modules() if _is_engine(m)}
    assert {"cpu", "numpy", "dask", "torch", "triton", "jax"} <= engines
    adapters = {m.rpartition(".")[2] for m in _modules() if m.startswith("axisops.adapters.")}
    assert {"numpy", "dask", "dlpack", "torch", "jax"} <= adapters
    assert not any(m.startswith("axisops.backends") for m in _modules())  # a function's name


def test_adapters_import_no_engine_and_no_registry():
    for module in (m for m in _modules() if m.startswith("axisops.adapters")):
        bad = {t for t in _imports(module)
               if t.startswith(("axisops.engines", "axisops.registry", "axisops.api"))}
        assert not bad, (module, bad)


def test_the_torch_operators_and_the_jax_callback_find_their_engine_by_name():
    """The torch operators' kernels and the JAX host callback run the engine they are
    given: by name, from the engine table (not the registry, not another engine)."""
    assert "axisops.engines" in _imports("axisops.torch.library")
    assert "axisops.engines" in _imports("axisops.kernels.jax.ops")
    for module in ("axisops.kernels.jax.ops", "axisops.engines.jax", "axisops.engines.torch",
                   "axisops.engines.triton", "axisops.adapters.torch", "axisops.adapters.jax"):
        assert not {t for t in _imports(module)
                    if t in ("axisops.registry", "axisops.api") or _is_engine(t)}, module


def test_below_the_registry_nothing_calls_the_registry():
    """Only the fronts pick (adapter, engine); pieces of a call run the engine they are given."""
    users = {m for m, targets in _graph().items() if "axisops.registry" in targets}
    # The torch operators are a front too: called directly (torch.ops.axisops.topk), they
    # pick; called by the public functions they are given the engine's name.
    allowed = {"axisops", "axisops.api", "axisops.streaming.jobs",
               "axisops.streaming.topk_stream", "axisops.cli.info", "axisops.torch",
               "axisops.torch.library"}
    assert users - allowed == set()
    for module in ("axisops.merge", "axisops.dask.topk", "axisops.dask.gather",
                   "axisops.dask.tree", "axisops.streaming.stream", "axisops.streaming.cluster"):
        assert "axisops.registry" not in _imports(module), module


def test_only_fronts_import_the_public_functions():
    users = {m for m, targets in _graph().items() if "axisops.api" in targets}
    assert users and all(m == "axisops" or m.startswith(FRONTS[1:]) for m in users), users


def test_the_package_has_no_import_cycle():
    graph = _graph()
    # A package's __init__ is imported before any of its modules: an arrow from a module
    # up to its own package's __init__ is not a cycle of the code's making.
    graph = {m: {t for t in ts if not m.startswith(t + ".")} for m, ts in graph.items()}
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(m: str) -> None:  # Tarjan's strongly connected components
        index[m] = low[m] = len(index)
        stack.append(m)
        on_stack.add(m)
        for t in graph.get(m, ()):
            if t not in index:
                visit(t)
                low[m] = min(low[m], low[t])
            elif t in on_stack:
                low[m] = min(low[m], index[t])
        if low[m] == index[m]:
            component = set()
            while True:
                t = stack.pop()
                on_stack.discard(t)
                component.add(t)
                if t == m:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for m in sorted(graph):
        if m not in index:
            visit(m)
    assert cycles == []


def _constructed_errors(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in ARGUMENT_ERRORS:
                found.append((node.lineno, name))
    return found


def test_no_module_but_the_rules_makes_an_argument_error_of_its_own():
    """Each rule once: every other module calls validation's rule functions, and a front
    that words an error its own way catches validation's and writes from its fields."""
    offenders = {}
    for module, path in _modules().items():
        if module.startswith(RULES) or module == "axisops.errors" or module in OWN_ERRORS:
            continue
        found = _constructed_errors(path)
        if found:
            offenders[module] = found
    assert offenders == {}
    assert _constructed_errors(_modules()["axisops.rules"])  # the test can see them


@pytest.mark.parametrize("module", sorted(OWN_ERRORS))
def test_the_allowed_exceptions_still_need_their_place(module):
    assert _constructed_errors(_modules()[module]), f"{module} needs no exception any more"
