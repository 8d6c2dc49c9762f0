"""``axisops bench``: axisops against numpy, torch and jax (see :mod:`axisops.bench`)."""

from __future__ import annotations

import argparse

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    from ..bench.main import build_parser

    p = sub.add_parser("bench", help="time axisops against its installed peers; JSON + PNG")
    build_parser(p)
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from ..bench.main import run

    run(args)
    return 0
