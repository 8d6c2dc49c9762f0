"""The two jobs the command line runs, as plain functions.

``axisops topk``, ``axisops gather`` and ``axisops demo`` all go through these,
so the demo exercises exactly the code a user's command runs.  Each returns the
record the command prints as its one JSON line (through ``announce``, just
before the output is put in place).

Inputs are streamed in chunks of ``chunk_bytes`` (see :mod:`axisops.cli.stream`),
so files larger than memory work; ``scheduler`` runs the same job on a Dask
cluster instead (see :mod:`axisops.cli.cluster`).  Every argument is checked,
with the library's own messages, before any output is opened.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

import numpy as np

from .. import registry
from ..validation import ArrayMeta, gather_spec, topk_spec
from .files import CLIError, default_output, open_output, output_target, scratch_file
from .outputs import NpyWriter, pack_npz
from .progress import progress_bar
from .signals import exit_on_signals
from .sources import open_source
from .stream import DEFAULT_CHUNK_BYTES, stream_gather, stream_topk

__all__ = ["Announce", "run_gather", "run_topk"]

#: Called with a job's record just before its output is put in place (see
#: :meth:`axisops.cli.files.Output.commit`); if it raises, nothing is.
Announce = Callable[[dict[str, Any]], None]


def _check_chunk_bytes(chunk_bytes: int) -> int:
    if isinstance(chunk_bytes, bool) or not isinstance(chunk_bytes, int) or chunk_bytes < 1:
        raise CLIError(f"--chunk-bytes={chunk_bytes!r} is not allowed (need an integer >= 1)")
    return chunk_bytes


def _backends(func: str, dtype: np.dtype, backend: str | None, scheduler: str | None
              ) -> tuple[str, str | None]:
    """The backend that runs the job, and the one that runs its NumPy boxes.

    With a scheduler the job is a dask graph, and ``--backend`` names the
    backend the workers run on their blocks (``"dask"`` or none: each
    worker's default, shown as None).
    """
    if scheduler is not None and backend in (None, "dask"):
        return "dask", None
    name = registry.select(func, np.empty(0, dtype), backend).name
    return ("dask" if scheduler is not None else name), name


def _bars(mode: bool | None, desc: str) -> Callable[..., Any]:
    def make(total: int, unit: str = "B") -> Any:
        return progress_bar(total, mode, unit=unit, desc=desc)

    return make


def _record(command: str, start: float, **fields: Any) -> dict[str, Any]:
    """The JSON record: ``fields`` in order, with ``seconds`` after the backends."""
    record: dict[str, Any] = {"command": command}
    for name, value in fields.items():
        record[name] = value
        if name == "block_backend":
            record["seconds"] = round(time.perf_counter() - start, 6)
    return record


def _announcer(announce: Announce | None, record: dict[str, Any]) -> Callable[[], None] | None:
    return None if announce is None else (lambda: announce(record))


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
    """Top-k of the array in ``input_path``; writes ``values`` and ``indices`` to a .npz.

    Every argument and the output's target are checked before any work;
    ``announce`` gets the record just before the output is put in place.
    """
    start = time.perf_counter()
    with exit_on_signals(), ExitStack() as stack:
        source = open_source(input_path, key)
        stack.callback(source.close)
        spec = topk_spec("topk", ArrayMeta(source.shape, source.dtype), k, axis, largest,
                         sorted, index_dtype)
        used, block = _backends("topk", source.dtype, backend, scheduler)
        chunk_bytes = _check_chunk_bytes(chunk_bytes)
        work = math.prod(spec.out_shape) > 0  # an empty result needs no reading
        if work:
            source.check_budget(chunk_bytes)
        out_path = output or default_output(input_path, ".topk.npz")
        out = open_output(stack, output_target(out_path, [("INPUT", input_path)]))
        parts = {name: scratch_file(stack, out.target.parent, f"{out.target.name}.{name}")
                 for name in ("values", "indices")}
        reverse = source.reversed_layout
        values = NpyWriter(parts["values"], spec.out_shape, spec.out_dtype, reverse)
        indices = NpyWriter(parts["indices"], spec.out_shape, spec.index_dtype, reverse)
        chunks = 0
        bars = _bars(progress, "topk")
        if work and scheduler is None:
            with bars(source.nbytes) as bar:
                chunks = stream_topk(source, spec, chunk_bytes, values, indices, bar, backend)
        elif work:
            from .cluster import cluster_topk, connect

            with connect(scheduler) as client:
                chunks = cluster_topk(client, source, spec, chunk_bytes, values, indices,
                                      lambda total: bars(total, "block"), block)
        pack_npz(out.handle, parts)
        record = _record(
            "topk", start, input=input_path, shape=list(spec.shape), dtype=str(spec.dtype),
            k=int(k), axis=int(axis), largest=largest, sorted=sorted,
            values_shape=list(spec.out_shape), index_dtype=str(spec.index_dtype),
            backend=used, block_backend=block, output=out_path, chunks=chunks,
            chunk_bytes=chunk_bytes, scheduler=scheduler,
        )
        out.commit(_announcer(announce, record))
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
    """Gather along ``dim`` from ``input_path`` at ``index_path``; writes a .npy.

    Every argument and the output's target are checked before any work;
    ``announce`` gets the record just before the output is put in place.
    """
    start = time.perf_counter()
    with exit_on_signals(), ExitStack() as stack:
        x = open_source(input_path, key)
        stack.callback(x.close)
        index = open_source(index_path, index_key, what="INDEX", flag="--index-key")
        stack.callback(index.close)
        spec = gather_spec("gather", ArrayMeta(x.shape, x.dtype), dim,
                           ArrayMeta(index.shape, index.dtype))
        used, block = _backends("gather", x.dtype, backend, scheduler)
        chunk_bytes = _check_chunk_bytes(chunk_bytes)
        work = index.size > 0  # an empty index needs no reading
        if work:
            x.check_budget(chunk_bytes)
            index.check_budget(chunk_bytes)
        out_path = output or default_output(input_path, ".gather.npy")
        target = output_target(out_path, [("INPUT", input_path), ("INDEX", index_path)])
        out = open_output(stack, target)
        writer = NpyWriter(out.handle, spec.out_shape, spec.out_dtype, index.reversed_layout)
        chunks = 0
        bars = _bars(progress, "gather")
        if work and scheduler is None:
            with bars(index.nbytes) as bar:
                chunks = stream_gather(x, index, spec, chunk_bytes, writer, bar, backend)
        elif work:
            from .cluster import cluster_gather, connect

            with connect(scheduler) as client:
                chunks = cluster_gather(client, x, index, spec, chunk_bytes, writer,
                                        lambda total: bars(total, "block"), block)
        record = _record(
            "gather", start, input=input_path, index=index_path, shape=list(spec.shape),
            dtype=str(spec.dtype), index_shape=list(spec.index_shape),
            index_dtype=str(index.dtype), dim=int(dim), out_shape=list(spec.out_shape),
            backend=used, block_backend=block, output=out_path, chunks=chunks,
            chunk_bytes=chunk_bytes, scheduler=scheduler,
        )
        out.commit(_announcer(announce, record))
    return record
