"""``axisops bench``: time axisops against its peers (:mod:`axisops.bench`).

The benchmark ships with the package; its peers (torch, JAX, ONNX Runtime) and
its chart (matplotlib) are optional: those not installed are named, with the
extra that installs them, and skipped.
"""

from __future__ import annotations

import argparse

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    from ..bench import main as bench

    p = sub.add_parser("bench", help="time axisops against its peers (numpy, torch, JAX, ORT)")
    bench.build_parser(p)
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from ..bench import main as bench

    bench.run(args)
    return 0
