"""``axisops bench``: the benchmark, when run from a source checkout.

The benchmark (``benchmarks/axisops_bench``, with matplotlib and the torch,
JAX and ONNX Runtime peers) is a development tool and is not installed with
the library.  This command finds it beside the source tree it runs from (or in
``./benchmarks``) and runs it; elsewhere it says where to get it.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from types import ModuleType

from .main import CLIError

__all__ = ["find_benchmark", "register"]


def find_benchmark() -> ModuleType | None:
    """The ``axisops_bench.main`` module of a source checkout, if there is one."""
    here = Path(__file__).resolve()
    for folder in (here.parents[3] / "benchmarks", Path.cwd() / "benchmarks"):
        if (folder / "axisops_bench" / "main.py").is_file():
            if str(folder) not in sys.path:
                sys.path.insert(0, str(folder))
            return importlib.import_module("axisops_bench.main")
    return None


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="time axisops against its peers (from a source checkout)",
                       add_help=True)
    bench = find_benchmark()
    if bench is not None:
        bench.build_parser(p)
    p.set_defaults(run=_run, bench=bench)


def _run(args: argparse.Namespace) -> int:
    if args.bench is None:
        raise CLIError("axisops bench is a development command: run it in a source checkout "
                       "of axisops (python benchmarks/bench.py), where the benchmark lives")
    args.bench.run(args)
    return 0
