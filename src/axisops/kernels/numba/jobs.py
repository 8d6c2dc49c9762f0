"""The units of compilation: *jobs*, and the tiny calls that compile each one.

A job names the kernels one kind of call needs, for one key or element width:

- ``topk:<strategy>:<key type>``, e.g. ``topk:scan:uint32``: top-k keys are
  unsigned integers of the element's width (see :mod:`.keys`), so
  float32, int32 and uint32 share every top-k kernel;
- ``gather:<raw type>:<index type>``, e.g. ``gather:uint64:int64``: gather
  moves raw bits of the element's width (complex128 as itself).

:func:`run` compiles (or loads) a job's kernels by running the driver on a
tiny input; :func:`launches` lists them without compiling anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["GATHER_RAW", "KEY_TYPES", "WARM_INDEX", "all_jobs", "jobs_for", "launches", "run"]

#: top-k key types, one per element width.
KEY_TYPES = ("uint8", "uint16", "uint32", "uint64")
#: gather's raw element types, one per element width.
GATHER_RAW = ("uint8", "uint16", "uint32", "uint64", "complex128")
#: index types :func:`jobs_for` includes (others compile when first used).
WARM_INDEX = ("int32", "int64")
#: relative compile cost of each top-k strategy (measured), so the dearest start first.
_COST = {"scan": 5, "split": 3, "radix": 2, "insert": 2, "columns": 1, "column-split": 1}


def _strategies() -> tuple[str, ...]:
    from .driver import STRATEGIES

    return STRATEGIES


def all_jobs() -> list[str]:
    """Every job :func:`jobs_for` can give, for every type."""
    return jobs_for(None)


def jobs_for(dtypes: Iterable[Any] | None) -> list[str]:
    """The jobs that serve elements of ``dtypes`` (None: all types), dearest first.

    >>> jobs_for(["float32"])[:2]
    ['topk:scan:uint32', 'topk:split:uint32']
    """
    from ...dtypes import as_dtype

    widths = None if dtypes is None else {as_dtype(d).itemsize for d in dtypes}
    topk = [f"topk:{s}:{key}" for key in KEY_TYPES for s in _strategies()
            if widths is None or np.dtype(key).itemsize in widths]
    gather = [f"gather:{raw}:{index}" for raw in GATHER_RAW for index in WARM_INDEX
              if widths is None or np.dtype(raw).itemsize in widths]
    topk.sort(key=lambda job: -_COST.get(job.split(":")[1], 1))
    return topk + gather


def _parse(job: str) -> tuple[str, str, str]:
    op, first, second = job.split(":")
    if op not in ("topk", "gather"):
        raise ValueError(f"not an axisops kernel job: {job!r}")
    return op, first, second


def _call(job: str) -> Any:
    """A zero-argument function that runs ``job``'s kernels on a tiny input."""
    from ...validation import ArrayMeta, gather_spec, topk_spec
    from . import driver as drv

    op, first, second = _parse(job)
    if op == "topk":
        strategy, key = first, np.dtype(second)
        columns = strategy in ("columns", "column-split")
        shape, axis = ((40, 20), 0) if columns else ((4, 130), 1)
        x = np.arange(np.prod(shape)).reshape(shape).astype(key)
        spec = topk_spec(ArrayMeta(x.shape, x.dtype), 3, axis, True, True, None)
        return lambda: drv.topk(x, spec, strategy=strategy)
    x = np.zeros((6, 9), np.dtype(first))
    index = np.zeros((6, 4), np.dtype(second))
    spec = gather_spec(ArrayMeta(x.shape, x.dtype), 1,
                       ArrayMeta(index.shape, index.dtype))
    return lambda: drv.gather(x, index, spec)


def run(job: str) -> None:
    """Compile (or load from the cache) every kernel of ``job``; needs sync compile mode."""
    _call(job)()


def launches(job: str) -> list[tuple[Any, tuple]]:
    """The ``(kernel, args)`` pairs of ``job``, found without compiling."""
    from .cache import launches_of

    return launches_of(_call(job))
