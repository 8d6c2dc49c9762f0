"""``axisops topk`` and ``axisops gather``."""

from __future__ import annotations

import argparse

from .jobs import run_gather, run_topk
from .main import emit

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("topk", help="top-k along an axis of INPUT; writes values and indices")
    p.add_argument("input", metavar="INPUT", help=".npy file (memory-mapped) or .npz archive")
    p.add_argument("-k", type=int, required=True, help="how many elements to keep")
    p.add_argument("--axis", type=int, default=-1, help="axis to select along (default -1)")
    p.add_argument("--smallest", action="store_true", help="the k least instead of the greatest")
    p.add_argument("--unsorted", action="store_true", help="allow the k elements in any order")
    p.add_argument("--index-dtype", metavar="T", help="integer dtype of indices (default int64)")
    p.add_argument("--key", metavar="NAME", help="array name inside an .npz INPUT")
    p.add_argument("--backend", metavar="NAME", help="force a backend (see axisops info)")
    p.add_argument("-o", "--output", metavar="OUT.npz",
                   help="output archive (default: INPUT's stem + .topk.npz)")
    p.set_defaults(run=_topk)

    g = sub.add_parser("gather", help="gather INPUT along --dim at the positions in INDEX")
    g.add_argument("input", metavar="INPUT", help=".npy file (memory-mapped) or .npz archive")
    g.add_argument("index", metavar="INDEX", help="integer .npy file or .npz archive")
    g.add_argument("--dim", type=int, required=True, help="dimension to gather along")
    g.add_argument("--key", metavar="NAME", help="array name inside an .npz INPUT")
    g.add_argument("--index-key", metavar="NAME", help="array name inside an .npz INDEX")
    g.add_argument("--backend", metavar="NAME", help="force a backend (see axisops info)")
    g.add_argument("-o", "--output", metavar="OUT.npy",
                   help="output file (default: INPUT's stem + .gather.npy)")
    g.set_defaults(run=_gather)


def _topk(args: argparse.Namespace) -> int:
    emit(run_topk(
        args.input, args.k, axis=args.axis, largest=not args.smallest, sorted=not args.unsorted,
        index_dtype=args.index_dtype, key=args.key, output=args.output, backend=args.backend,
    ))
    return 0


def _gather(args: argparse.Namespace) -> int:
    emit(run_gather(
        args.input, args.index, args.dim, key=args.key, index_key=args.index_key,
        output=args.output, backend=args.backend,
    ))
    return 0
