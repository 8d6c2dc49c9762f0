"""The two jobs of the engine, as plain functions: streamed top-k and gather.

:func:`axisops.topk_file`, :func:`axisops.gather_file` and the command line's
``axisops topk`` / ``axisops gather`` (and ``axisops demo``) all run these, so
every caller exercises the same code.  A job returns its result (arrays, when
there is no output file) and a *record* of what it did: the command line
prints the record as its one JSON line, through ``announce``, just before the
output is put in place.

Inputs are streamed in chunks of ``chunk_bytes`` (see
:mod:`axisops.streaming.stream`), so files larger than memory work;
``scheduler`` runs the same job on a Dask cluster instead (see
:mod:`axisops.streaming.cluster`).  Every argument is checked, with the
library's own messages, before any output is opened; the spec validated here
is the only validation (boxes and merges run derived specs on the engine picked
once, see :class:`~axisops.engines.base.Engine`).  A job installs no signal
handler: the command line wraps it in
:func:`~axisops.streaming.signals.exit_on_signals`.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from .._forksafe import imported
from ..adapters.numpy import as_ndarray
from ..engines.base import Engine
from ..requests import ArrayMeta
from ..rules.operations import gather_spec, topk_spec
from ..rules.streaming import as_chunk_bytes, no_index_key
from ..runner import engine_for
from .cluster import cluster_gather, cluster_topk, connect
from .order_stats import quantile_select_plan, stream_quantile
from .outputs import Output, open_output, output_target, scratch_file
from .progress import progress_bar
from .sources import MemorySource, Source, open_source
from .stream import DEFAULT_CHUNK_BYTES, scratch_in, stream_gather, stream_topk
from .writers import ArrayWriter, NpyWriter, pack_npz

__all__ = ["Announce", "Options", "gather_job", "quantile_job", "topk_job"]

#: Called with a job's record just before its output is put in place (see
#: :meth:`axisops.streaming.outputs.Output.commit`); if it raises, nothing is.
Announce = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Options:
    """How a job runs (not what it computes); the defaults are the Python API's."""

    backend: str | None = None
    chunk_bytes: int = DEFAULT_CHUNK_BYTES
    scheduler: Any = None
    progress: bool | None = False
    announce: Announce | None = None


def _backends(dtype: np.dtype, options: Options) -> tuple[str, Engine | None]:
    """The name of the engine that runs the job, and the one that runs its NumPy boxes.

    With a scheduler the job is a dask graph, and ``backend`` names the
    backend the workers run on their blocks (``"dask"`` or none: each
    worker's default, shown as None).
    """
    if options.scheduler is not None and options.backend in (None, "dask"):
        return "dask", None
    impl = engine_for(np.empty(0, dtype), options.backend)
    return ("dask" if options.scheduler is not None else impl.name), impl


def _record(command: str, start: float, **fields: Any) -> dict[str, Any]:
    """The JSON record: ``fields`` in order, with ``seconds`` after the backends."""
    record: dict[str, Any] = {"command": command}
    for name, value in fields.items():
        record[name] = value
        if name == "block_backend":
            record["seconds"] = round(time.perf_counter() - start, 6)
    return record


def _finish(output: Output | None, options: Options, record: dict[str, Any]) -> None:
    """Announce the record, then put the output in place (one critical section)."""
    announce = options.announce
    if output is not None:
        output.commit(None if announce is None else (lambda: announce(record)))
    elif announce is not None:
        announce(record)


def _bar(options: Options, desc: str) -> Callable[..., Any]:
    def make(total: int, unit: str = "B") -> Any:
        return progress_bar(total, options.progress, unit=unit, desc=desc)

    return make


def _fspath(path: Any) -> str | None:
    return None if path is None else os.fspath(path)


def _shown(scheduler: Any) -> str | None:
    """The scheduler as the record shows it: its address."""
    if scheduler is None or isinstance(scheduler, str):
        return scheduler
    return str(getattr(getattr(scheduler, "scheduler", None), "address", scheduler))


def _writers(stack: ExitStack, output: Output | None, parts: dict[str, tuple[Any, np.dtype]],
             reverse: bool) -> dict[str, Any]:
    """One writer per result array (``parts``: name to shape and dtype).

    Arrays without an output; with one, the output itself for a single part
    (a ``.npy``), else scratch ``.npy`` files later packed into an ``.npz``.
    """
    if output is None:
        return {name: ArrayWriter(shape, dtype, reverse) for name, (shape, dtype) in parts.items()}
    if len(parts) == 1:
        (shape, dtype), = parts.values()
        return {"": NpyWriter(output.handle, shape, dtype, reverse)}
    target = output.target
    return {name: NpyWriter(scratch_file(stack, target.parent, f"{target.name}.{name}"),
                            shape, dtype, reverse)
            for name, (shape, dtype) in parts.items()}


