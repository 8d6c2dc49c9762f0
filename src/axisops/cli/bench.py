"""``axisops bench``: time axisops against its peers (:mod:`axisops.bench`).

The benchmark ships with the package; its peers (torch, JAX, ONNX Runtime) and
its chart (matplotlib) are optional: those not installed are named, with the
extra that installs them, and skipped.
"""

from __future__ import annotations

import argparse
import os

from .output import CLIError

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    from ..bench import main as bench

    p = sub.add_parser(
        "bench", help="time axisops against its peers (NumPy, torch, JAX, ONNX Runtime)",
        description="Times axisops against its peers (NumPy, torch, JAX, ONNX Runtime; those "
                    "not installed are named and skipped) in one process on the same inputs, "
                    "checks every axisops result bit for bit and prints a table; --json and "
                    "--plot write the results.")
    bench.build_parser(p)
    p.set_defaults(run=_run)


def check_output(flag: str, path: str | None) -> None:
    """Refuse, before any timing, a ``flag`` path the results could not be written to."""
    if path is None:
        return
    if os.path.isdir(path):
        raise CLIError(f"bench {flag} {path}: is a directory (need a file name)")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise CLIError(f"bench {flag} {path}: directory {folder} does not exist")


def _run(args: argparse.Namespace) -> int:
    from ..bench import main as bench

    check_output("--json", args.json)
    check_output("--plot", args.png)
    bench.run(args)
    return 0
