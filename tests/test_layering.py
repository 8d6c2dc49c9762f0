"""The layers of docs/architecture.md, read from the source: every module's place, every
import pointing down, and who may choose an engine, look one up or raise an argument error.

Every import in ``src/axisops`` counts: at module level, inside a function (a lazy import
is an arrow all the same) and in an ``import_module`` table (the modules a module that
calls ``import_module`` names in its strings: ``"axisops.engines.cpu"``, or relative,
``".api"``).  Importing a module runs its packages' ``__init__`` first; that is how
Python finds the module, not an arrow of the code's, so what a package's ``__init__``
imports counts for the package alone.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

import axisops

SRC = Path(axisops.__file__).parent

#: Every module's place, highest first: a module imports only modules of its own place or
#: of places below it.  A module takes the place of the longest prefix that names it
#: (``"axisops"`` names the package's ``__init__`` alone).
PLACES = (
    ("command line", ("axisops.__main__", "axisops.cli")),
    ("benchmark", ("axisops.bench",)),
    ("package", ("axisops",)),  # import axisops: the public names, imported on first use
    ("facades and the torch front", ("axisops.directml", "axisops.ascend", "axisops.torch",
                                     "axisops.xarray")),
    ("streaming", ("axisops.streaming",)),
    ("public functions", ("axisops.api",)),
    ("runner", ("axisops.runner",)),
    ("torch operators", ("axisops.torch.library",)),
    ("registry", ("axisops.registry",)),
    ("adapters", ("axisops.adapters",)),
    ("engines", ("axisops.engines",)),
    ("dask graphs", ("axisops.dask",)),
    ("merge", ("axisops.merge",)),
    ("NumPy engines", ("axisops.engines.blocks", "axisops.engines.cpu",
                       "axisops.engines.numpy", "axisops.engines.base")),
    ("kernels", ("axisops.kernels",)),
    ("reference", ("axisops.reference",)),
    ("config", ("axisops.config",)),
    ("compiled core", ("axisops._core",)),
    ("requests and rules", ("axisops.requests", "axisops.rules", "axisops.validation")),
    ("errors and dtypes", ("axisops.errors", "axisops.dtypes", "axisops.tracing",
                           "axisops._forksafe", "axisops._version")),
)

#: The argument errors (a front may catch one and write its own text from its fields).
ARGUMENT_ERRORS = {"InvalidArgumentError", "UnsupportedDTypeError", "IndexOutOfRangeError"}
#: Modules outside the rules that construct argument errors, and why.
OWN_ERRORS = {
    # acl.util's helpers raise InvalidArgumentError by design (pyACL's raise ValueError),
    # for acl's own rules (host pointers and buffer shapes), in acl's words.
    "axisops.ascend._boundary", "axisops.ascend.acl.util",
}


def _name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, Path]:
    return {_name(p): p for p in SRC.rglob("*.py")}


def _place(module: str) -> int:
    """The index of ``module``'s place in :data:`PLACES` (0 is the highest)."""
    best = None
    for rank, (_, prefixes) in enumerate(PLACES):
        for prefix in prefixes:
            named = module == prefix or (prefix != "axisops" and module.startswith(prefix + "."))
            if named and (best is None or len(prefix) > len(best[1])):
                best = (rank, prefix)
    assert best is not None, f"{module} has no place in PLACES"
    return best[0]


def _resolve(target: str) -> str | None:
    """The package module ``target`` names, or None outside the package."""
    modules = _modules()
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target or None


def _package(module: str) -> str:
    return module if _modules()[module].name == "__init__.py" else module.rpartition(".")[0]


def _absolute(module: str, name: str, level: int) -> str:
    if not level:
        return name
    up = _package(module).split(".")
    up = up[: len(up) - level + 1]
    return ".".join([*up, name] if name else up)


def _table_entries(module: str, tree: ast.Module) -> set[str]:
    """The modules named by the strings of a module that calls ``import_module``
    (docstrings aside): ``"axisops.x.y"`` or ``"axisops.x.y:attribute"``, or ``".y"``."""
    calls = any(isinstance(n, ast.Call) and "import_module" in ast.unparse(n.func)
                for n in ast.walk(tree))
    if not calls:
        return set()
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docstrings:
            text = node.value.partition(":")[0]
            dots = len(text) - len(text.lstrip("."))
            name = _absolute(module, text[dots:], dots) if dots else text
            if text[dots:] and name in _modules():
                found.add(name)
    return found


@cache
def _imports(module: str) -> frozenset[str]:
    """The package modules ``module`` imports, anywhere in its code."""
    tree = ast.parse(_modules()[module].read_text())
    found = _table_entries(module, tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node.module or "", node.level)
            # ``from pkg import name``: the submodule pkg.name if there is one, else pkg.
            targets = [f"{base}.{a.name}" for a in node.names] or [base]
        else:
            continue
        found |= {t for t in map(_resolve, targets) if t is not None}
    return frozenset(found - {module})