def _closing(stack: ExitStack, source: Source) -> Source:
    """``source``, closed when ``stack`` unwinds."""
    stack.callback(source.close)
    return source


def _open(stack: ExitStack, out: str | None, inputs: list[tuple[str, Any]]) -> Output | None:
    """The output's temporary file (after every check of ``out``; ``inputs`` are
    ``(argument, path)`` pairs), or None for arrays."""
    if out is None:
        return None
    return open_output(stack, output_target(out, inputs))


def _work(options: Options, desc: str, total: int, impl: Engine | None,
          local: Callable[..., int], cluster: Callable[..., int], *args: Any) -> int:
    """Run a job's work here (a progress bar in bytes) or on the cluster (in blocks).

    ``local(*args, bar, impl)`` or ``cluster(client, *args, bars, backend name)``;
    both return how many boxes (blocks) they ran.
    """
    bars = _bar(options, desc)
    if options.scheduler is None:
        with bars(total) as bar:
            return local(*args, bar, impl)
    with connect(options.scheduler) as client:
        return cluster(client, *args, lambda blocks: bars(blocks, "block"),
                       impl and impl.name)


def topk_job(path: str, k: Any, *, axis: Any = -1, largest: Any = True, sorted: Any = True,
             index_dtype: Any = None, key: str | None = None, out: str | None = None,
             options: Options = Options()
             ) -> tuple[tuple[np.ndarray, np.ndarray] | None, dict[str, Any]]:
    """Top-k of the array at ``path``: ``((values, indices) or None, record)``.

    With ``out``, writes an ``.npz`` of ``values`` and ``indices`` there and
    returns None for the arrays; without, returns them.  Every argument and
    the output's target are checked before any work.
    """
    start = time.perf_counter()
    with ExitStack() as stack:
        source = _closing(stack, open_source(path, key, arg="path"))
        spec = topk_spec(ArrayMeta(source.shape, source.dtype), k, axis, largest, sorted,
                         index_dtype)
        used, impl = _backends(source.dtype, options)
        chunk_bytes = as_chunk_bytes(options.chunk_bytes)
        work = math.prod(spec.out_shape) > 0  # an empty result needs no reading
        if work:
            source.check_budget(chunk_bytes)
        output = _open(stack, out, [("path", path)])
        writers = _writers(stack, output, {"values": (spec.out_shape, spec.out_dtype),
                                           "indices": (spec.out_shape, spec.index_dtype)},
                           source.reversed_layout)
        values, indices = writers["values"], writers["indices"]
        chunks = _work(options, "topk", source.nbytes, impl, stream_topk, cluster_topk,
                       source, spec, chunk_bytes, values, indices) if work else 0
        if output is not None:
            pack_npz(output.handle, {name: w.handle for name, w in writers.items()})
        record = _record(
            "topk", start, input=str(path), shape=list(spec.shape), dtype=str(spec.dtype),
            k=spec.k, axis=int(axis), largest=spec.largest, sorted=spec.sorted,
            values_shape=list(spec.out_shape), index_dtype=str(spec.index_dtype),
            backend=used, block_backend=impl and impl.name, output=_fspath(out), chunks=chunks,
            chunk_bytes=chunk_bytes, scheduler=_shown(options.scheduler),
        )
        _finish(output, options, record)
    return (None if output is not None else (values.array, indices.array)), record


def _index_source(index: Any, index_key: str | None) -> tuple[Source, list[tuple[str, str]]]:
    """The gather index, a file (a path) or an array in memory, and the files it reads."""
    if isinstance(index, (str, os.PathLike)):
        path = os.fspath(index)
        return open_source(path, index_key, arg="index"), [("index", path)]
    no_index_key(index_key)
    return MemorySource("<array>", as_ndarray(index, "index"), "index"), []


