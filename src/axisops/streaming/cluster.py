"""``scheduler=`` (``--scheduler ADDRESS``): the same jobs on a Dask cluster.

The input becomes a dask array whose blocks are the streaming plan's boxes;
each block is read *by path* on a worker (see :mod:`axisops.streaming.sources`), so
the workers must see the files where the client does.  The work is the
``"dask"`` backend's graph (:func:`axisops.topk` / :func:`axisops.gather` on the
dask array); the result comes back to the client block by block, and the
client writes the output, so memory on the client stays bounded too.

``backend`` names the NumPy engine the workers run on their blocks (the
graph builders of :mod:`axisops.dask` pass its name to every task, which looks
it up once); without it, each worker uses its own default.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import product
from typing import Any

import numpy as np

from .._forksafe import imported
from ..errors import Arg
from ..requests import GatherSpec, TopKSpec
from .boxes import Box
from .errors import FileError, file_error
from .sources import Source
from .stream import Writer, gather_plan, topk_plan

__all__ = ["SourceArray", "cluster_gather", "cluster_topk", "connect"]


class SourceArray:
    """A source seen as an array (for ``dask.array.from_array``), read box by box."""

    def __init__(self, source: Source, reverse: bool) -> None:
        self.source, self.reverse = source, reverse
        self.shape = source.shape[::-1] if reverse else source.shape
        self.dtype = source.dtype
        self.ndim = len(self.shape)

    def __getitem__(self, key: tuple[slice, ...]) -> np.ndarray:
        ranges = [k.indices(s) for k, s in zip(key, self.shape)]
        box = Box(tuple(r[0] for r in ranges), tuple(max(0, r[1] - r[0]) for r in ranges))
        return self.source.read(box, self.reverse)


def _probe(address: str) -> None:
    """Fail fast, with one clear line, when nothing listens at a TCP ``address``.

    A ``distributed.Client`` that cannot connect retries until dask's connect
    timeout and then prints a traceback from its finaliser; a plain socket
    connection answers at once.
    """
    imported("socket", "dask", "dask.utils", "distributed.comm.addressing")
    import socket

    import dask
    from dask.utils import parse_timedelta
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        host, port = parse_host_port(location)
    except ValueError as exc:
        raise file_error("scheduler", address, f"not a scheduler address ({exc}; "
                         f"need e.g. tcp://host:8786)") from None
    if scheme != "tcp":
        return
    timeout = parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"))
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise file_error("scheduler", address,
                         f"cannot connect ({exc.strerror or exc})") from None


@contextmanager
def connect(scheduler: Any) -> Iterator[Any]:
    """A ``distributed.Client`` of ``scheduler``: an address, or a client (used as it is).

    A client made here is closed on the way out; one passed in is left open.
    How long to wait is dask's ``distributed.comm.timeouts.connect`` setting
    (for example ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=5s``).
    """
    try:
        imported("distributed")
        from distributed import Client
    except ImportError:
        raise FileError(Arg("scheduler"), " needs dask and distributed "
                        "(pip install 'axisops[dask]')") from None
    if isinstance(scheduler, Client):
        yield scheduler
        return
    _probe(scheduler)
    try:
        client = Client(scheduler, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise file_error("scheduler", scheduler, f"cannot connect ({exc})") from None
    with client:
        yield client


def _as_dask(source: Source, reverse: bool, chunks: tuple[int, ...]) -> Any:
    imported("dask.array", "dask.base")
    import dask.array as da
    from dask.base import tokenize

    array = SourceArray(source, reverse)
    name = f"axisops-read-{tokenize(source.token, reverse)}"
    return da.from_array(array, chunks=tuple(max(1, c) for c in chunks), name=name, lock=False,
                         asarray=False, fancy=False,
                         meta=np.empty((0,) * array.ndim, source.dtype))


def _write_blocks(client: Any, outputs: list[tuple[Any, Writer]], bar: Any) -> None:
    """Compute every block of each dask array and write it where it belongs."""
    imported("distributed")
    from distributed import as_completed

    where: dict[Any, tuple[Writer, Box]] = {}
    delayed = []
    for array, writer in outputs:
        starts = [np.cumsum((0, *c)).tolist() for c in array.chunks]
        blocks = array.to_delayed(optimize_graph=False)
        for pos in product(*(range(n) for n in array.numblocks)):
            box = Box(tuple(s[i] for s, i in zip(starts, pos)),
                      tuple(s[i + 1] - s[i] for s, i in zip(starts, pos)))
            delayed.append(blocks[pos])
            where[len(delayed) - 1] = (writer, box)
    futures = client.compute(delayed)
    position = {f.key: i for i, f in enumerate(futures)}
    for future, block in as_completed(futures, with_results=True, loop=client.loop):
        writer, box = where[position[future.key]]
        writer.write(box, block)
        bar.update(1)


def block_count(outputs: list[Any]) -> int:
    """How many blocks ``outputs`` (dask arrays) have in all."""
    return sum(math.prod(a.numblocks) for a in outputs)


def cluster_topk(client: Any, source: Source, spec: TopKSpec, chunk_bytes: int,
                 values: Writer, indices: Writer, progress: Any,
                 backend: str | None = None) -> int:
    """Top-k of ``source`` on the cluster; writes values and indices; the number of blocks."""
    imported("axisops.dask.topk")
    from ..dask.topk import topk

    layout, plan = topk_plan(source, spec, chunk_bytes)
    x = _as_dask(source, layout.reverse, plan.extent)
    result = topk(x, layout.topk(spec), block_backend=backend)
    with progress(block_count(list(result))) as bar:
        _write_blocks(client, [(result[0], values), (result[1], indices)], bar)
    return math.prod(x.numblocks)


def cluster_gather(client: Any, x: Source, index: Source, spec: GatherSpec, chunk_bytes: int,
                   out: Writer, progress: Any, backend: str | None = None) -> int:
    """Gather on the cluster; writes ``out``; the number of index blocks."""
    layout, plan = gather_plan(x, index, spec, chunk_bytes)
    idx = _as_dask(index, layout.reverse, plan.extent)
    x_chunks = list(plan.extent)
    x_chunks[layout.axis] = max(1, chunk_bytes // max(1, math.prod(plan.extent) //
                                                       plan.extent[layout.axis]
                                                       * x.dtype.itemsize))
    data = _as_dask(x, layout.reverse, tuple(x_chunks))
    imported("axisops.dask.gather")
    from ..dask.gather import gather

    result = gather(data, idx, layout.gather(spec), block_backend=backend)
    with progress(block_count([result])) as bar:
        _write_blocks(client, [(result, out)], bar)
    return math.prod(idx.numblocks)
