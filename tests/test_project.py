"""Project hygiene: the README's commands are CI's, the package's metadata and typing ship."""

import ast
import inspect
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import axisops
from axisops import api

ROOT = Path(__file__).resolve().parents[1]


def _readme_test_command() -> str:
    lines = (ROOT / "README.md").read_text().splitlines()
    return next(line for line in lines if line.startswith("python3 -m venv")
                and " -m pytest " in line)


def test_readme_test_command_is_what_ci_runs():
    """CI installs as the README says before anything uses that environment (the sanitizer
    and fuzzer builds, which have their own, may run beside the install), then runs the
    README's test command verbatim, last."""
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line and not line.startswith(("#", "set ", "cd ", "export ", "rm "))]
    steps = _readme_test_command().split(" && ")
    install, test = " && ".join(steps[:-1]), steps[-1]
    assert ci.count(install) == 1
    uses = [i for i, line in enumerate(ci) if ".venv/" in line and line != install]
    assert uses and ci.index(install) < uses[0]
    assert ci[-1] == test


def test_ci_takes_its_pins_from_the_constraints_file():
    assert " -c .ci/constraints.txt " in _readme_test_command()
    pins = [line for line in (ROOT / ".ci" / "constraints.txt").read_text().splitlines()
            if line and not line.startswith("#")]
    assert "torch==2.13.0" in pins and all("==" in pin for pin in pins)


def test_readme_has_a_demo_command():
    readme = (ROOT / "README.md").read_text()
    assert any(line.startswith("python3 -m venv") and line.endswith("axisops demo")
               for line in readme.splitlines())


def test_readme_tells_cpu_only_users_where_the_cpu_torch_is():
    readme = (ROOT / "README.md").read_text()
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in readme


# --- the built wheel ----------------------------------------------------------------------

