"""``axisops info``: version, backends and threads."""

from __future__ import annotations

import argparse
import json
import platform
from typing import Any

import numpy as np

from .._version import __version__
from ..config import cpu_count, get_num_threads
from ..registry import all_backends, select

__all__ = ["collect", "register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("info", help="version, available backends and thread count")
    p.add_argument("--json", action="store_true", help="print one JSON line instead of text")
    p.set_defaults(run=_run)


def collect() -> dict[str, Any]:
    """What ``axisops info`` reports, as a dictionary."""
    rows = []
    for b in all_backends():
        rows.append({
            "name": b.name,
            "arrays": list(b.array_modules),
            "available": b.available(),
            "missing": list(b.missing()),
            "description": b.description,
        })
    return {
        "kernels": _kernels(),
        "version": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "default_backend_numpy": select(np.zeros(1)).name,
        "backends": rows,
        "threads": get_num_threads(),
        "cpus": cpu_count(),
    }


def _kernels() -> dict[str, Any]:
    from ..registry import get_backend

    if not get_backend("numba").available():
        return {"numba": None}
    from importlib.metadata import version

    from ..config import get_compile_mode
    from ..kernels.numba.warmup import cache_status

    return {"numba": version("numba"), **cache_status(), "compile_mode": get_compile_mode()}


def _run(args: argparse.Namespace) -> int:
    data = collect()
    if args.json:
        print(json.dumps(data))
        return 0
    print(f"axisops {data['version']} (Python {data['python']}, NumPy {data['numpy']})")
    print(f"threads: {data['threads']} (CPUs available: {data['cpus']})")
    print(f"default backend for NumPy arrays: {data['default_backend_numpy']}")
    kernels = data["kernels"]
    if kernels["numba"]:
        print(f"numba {kernels['numba']}: {kernels['cached']} of {kernels['kernels']} kernels "
              f"cached, {kernels['not_cached']} not (axisops warmup compiles them), "
              f"in {kernels['cache_dir']}; compile mode: {kernels['compile_mode']}")
    print("backends:")
    for row in data["backends"]:
        state = "available" if row["available"] else f"missing {', '.join(row['missing'])}"
        print(f"  {row['name']:<8} {'/'.join(row['arrays']):<16} {state:<24} {row['description']}")
    return 0