def gather_job(path: str, index: Any, dim: Any, *, key: str | None = None,
               index_key: str | None = None, out: str | None = None,
               options: Options = Options()
               ) -> tuple[np.ndarray | None, dict[str, Any]]:
    """Gather along ``dim`` from ``path`` at ``index``: ``(array or None, record)``.

    ``index`` is a path or an array.  With ``out``, writes a ``.npy`` there
    and returns None for the array; without, returns it.  Every argument and
    the output's target are checked before any work.
    """
    start = time.perf_counter()
    with ExitStack() as stack:
        x = _closing(stack, open_source(path, key, arg="path"))
        idx, index_files = _index_source(index, index_key)
        _closing(stack, idx)
        spec = gather_spec(ArrayMeta(x.shape, x.dtype), dim, ArrayMeta(idx.shape, idx.dtype))
        used, impl = _backends(x.dtype, options)
        chunk_bytes = as_chunk_bytes(options.chunk_bytes)
        work = idx.size > 0  # an empty index needs no reading
        if work:
            x.check_budget(chunk_bytes)
            idx.check_budget(chunk_bytes)
        output = _open(stack, out, [("path", path), *index_files])
        (writer,) = _writers(stack, output, {"out": (spec.out_shape, spec.out_dtype)},
                             idx.reversed_layout).values()
        # Scratch files (an index that jumps about a large x) go beside the output.
        local = partial(stream_gather,
                        scratch=scratch_in(stack, output and output.target.parent))
        chunks = _work(options, "gather", idx.nbytes, impl, local, cluster_gather,
                       x, idx, spec, chunk_bytes, writer) if work else 0
        record = _record(
            "gather", start, input=str(path), index=idx.path, shape=list(spec.shape),
            dtype=str(spec.dtype), index_shape=list(spec.index_shape),
            index_dtype=str(idx.dtype), dim=int(dim), out_shape=list(spec.out_shape),
            backend=used, block_backend=impl and impl.name, output=_fspath(out), chunks=chunks,
            chunk_bytes=chunk_bytes, scheduler=_shown(options.scheduler),
        )
        _finish(output, options, record)
    return (None if output is not None else writer.array), record


def quantile_job(path: str, q: Any, *, axis: Any = -1, method: Any = "linear",
                 skipnan: bool = False, key: str | None = None, out: str | None = None,
                 options: Options = Options()) -> tuple[np.ndarray | None, dict[str, Any]]:
    """Quantiles along ``axis`` of the array at ``path``: ``(array or None, record)``.

    :func:`axisops.quantile` (``skipnan``: :func:`axisops.nanquantile`) of the whole
    array, bit for bit, for ``q`` and ``method`` as it takes them, with the input read in
    boxes of about ``options.chunk_bytes``: boxes that span the axis run the engine's own
    quantile, boxes that cut it an exact radix select in passes over the file
    (:mod:`axisops.streaming.order_stats`).  With ``out``, writes a ``.npy`` there and
    returns None for the array.  Every argument and the output's target are checked
    before any work.  Runs in this process (``options.scheduler`` is not taken: a Dask
    array's quantile is :func:`axisops.quantile` itself).
    """
    imported("axisops.rules.quantile")
    from ..rules.quantile import quantile_spec

    start = time.perf_counter()
    with ExitStack() as stack:
        source = _closing(stack, open_source(path, key, arg="path"))
        spec = quantile_spec(ArrayMeta(source.shape, source.dtype), q, axis, method, False,
                             skipnan)
        used, impl = _backends(source.dtype, options)
        chunk_bytes = as_chunk_bytes(options.chunk_bytes)
        work = math.prod(spec.out_shape) > 0
        if work:
            source.check_budget(chunk_bytes)
        output = _open(stack, out, [("path", path)])
        (writer,) = _writers(stack, output, {"": (spec.out_shape, spec.out_dtype)},
                             source.reversed_layout).values()
        boxes = passes = 0
        if work:
            _, select_plan = quantile_select_plan(source, spec, chunk_bytes)
            total = source.nbytes * (1 if select_plan.whole else 2)
            with _bar(options, "quantile")(total) as bar:
                boxes, passes = stream_quantile(source, spec, chunk_bytes, writer, bar, impl)
        record = _record(
            "quantile", start, input=str(path), shape=list(spec.shape), dtype=str(spec.dtype),
            q=list(spec.q), axis=int(axis), method=spec.method, skipnan=spec.skipnan,
            out_shape=list(spec.out_shape), out_dtype=str(spec.out_dtype), backend=used,
            block_backend=impl and impl.name, output=_fspath(out), chunks=boxes,
            passes=passes, chunk_bytes=chunk_bytes,
        )
        _finish(output, options, record)
    return (None if output is not None else writer.array), record
