"""The arrows of docs/architecture.md, read from the source: who may import whom, and who
may raise an argument error.

Every ``import`` in ``src/axisops`` counts, at module level or inside a function (a lazy
import is an arrow all the same).  The torch, Triton and JAX paths (``axisops/backends``,
``axisops/kernels/torch``, ``axisops/kernels/jax``, ``axisops/torch.py``) are being
rewritten as an adapter and engines of their own; until then the arrows they still draw
are listed here, each with the reason, and nothing else may be added to those lists.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

import axisops

SRC = Path(axisops.__file__).parent

#: Arrows the torch/JAX rewrite removes (importer, imported): nothing else may join them.
LEGACY_ARROWS = {
    # The one import cycle of the house: the torch backend calls the operators, and the
    # operators look their runner up in the registry and read tensors with the backend.
    ("axisops.backends.torch_backend", "axisops.kernels.torch.library"),
    ("axisops.kernels.torch.library", "axisops.backends.torch_backend"),
    ("axisops.kernels.torch.library", "axisops.registry"),
    # The DLPack adapter's accelerator route reads torch tensors as the torch backend does.
    ("axisops.adapters.dlpack", "axisops.backends.torch_backend"),
}
#: Modules outside validation.py that construct argument errors, and why.
OWN_ERRORS = {
    # acl.util's helpers raise InvalidArgumentError by design (pyACL's raise ValueError),
    # for acl's own rules (host pointers and buffer shapes), in acl's words.
    "axisops.ascend._boundary", "axisops.ascend.acl.util",
    # The torch and JAX paths, until they are rewritten on validation's rule functions.
    "axisops.backends.torch_backend", "axisops.kernels.jax.ops", "axisops.torch",
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


def test_adapters_import_no_engine_and_no_registry():
    for module in (m for m in _modules() if m.startswith("axisops.adapters")):
        bad = {t for t in _imports(module)
               if (t.startswith(("axisops.engines", "axisops.backends", "axisops.registry",
                                 "axisops.api")) and (module, t) not in LEGACY_ARROWS)}
        assert not bad, (module, bad)


def test_below_the_registry_nothing_calls_the_registry():
    """Only the fronts pick (adapter, engine); pieces of a call run the engine they are given."""
    users = {m for m, targets in _graph().items() if "axisops.registry" in targets}
    allowed = {"axisops", "axisops.api", "axisops.streaming.jobs",
               "axisops.streaming.topk_stream", "axisops.cli.info"}
    legacy = {a for a, b in LEGACY_ARROWS if b == "axisops.registry"}
    assert users - allowed - legacy == set()
    for module in ("axisops.merge", "axisops.dask.topk", "axisops.dask.gather",
                   "axisops.dask.tree", "axisops.streaming.stream", "axisops.streaming.cluster"):
        assert "axisops.registry" not in _imports(module), module


def test_only_fronts_import_the_public_functions():
    users = {m for m, targets in _graph().items() if "axisops.api" in targets}
    assert users and all(m == "axisops" or m.startswith(FRONTS[1:]) for m in users), users


def test_the_package_has_no_import_cycle_but_the_torch_one():
    graph = {m: {t for t in targets if (m, t) not in LEGACY_ARROWS}
             for m, targets in _graph().items()}
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
    # ... and the torch cycle is still there to be removed (this list must shrink, not grow).
    assert "axisops.kernels.torch.library" in _imports("axisops.backends.torch_backend")


def _constructed_errors(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in ARGUMENT_ERRORS:
                found.append((node.lineno, name))
    return found


def test_no_module_but_validation_makes_an_argument_error_of_its_own():
    """Each rule once: every other module calls validation's rule functions, and a front
    that words an error its own way catches validation's and writes from its fields."""
    offenders = {}
    for module, path in _modules().items():
        if module in ("axisops.validation", "axisops.errors") or module in OWN_ERRORS:
            continue
        found = _constructed_errors(path)
        if found:
            offenders[module] = found
    assert offenders == {}
    assert _constructed_errors(_modules()["axisops.validation"])  # the test can see them


@pytest.mark.parametrize("module", sorted(OWN_ERRORS))
def test_the_allowed_exceptions_still_need_their_place(module):
    assert _constructed_errors(_modules()[module]), f"{module} needs no exception any more"


def test_the_legacy_arrows_still_exist():
    for importer, imported in LEGACY_ARROWS:
        assert imported in _imports(importer), (importer, imported)
