"""``axisops topk``, ``gather`` and ``quantile``: the streaming jobs, with the command line's words.

They are :func:`axisops.streaming.jobs.topk_job`,
:func:`~axisops.streaming.jobs.gather_job` (what :func:`axisops.topk_file`
and :func:`axisops.gather_file` run) and :func:`~axisops.streaming.jobs.quantile_job`
with three differences that belong to a
command, not a library: messages name ``INPUT``, ``--key``, ``--chunk-bytes``
(:data:`axisops.cli.output.WORDS`); the output defaults to a name beside the
input; and SIGTERM, SIGHUP and SIGINT unwind the stack
(:func:`~axisops.streaming.signals.exit_on_signals`), so an interrupted run
removes its temporary files and prints one line.  ``axisops demo`` runs them too.

Errors of the operation's arguments name it as the Python function does
(``topk(): k=99 is out of range ...``); errors of files name the file argument
(``INPUT x.npy: no such file``).
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..errors import AxisOpsError, name_error
from ..streaming.errors import FileError
from ..streaming.jobs import Announce, Options, gather_job, quantile_job, topk_job
from ..streaming.outputs import default_output
from ..streaming.signals import exit_on_signals
from ..streaming.stream import DEFAULT_CHUNK_BYTES
from .output import WORDS, CLIError, emit

__all__ = ["default_output_for", "parse_size", "register", "run_gather", "run_quantile",
           "run_topk"]

_UNITS = {"": 1, "k": 1000, "m": 1000**2, "g": 1000**3, "t": 1000**4, "p": 1000**5,
          "ki": 1024, "mi": 1024**2, "gi": 1024**3, "ti": 1024**4, "pi": 1024**5}

#: The largest size accepted (8 EiB - 1: what a file offset can hold).
MAX_SIZE = 2**63 - 1


def parse_size(text: str) -> int:
    """A byte count such as ``67108864``, ``64MiB``, ``64M`` or ``1.5GB`` (M = 10**6).

    >>> parse_size("64MiB"), parse_size("2k"), parse_size("4096"), parse_size("1.5k")
    (67108864, 2000, 4096, 1500)
    """
    match = re.fullmatch(r"\s*(\d{1,30}(?:\.\d{1,30})?)\s*([kmgtp]i?)?b?\s*", text,
                         re.IGNORECASE)
    value = Fraction(match.group(1)) * _UNITS[(match.group(2) or "").lower()] if match else 0
    if not 1 <= value <= MAX_SIZE:
        shown = text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"
        raise argparse.ArgumentTypeError(
            f"{shown!r} is not a size (need a number of bytes from 1 to {MAX_SIZE}, "
            f"e.g. 67108864 or 64MiB)"
        )
    return int(value)


def _scale_options(p: argparse.ArgumentParser, scheduler: bool = True) -> None:
    p.add_argument("--chunk-bytes", type=parse_size, default=DEFAULT_CHUNK_BYTES, metavar="B",
                   help="input bytes read per step (default 32MiB); memory stays near a few B")
    if scheduler:
        p.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on the Dask cluster at ADDRESS (e.g. tcp://host:8786); "
                            "workers read the files by path")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on stderr (default: when stderr is a terminal and the "
                        "work takes over a second)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "topk", help="top-k along an axis of INPUT; writes values and indices",
        description="The k greatest (or --smallest) elements along an axis of INPUT and "
                    "their indices, largest first with the lower index first among equal "
                    "elements, written to an .npz archive (values, indices); one JSON line "
                    "on stdout describes the job. INPUT is read in chunks, so files larger "
                    "than memory work.")
    p.add_argument("input", metavar="INPUT", help=".npy, .npz or zarr array, read in chunks")
    p.add_argument("-k", type=int, required=True, help="how many elements to keep")
    p.add_argument("--axis", type=int, default=-1, help="axis to select along (default -1)")
    p.add_argument("--smallest", action="store_true", help="the k least instead of the greatest")
    p.add_argument("--unsorted", action="store_true", help="allow the k elements in any order")
    p.add_argument("--index-dtype", metavar="T", help="integer dtype of indices (default int64)")
    p.add_argument("--key", metavar="NAME", help="array name in an .npz or zarr group INPUT")
    p.add_argument("--backend", metavar="NAME",
                   help="force a backend (see axisops info); with --scheduler, the one the "
                        "workers run on their blocks")
    p.add_argument("-o", "--output", metavar="OUT.npz",
                   help="output archive (default: INPUT's stem + .topk.npz)")
    _scale_options(p)
    p.set_defaults(run=_topk)

    g = sub.add_parser(
        "gather", help="gather INPUT along --dim at INDEX's positions; writes a .npy",
        description="The elements of INPUT along --dim at the positions in INDEX "
                    "(numpy.take_along_axis; negative positions count from the end), "
                    "written to a .npy; one JSON line on stdout describes the job. INPUT "
                    "and INDEX are read in chunks, so files larger than memory work.")
    g.add_argument("input", metavar="INPUT", help=".npy, .npz or zarr array, read in chunks")
    g.add_argument("index", metavar="INDEX", help="integer .npy file, .npz archive or zarr array")
    g.add_argument("--dim", type=int, required=True, help="dimension to gather along")
    g.add_argument("--key", metavar="NAME", help="array name in an .npz or zarr group INPUT")
    g.add_argument("--index-key", metavar="NAME", help="array name in an .npz or zarr group INDEX")
    g.add_argument("--backend", metavar="NAME",
                   help="force a backend (see axisops info); with --scheduler, the one the "
                        "workers run on their blocks")
    g.add_argument("-o", "--output", metavar="OUT.npy",
                   help="output file (default: INPUT's stem + .gather.npy)")
    _scale_options(g)
    g.set_defaults(run=_gather)

    q = sub.add_parser(
        "quantile", help="quantiles along an axis of INPUT; writes a .npy",
        description="The quantiles -q of every sequence along an axis of INPUT, exactly "
                    "axisops.quantile's (NumPy's formulas and dtypes; NaN sort last, or "
                    "--skip-nan skips them as nanquantile does), written to a .npy of shape "
                    "(len(q), INPUT's shape without the axis); one JSON line on stdout "
                    "describes the job. INPUT is read in chunks, so files larger than "
                    "memory work: chunks that cut the axis are selected over exactly, in a "
                    "few passes.")
    q.add_argument("input", metavar="INPUT", help=".npy, .npz or zarr array, read in chunks")
    q.add_argument("-q", type=float, nargs="+", required=True, metavar="Q",
                   help="probabilities in [0, 1], e.g. -q 0.5 0.99")
    q.add_argument("--axis", type=int, default=-1, help="axis to reduce (default -1)")
    q.add_argument("--method", default="linear", metavar="M",
                   help="one of NumPy's 13 methods (default linear): inverted_cdf, "
                        "averaged_inverted_cdf, closest_observation, "
                        "interpolated_inverted_cdf, hazen, weibull, linear, median_unbiased, "
                        "normal_unbiased, lower, higher, nearest, midpoint")
    q.add_argument("--skip-nan", action="store_true",
                   help="skip NaN (nanquantile); by default NaN sort last")
    q.add_argument("--key", metavar="NAME", help="array name in an .npz or zarr group INPUT")
    q.add_argument("--backend", metavar="NAME", help="force a backend (see axisops info)")
    q.add_argument("-o", "--output", metavar="OUT.npy",
                   help="output file (default: INPUT's stem + .quantile.npy)")
    _scale_options(q, scheduler=False)
    q.set_defaults(run=_quantile)


def _topk(args: argparse.Namespace) -> int:
    run_topk(
        args.input, args.k, axis=args.axis, largest=not args.smallest, sorted=not args.unsorted,
        index_dtype=args.index_dtype, key=args.key, output=args.output, backend=args.backend,
        chunk_bytes=args.chunk_bytes, scheduler=args.scheduler, progress=args.progress,
        announce=emit,
    )
    return 0


def _gather(args: argparse.Namespace) -> int:
    run_gather(
        args.input, args.index, args.dim, key=args.key, index_key=args.index_key,
        output=args.output, backend=args.backend, chunk_bytes=args.chunk_bytes,
        scheduler=args.scheduler, progress=args.progress, announce=emit,
    )
    return 0


def _quantile(args: argparse.Namespace) -> int:
    run_quantile(
        args.input, args.q, axis=args.axis, method=args.method, skipnan=args.skip_nan,
        key=args.key, output=args.output, backend=args.backend, chunk_bytes=args.chunk_bytes,
        progress=args.progress, announce=emit,
    )
    return 0


def default_output_for(input_path: str, suffix: str) -> str:
    """The default output: INPUT's stem plus ``suffix``, beside INPUT.

    A name with no stem of its own (``.``, ``..``, ``/``) is taken from the absolute
    path, so that the job checks INPUT first and a plain directory is refused as the
    directory it is; a zarr array named ``.`` gets an output beside it.

    >>> default_output_for("x.npy", ".topk.npz")
    'x.topk.npz'
    """
    if Path(input_path).name in ("", ".."):
        input_path = os.path.abspath(input_path)
    if not Path(input_path).name:  # the root: no name to take a stem from
        return os.path.join(input_path, suffix.lstrip("."))
    return default_output(input_path, suffix)


@contextmanager
def _operation_errors(op: str) -> Iterator[None]:
    """The command line's words for the errors raised inside, named ``op`` but for the
    errors of files and of the command itself."""
    try:
        yield
    except AxisOpsError as exc:
        exc.spell(WORDS)
        if not isinstance(exc, (FileError, CLIError)):
            name_error(exc, op)
        raise


def run_topk(
    input_path: str,
    k: int,
    *,
    axis: int = -1,
    largest: bool = True,
    sorted: bool = True,
    index_dtype: str | None = None,
    key: str | None = None,
    output: str | None = None,
    backend: str | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    scheduler: str | None = None,
    progress: bool | None = None,
    announce: Announce | None = None,
) -> dict[str, Any]:
    """Top-k of the array in ``input_path``, written to a .npz; the job's record."""
    options = Options(backend, chunk_bytes, scheduler, progress, announce)
    with exit_on_signals(), _operation_errors("topk"):
        _, record = topk_job(input_path, k, axis=axis, largest=largest, sorted=sorted,
                             index_dtype=index_dtype, key=key,
                             out=output or default_output_for(input_path, ".topk.npz"),
                             options=options)
    return record


