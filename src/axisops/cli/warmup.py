"""``axisops warmup``: compile the CPU kernels now (or load them from the cache)."""

from __future__ import annotations

import argparse
import json

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("warmup", help="compile the Numba kernels (cached on disk for later runs)")
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from ..registry import get_backend

    if not get_backend("numba").available():
        print(json.dumps({"numba": False, "message": "numba is not installed; nothing to do"}))
        return 0
    from ..kernels.numba_warmup import warmup

    print(json.dumps({"numba": True, **warmup()}))
    return 0
