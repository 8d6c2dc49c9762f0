"""The two jobs the command line runs, as plain functions.

``axisops topk``, ``axisops gather`` and ``axisops demo`` all go through these,
so the demo exercises exactly the code a user's command runs.  Each returns the
record printed as the command's one JSON line.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .. import registry
from ..ops import gather, topk
from .files import atomic_output, default_output, load_array

__all__ = ["run_gather", "run_topk"]


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
) -> dict[str, Any]:
    """Top-k of the array in ``input_path``; writes ``values`` and ``indices`` to a .npz."""
    start = time.perf_counter()
    x = load_array(input_path, key)
    out_path = output or default_output(input_path, ".topk.npz")
    result = topk(x, k, axis, largest=largest, sorted=sorted, index_dtype=index_dtype,
                  backend=backend)
    with atomic_output(out_path) as handle:
        np.savez(handle, values=result.values, indices=result.indices)
    return {
        "command": "topk",
        "input": input_path,
        "shape": list(x.shape),
        "dtype": str(x.dtype),
        "k": int(k),
        "axis": int(axis),
        "largest": largest,
        "sorted": sorted,
        "values_shape": list(result.values.shape),
        "index_dtype": str(result.indices.dtype),
        "backend": registry.select("topk", x, backend).name,
        "seconds": round(time.perf_counter() - start, 6),
        "output": out_path,
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
) -> dict[str, Any]:
    """Gather along ``dim`` from ``input_path`` at ``index_path``; writes a .npy."""
    start = time.perf_counter()
    x = load_array(input_path, key)
    index = load_array(index_path, index_key, what="INDEX")
    out_path = output or default_output(input_path, ".gather.npy")
    out = gather(x, dim, index, backend=backend)
    with atomic_output(out_path) as handle:
        np.save(handle, out, allow_pickle=False)
    return {
        "command": "gather",
        "input": input_path,
        "index": index_path,
        "shape": list(x.shape),
        "dtype": str(x.dtype),
        "index_shape": list(index.shape),
        "index_dtype": str(index.dtype),
        "dim": int(dim),
        "out_shape": list(out.shape),
        "backend": registry.select("gather", x, backend).name,
        "seconds": round(time.perf_counter() - start, 6),
        "output": out_path,
    }