def run_gather(
    input_path: str,
    index_path: str,
    dim: int,
    *,
    key: str | None = None,
    index_key: str | None = None,
    output: str | None = None,
    backend: str | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    scheduler: str | None = None,
    progress: bool | None = None,
    announce: Announce | None = None,
) -> dict[str, Any]:
    """Gather along ``dim`` from ``input_path`` at ``index_path``, written to a .npy."""
    options = Options(backend, chunk_bytes, scheduler, progress, announce)
    with exit_on_signals(), _operation_errors("gather"):
        _, record = gather_job(input_path, index_path, dim, key=key, index_key=index_key,
                               out=output or default_output_for(input_path, ".gather.npy"),
                               options=options)
    return record


def run_quantile(
    input_path: str,
    q: list[float],
    *,
    axis: int = -1,
    method: str = "linear",
    skipnan: bool = False,
    key: str | None = None,
    output: str | None = None,
    backend: str | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    progress: bool | None = None,
    announce: Announce | None = None,
) -> dict[str, Any]:
    """Quantiles ``q`` (a list: one row of the result each) along ``axis`` of the array in
    ``input_path``, written to a .npy; the job's record."""
    options = Options(backend, chunk_bytes, None, progress, announce)
    op = "nanquantile" if skipnan else "quantile"
    with exit_on_signals(), _operation_errors(op):
        _, record = quantile_job(input_path, list(q), axis=axis, method=method,
                                 skipnan=skipnan, key=key,
                                 out=output or default_output_for(input_path, ".quantile.npy"),
                                 options=options)
    return record
