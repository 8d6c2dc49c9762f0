"""``axisops warmup``: compile the CPU kernels now (or load them from the cache)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..streaming.progress import progress_bar

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("warmup", help="compile the Numba kernels (cached on disk for later runs)")
    p.add_argument("--dtype", action="append", metavar="T",
                   help="only the kernels for this element type (repeatable; default: all)")
    p.add_argument("--jobs", type=int, metavar="N",
                   help="compile in N processes at once (default: one per CPU)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on stderr (default: when stderr is a terminal)")
    p.set_defaults(run=_run)


def _dtypes(names: list[str] | None) -> list[Any] | None:
    if not names:
        return None
    from ..dtypes import TOPK_DTYPES, as_dtype, is_gather_dtype
    from .main import CLIError

    out = []
    for name in names:
        try:
            dtype = as_dtype(name)
        except (TypeError, ValueError):
            dtype = None
        if dtype is None or not is_gather_dtype(dtype):
            raise CLIError(f"--dtype={name!r} is not a supported element type "
                           f"(allowed: {', '.join((*TOPK_DTYPES, 'complex64', 'complex128'))})")
        out.append(dtype)
    return out


def _run(args: argparse.Namespace) -> int:
    from ..registry import get_backend
    from .main import CLIError

    if not get_backend("numba").available():
        print(json.dumps({"numba": False, "message": "numba is not installed; nothing to do"}))
        return 0
    if args.jobs is not None and args.jobs < 1:
        raise CLIError(f"--jobs={args.jobs} is not allowed (need an integer >= 1)")
    dtypes = _dtypes(args.dtype)
    from ..kernels.numba.warmup import warmup

    bar: Any = None

    def show(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = progress_bar(total, args.progress, unit="kernel", desc="kernels", leave=True)
        bar.update(done - bar.n)

    try:
        report = warmup(dtypes, workers=args.jobs, progress=show)
    finally:
        if bar is not None:
            bar.close()
    print(json.dumps({"numba": True, **report}))
    return 1 if report["failed"] else 0
