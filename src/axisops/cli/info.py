"""``axisops info``: version, the compiled core (compiler, build, instruction set), the
backends (what ``backend=`` names) and threads."""

from __future__ import annotations

import argparse
import json
import platform
from typing import Any

import numpy as np

from .. import engines, registry
from .._version import __version__
from ..config import cpu_count, get_num_threads

__all__ = ["collect", "register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "info", help="version, backends, threads and the compiled core",
        description="The version, Python and NumPy, the thread count, the default backend "
                    "for NumPy arrays, the compiled core (its instruction-set level, the "
                    "levels this CPU runs, the compiler and the build type) and every "
                    "backend with its availability.")
    p.add_argument("--json", action="store_true", help="print one JSON line instead of text")
    p.set_defaults(run=_run)


def collect() -> dict[str, Any]:
    """What ``axisops info`` reports, as a dictionary."""
    rows = []
    for b in engines.all_engines():
        rows.append({
            "name": b.name,
            "arrays": [b.array_type],
            "available": b.available(),
            "missing": list(b.missing()),
            "description": b.description,
        })
    return {
        "kernels": _kernels(),
        "version": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "default_backend_numpy": registry.choose(np.zeros(1)).name,
        "backends": rows,
        "threads": get_num_threads(),
        "cpus": cpu_count(),
    }


def _kernels() -> dict[str, Any]:
    """The compiled core in use (see :func:`axisops.engines.cpu.describe`)."""
    from ..engines import cpu

    return cpu.describe()


def _run(args: argparse.Namespace) -> int:
    data = collect()
    if args.json:
        print(json.dumps(data))
        return 0
    print(f"axisops {data['version']} (Python {data['python']}, NumPy {data['numpy']})")
    print(f"threads: {data['threads']} (CPUs available: {data['cpus']})")
    print(f"default backend for NumPy arrays: {data['default_backend_numpy']}")
    k = data["kernels"]
    print(f"compiled core: {k['isa']} instruction set (this CPU runs: "
          f"{', '.join(k['isa_available'])}; AXISOPS_ISA chooses), {k['compiler']}, "
          f"{k['build']} build")
    print("backends:")
    for row in data["backends"]:
        state = "available" if row["available"] else f"missing {', '.join(row['missing'])}"
        print(f"  {row['name']:<8} {'/'.join(row['arrays']):<16} {state:<24} {row['description']}")
    return 0