def _graph() -> dict[str, frozenset[str]]:
    return {m: _imports(m) for m in _modules()}


def _reached(module: str) -> set[str]:
    """Every module ``module`` imports, directly or through others."""
    seen, todo = set(), [module]
    while todo:
        for t in _imports(todo.pop()):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def _importers(target: str) -> set[str]:
    return {m for m, targets in _graph().items() if target in targets}


def test_every_module_has_a_place_and_every_place_a_module():
    for module in _modules():
        _place(module)
    for place, prefixes in PLACES:
        for prefix in prefixes:
            assert any(m == prefix or m.startswith(prefix + ".") for m in _modules()), place


def test_the_test_reads_every_kind_of_import():
    assert "axisops.api" in _imports("axisops")  # the package's import_module table
    assert "axisops.engines.cpu" in _imports("axisops.engines.blocks")  # a table entry
    assert "axisops.torch.library" in _imports("axisops.runner")  # inside a function
    assert "axisops.cli.info" in _imports("axisops.cli.main")  # a relative table entry


def test_every_import_points_down():
    """A module imports modules of its own place or of places below it, never above."""
    up = {(m, t) for m, targets in _graph().items() for t in targets
          if _place(t) < _place(m)}
    assert up == set()


def test_nothing_reaches_up_through_other_modules():
    for module in _modules():
        above = {t for t in _reached(module) if _place(t) < _place(module)}
        assert not above, (module, above)


def test_the_package_has_no_import_cycle():
    graph = _graph()
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


def test_the_runner_and_the_torch_operators_ask_the_registry():
    """Engines are chosen by the runner, once per call, and by the torch operators when
    called directly; ``axisops info`` reports the default, and the package's ``backends``
    and ``register_backend`` are the registry's."""
    assert _importers("axisops.registry") == {"axisops", "axisops.runner",
                                              "axisops.torch.library", "axisops.cli.info"}


def test_below_the_registry_only_dask_tasks_look_an_engine_up_by_name():
    """Adapters, engines, merges and kernels run the engine they are given; a Dask task
    finds the one whose name it carries through the one lookup, engines.blocks.named."""
    registry = _place("axisops.registry")
    below = {m for m in _modules() if _place(m) > registry}
    looking = {m for m in below if {"axisops.engines", "axisops.engines.blocks"} & _imports(m)}
    assert {m for m in looking if not m.startswith("axisops.dask.")} == {"axisops.engines"}
    assert {"axisops.dask.topk", "axisops.dask.gather", "axisops.dask.select"} <= looking


def test_adapters_and_kernels_import_no_engine():
    for module in _modules():
        if module.startswith(("axisops.adapters", "axisops.kernels")):
            engines = {t for t in _imports(module) if t.startswith("axisops.engines")}
            assert not engines, (module, engines)


def test_no_engine_imports_another():
    engines = {m for m in _modules() if m.startswith("axisops.engines.")} - {
        "axisops.engines.base", "axisops.engines.blocks"}
    assert {"axisops.engines.cpu", "axisops.engines.numpy", "axisops.engines.jax"} <= engines
    for module in engines:
        others = {t for t in _imports(module) if t.startswith("axisops.engines")}
        assert others <= {"axisops.engines.base"}, (module, others)


def test_only_the_cpu_engine_touches_the_compiled_core():
    assert _importers("axisops._core") == {"axisops.engines.cpu"}
    assert "axisops.engines.cpu" in _imports("axisops.cli.info")  # axisops info, through it


def test_every_array_type_has_its_adapter_and_engines():
    engines = {m.rpartition(".")[2] for m in _modules() if m.startswith("axisops.engines.")}
    assert {"cpu", "numpy", "dask", "torch", "triton", "jax"} <= engines
    adapters = {m.rpartition(".")[2] for m in _modules() if m.startswith("axisops.adapters.")}
    assert {"numpy", "dask", "dlpack", "torch", "jax"} <= adapters
    assert not any(m.startswith("axisops.backends") for m in _modules())  # a function's name


def _constructed_errors(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in ARGUMENT_ERRORS:
                found.append((node.lineno, name))
    return found


def test_no_module_but_the_rules_makes_an_argument_error_of_its_own():
    """Each rule once: every other module calls the rules, and a front that words an error
    its own way catches the rule's error and writes from its fields."""
    offenders = {}
    for module, path in _modules().items():
        if module.startswith("axisops.rules") or module == "axisops.errors" \
                or module in OWN_ERRORS:
            continue
        found = _constructed_errors(path)
        if found:
            offenders[module] = found
    assert offenders == {}
    assert _constructed_errors(_modules()["axisops.rules"])  # the test can see them


@pytest.mark.parametrize("module", sorted(OWN_ERRORS))
def test_the_allowed_exceptions_still_need_their_place(module):
    assert _constructed_errors(_modules()[module]), f"{module} needs no exception any more"