def _build_wheel(tmp_path: Path) -> Path:
    """Build the wheel as ``pip install .`` does (isolated, with the declared build
    requirements), from a copy of the sources so the work tree stays clean, with no level
    of the compiled core (``AXISOPS_ISAS`` empty): what is checked here is the packaging,
    and the core's own build and install rules run in every install of the suite's
    environment (the editable install puts the modules where a wheel does), so compiling
    them again would only cost the suite a minute of CPU."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "CMakeLists.txt"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("src", "csrc"):
        shutil.copytree(ROOT / folder, source / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.so"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                           str(tmp_path / "dist"), "-Ccmake.define.AXISOPS_ISAS=",
                           str(source)],
                          capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("axisops-*.whl")
    return wheel


def test_the_wheel_ships_typing_license_and_unpinned_extras(tmp_path):
    with zipfile.ZipFile(_build_wheel(tmp_path)) as wheel:
        names = set(wheel.namelist())
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        text = wheel.read(metadata).decode()
        dist_info = metadata.rsplit("/", 1)[0]
        assert {"axisops/py.typed", "axisops/_api.pyi", f"{dist_info}/licenses/LICENSE"} <= names
        assert "axisops/_core/__init__.py" in names  # the loader of the core's levels
        assert "axisops/bench/main.py" in names  # `axisops bench` works installed
        assert not [n for n in names if n.endswith((".cpp", ".hpp"))]  # sources stay out
        assert "Copyright (c) 2026 axisops developers" in \
            wheel.read(f"{dist_info}/licenses/LICENSE").decode()
    headers = text.split("\n\n", 1)[0].splitlines()
    assert "License-Expression: MIT" in headers and "License-File: LICENSE" in headers
    assert "Classifier: Typing :: Typed" in headers
    requires = [h.removeprefix("Requires-Dist: ") for h in headers
                if h.startswith("Requires-Dist: ")]
    assert requires and not [r for r in requires if "==" in r.split(";")[0]]  # no pins
    triton = [r for r in requires if r.startswith("triton")]
    assert len(triton) == 2  # the triton and test extras, both for Linux only
    assert all(re.search(r"""sys_platform == ["']linux["']""", r) for r in triton), triton


# --- the typed API matches the run-time one ----------------------------------------------------

TYPED = ("topk", "top_k", "gather", "take_along_axis", "sort", "argsort", "kthvalue", "median",
         "partition", "argpartition", "quantile", "nanquantile", "nanmedian")
#: The result classes, each a NamedTuple of (values, indices).
RESULTS = ("TopK", "KthValue", "Median")


def _stub_signatures() -> dict[str, list[list[tuple]]]:
    """``{name: [parameters of each overload]}`` from ``_api.pyi``; a parameter is
    ``(name, kind, default)`` as :mod:`inspect` would give it."""
    tree = ast.parse((ROOT / "src" / "axisops" / "_api.pyi").read_text())
    found: dict[str, list[list[tuple]]] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        a, empty = node.args, inspect.Parameter.empty
        positional = [(p.arg, "POSITIONAL_ONLY") for p in a.posonlyargs] + \
            [(p.arg, "POSITIONAL_OR_KEYWORD") for p in a.args]
        defaults = [empty] * (len(positional) - len(a.defaults)) + \
            [ast.literal_eval(d) for d in a.defaults]
        params = [(n, k, d) for (n, k), d in zip(positional, defaults)]
        params += [(p.arg, "KEYWORD_ONLY", empty if d is None else ast.literal_eval(d))
                   for p, d in zip(a.kwonlyargs, a.kw_defaults)]
        found.setdefault(node.name, []).append(params)
    return found


def test_the_typed_signatures_are_the_run_time_ones():
    stubs = _stub_signatures()
    assert set(stubs) == set(TYPED)
    for name in TYPED:
        real = [(p.name, p.kind.name, p.default)
                for p in inspect.signature(getattr(api, name)).parameters.values()]
        assert len(stubs[name]) == 2 and all(params == real for params in stubs[name]), name


def test_the_typed_names_are_the_public_ones():
    """``__init__`` imports the typed functions for type checkers, and the same names of
    ``api`` lazily at run time (its ``_PUBLIC`` table)."""
    tree = ast.parse((ROOT / "src" / "axisops" / "__init__.py").read_text())
    (branch,) = [n for n in tree.body if isinstance(n, ast.If)]
    typed = [n for n in branch.body if isinstance(n, ast.ImportFrom) and n.module == "_api"]
    names = sorted(a.name for (imp,) in [typed] for a in imp.names)
    run_time = sorted(n for n, module in axisops._PUBLIC.items() if module == ".api")
    assert names == run_time == sorted([*TYPED, *RESULTS])
    assert all(getattr(axisops, n) is getattr(api, n) for n in names)
    lazy = {a.name: n.module for n in branch.body if isinstance(n, ast.ImportFrom)
            for a in n.names}
    assert lazy == {name: "_api" if module == ".api" else module.lstrip(".")
                    for name, module in axisops._PUBLIC.items()}
    assert sorted(axisops._PUBLIC) == sorted(n for n in axisops.__all__ if n != "__version__")
    stub = ast.parse((ROOT / "src" / "axisops" / "_api.pyi").read_text())
    for name in RESULTS:
        (cls,) = [n for n in stub.body if isinstance(n, ast.ClassDef) and n.name == name]
        fields = tuple(n.target.id for n in cls.body if isinstance(n, ast.AnnAssign))
        assert fields == getattr(axisops, name)._fields == ("values", "indices")


#: What ``import axisops`` must not import: the optional stacks, the compiled core, and
#: (the public names being imported on first use) NumPy itself.
HEAVY = ("torch", "jax", "dask", "distributed", "zarr", "triton", "ml_dtypes", "matplotlib",
         "xarray", "numpy", "axisops._core", "axisops.api", "axisops.streaming",
         "axisops.xarray")


def test_import_axisops_imports_nothing_heavy_and_the_names_come_on_first_use():
    code = ("import sys, axisops; print(sorted(m for m in sys.argv[1:] if m in sys.modules)); "
            "from axisops import topk, StreamingTopK; import axisops.api as api; "
            "print(topk is api.topk, axisops.streaming.StreamingTopK is StreamingTopK, "
            "set(axisops.__all__) <= set(dir(axisops)), 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, *HEAVY], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.splitlines() == ["[]", "True True True True"]
    with pytest.raises(AttributeError, match="module 'axisops' has no attribute 'no_such'"):
        axisops.no_such  # noqa: B018


def test_the_package_is_marked_typed():
    assert (ROOT / "src" / "axisops" / "py.typed").is_file()
