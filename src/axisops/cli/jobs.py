"""The command line's two jobs: the engine's, with the command line's words and signals.

``axisops topk``, ``axisops gather`` and ``axisops demo`` run these; they are
:func:`axisops.streaming.jobs.topk_job` and
:func:`~axisops.streaming.jobs.gather_job` (what :func:`axisops.topk_file`
and :func:`axisops.gather_file` run) with three differences that belong to a
command, not a library: messages name ``INPUT``, ``--key``,
``--chunk-bytes``; the output defaults to a name beside the input; and
SIGTERM, SIGHUP and SIGINT unwind the stack
(:func:`~axisops.streaming.signals.exit_on_signals`), so an interrupted run
removes its temporary files and prints one line.

Errors of the operation's arguments name it as the Python function does
(``topk(): k=99 is out of range ...``); errors of files name the file argument
(``INPUT x.npy: no such file``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import AxisOpsError, name_error
from ..streaming.errors import CLI, FileError
from ..streaming.files import default_output
from ..streaming.jobs import Announce, Options, gather_job, topk_job
from ..streaming.signals import exit_on_signals
from ..streaming.stream import DEFAULT_CHUNK_BYTES

__all__ = ["run_gather", "run_topk"]


@contextmanager
def _operation_errors(op: str) -> Iterator[None]:
    """Name ``op`` in the errors raised inside, file errors excepted."""
    try:
        yield
    except FileError:
        raise
    except AxisOpsError as exc:
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
    options = Options(backend, chunk_bytes, scheduler, progress, announce, CLI)
    with exit_on_signals(), _operation_errors("topk"):
        _, record = topk_job(input_path, k, axis=axis, largest=largest, sorted=sorted,
                             index_dtype=index_dtype, key=key,
                             out=output or default_output(input_path, ".topk.npz"),
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
    options = Options(backend, chunk_bytes, scheduler, progress, announce, CLI)
    with exit_on_signals(), _operation_errors("gather"):
        _, record = gather_job(input_path, index_path, dim, key=key, index_key=index_key,
                               out=output or default_output(input_path, ".gather.npy"),
                               options=options)
    return record
