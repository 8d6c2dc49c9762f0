"""The two jobs the command line runs, as plain functions.

``axisops topk``, ``axisops gather`` and ``axisops demo`` all go through these,
so the demo exercises exactly the code a user's command runs.  Each returns the
record printed as the command's one JSON line.

Inputs are streamed in chunks of ``chunk_bytes`` (see :mod:`axisops.cli.stream`),
so files larger than memory work; ``scheduler`` runs the same job on a Dask
cluster instead (see :mod:`axisops.cli.cluster`).  Every argument is checked,
with the library's own messages, before any output is opened.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

import numpy as np

from .. import registry
from ..validation import ArrayMeta, gather_spec, topk_spec
from .files import CLIError, atomic_output, default_output
from .outputs import NpyWriter, pack_npz, scratch_files
from .progress import progress_bar
from .signals import exit_on_signals
from .sources import Source, open_source
from .stream import DEFAULT_CHUNK_BYTES, stream_gather, stream_topk

__all__ = ["run_gather", "run_topk"]


def _check_chunk_bytes(chunk_bytes: int) -> int:
    if isinstance(chunk_bytes, bool) or not isinstance(chunk_bytes, int) or chunk_bytes < 1:
        raise CLIError(f"--chunk-bytes={chunk_bytes!r} is not allowed (need an integer >= 1)")
    return chunk_bytes


def _backend_name(func: str, source: Source, backend: str | None, scheduler: str | None) -> str:
    if scheduler is not None:
        return backend or "dask"
    return registry.select(func, np.empty(0, source.dtype), backend).name


def _bars(mode: bool | None, desc: str) -> Callable[..., Any]:
    def make(total: int, unit: str = "B") -> Any:
        return progress_bar(total, mode, unit=unit, desc=desc)

    return make


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
) -> dict[str, Any]:
    """Top-k of the array in ``input_path``; writes ``values`` and ``indices`` to a .npz."""
    start = time.perf_counter()
    with exit_on_signals(), ExitStack() as stack:
        source = open_source(input_path, key)
        stack.callback(source.close)
        spec = topk_spec("topk", ArrayMeta(source.shape, source.dtype), k, axis, largest,
                         sorted, index_dtype)
        used = _backend_name("topk", source, backend, scheduler)
        chunk_bytes = _check_chunk_bytes(chunk_bytes)
        out_path = output or default_output(input_path, ".topk.npz")
        bars = _bars(progress, "topk")
        with atomic_output(out_path) as handle, \
                scratch_files(out_path, ["values", "indices"]) as parts:
            reverse = source.reversed_layout
            values = NpyWriter(parts["values"], spec.out_shape, spec.out_dtype, reverse)
            indices = NpyWriter(parts["indices"], spec.out_shape, spec.index_dtype, reverse)
            if scheduler is None:
                with bars(source.nbytes) as bar:
                    chunks = stream_topk(source, spec, chunk_bytes, values, indices, bar,
                                         backend)
            else:
                from .cluster import cluster_topk, connect

                with connect(scheduler) as client:
                    chunks = cluster_topk(client, source, spec, chunk_bytes, values, indices,
                                          lambda total: bars(total, "block"), backend)
            pack_npz(handle, parts)
    return {
        "command": "topk",
        "input": input_path,
        "shape": list(spec.shape),
        "dtype": str(spec.dtype),
        "k": int(k),
        "axis": int(axis),
        "largest": largest,
        "sorted": sorted,
        "values_shape": list(spec.out_shape),
        "index_dtype": str(spec.index_dtype),
        "backend": used,
        "seconds": round(time.perf_counter() - start, 6),
        "output": out_path,
        "chunks": chunks,
        "chunk_bytes": chunk_bytes,
        "scheduler": scheduler,
    }


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
) -> dict[str, Any]:
    """Gather along ``dim`` from ``input_path`` at ``index_path``; writes a .npy."""
    start = time.perf_counter()
    with exit_on_signals(), ExitStack() as stack:
        x = open_source(input_path, key)
        stack.callback(x.close)
        index = open_source(index_path, index_key, what="INDEX")
        stack.callback(index.close)
        spec = gather_spec("gather", ArrayMeta(x.shape, x.dtype), dim,
                           ArrayMeta(index.shape, index.dtype))
        used = _backend_name("gather", x, backend, scheduler)
        chunk_bytes = _check_chunk_bytes(chunk_bytes)
        out_path = output or default_output(input_path, ".gather.npy")
        bars = _bars(progress, "gather")
        with atomic_output(out_path) as handle:
            out = NpyWriter(handle, spec.out_shape, spec.out_dtype, index.reversed_layout)
            if scheduler is None:
                with bars(index.nbytes) as bar:
                    chunks = stream_gather(x, index, spec, chunk_bytes, out, bar, backend)
            else:
                from .cluster import cluster_gather, connect

                with connect(scheduler) as client:
                    chunks = cluster_gather(client, x, index, spec, chunk_bytes, out,
                                            lambda total: bars(total, "block"), backend)
    return {
        "command": "gather",
        "input": input_path,
        "index": index_path,
        "shape": list(spec.shape),
        "dtype": str(spec.dtype),
        "index_shape": list(spec.index_shape),
        "index_dtype": str(index.dtype),
        "dim": int(dim),
        "out_shape": list(spec.out_shape),
        "backend": used,
        "seconds": round(time.perf_counter() - start, 6),
        "output": out_path,
        "chunks": chunks,
        "chunk_bytes": chunk_bytes,
        "scheduler": scheduler,
    }
