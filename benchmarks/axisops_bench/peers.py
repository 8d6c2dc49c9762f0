"""What the benchmark times: axisops, the read floor, and the installed peers.

Each implementation is a :class:`Runner`: ``prepare`` turns the shared NumPy
input into the implementation's own array type once, outside the timing
(torch shares the memory; JAX copies it to its device), and ``call`` is the
timed operation, returning when the result is complete.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.util import find_spec
from typing import Any

import numpy as np

from axisops import gather as ax_gather
from axisops import topk as ax_topk

from .cases import Case

__all__ = ["Runner", "axisops_runner", "floor_runner", "numpy_topk", "peer_runners"]


@dataclass(frozen=True)
class Runner:
    """How one implementation runs one case."""

    name: str
    prepare: Callable[[np.ndarray, np.ndarray | None], Any]
    call: Callable[[Any], Any]


def _numpy_inputs(x: np.ndarray, index: np.ndarray | None) -> Any:
    return x, index


def axisops_runner(case: Case, backend: str | None = None) -> Runner:
    """axisops itself (the default backend unless one is named)."""
    if case.op == "gather":
        return Runner("axisops", _numpy_inputs,
                      lambda a: ax_gather(a[0], case.axis, a[1], backend=backend))
    return Runner("axisops", _numpy_inputs,
                  lambda a: ax_topk(a[0], case.k, case.axis, backend=backend))


def floor_runner(case: Case) -> Runner:
    """One read pass over the bytes the operation must read: ``np.max`` of their bits.

    For top-k that is the input; for gather, the index plus the elements the
    output holds (each read once).
    """

    def prepare(x: np.ndarray, index: np.ndarray | None) -> Any:
        if case.op == "gather":
            assert index is not None
            gathered = np.take_along_axis(x, index, case.axis) if x.ndim > 1 else x[index]
            return index.view(np.uint64), gathered.view(f"u{gathered.itemsize}")
        return (x.view(f"u{x.itemsize}"),)

    return Runner("floor", prepare, lambda a: [np.max(part) for part in a])


def numpy_topk(x: np.ndarray, k: int, axis: int) -> tuple[np.ndarray, np.ndarray]:
    n = x.shape[axis]
    if k < n:
        part = np.argpartition(x, n - k, axis=axis)
        idx = np.take(part, np.arange(n - k, n), axis=axis)
    else:
        idx = np.argsort(x, axis=axis)
    vals = np.take_along_axis(x, idx, axis)
    order = np.flip(np.argsort(vals, axis=axis), axis=axis)
    return np.take_along_axis(vals, order, axis), np.take_along_axis(idx, order, axis)


def _numpy(case: Case) -> Runner:
    if case.op == "gather":
        return Runner("numpy", _numpy_inputs,
                      lambda a: np.take_along_axis(a[0], a[1], case.axis))
    return Runner("numpy", _numpy_inputs, lambda a: numpy_topk(a[0], case.k, case.axis))


def _torch(case: Case, threads: int) -> Runner:
    import torch

    torch.set_num_threads(threads)

    def prepare(x: np.ndarray, index: np.ndarray | None) -> Any:
        return torch.from_numpy(x), None if index is None else torch.from_numpy(index)

    if case.op == "gather":
        return Runner("torch", prepare, lambda a: torch.gather(a[0], case.axis, a[1]))
    return Runner("torch", prepare, lambda a: torch.topk(a[0], case.k, dim=case.axis))


def _jax(case: Case) -> Runner:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    def prepare(x: np.ndarray, index: np.ndarray | None) -> Any:
        args = (x,) if index is None else (x, index)
        return tuple(jax.device_put(a).block_until_ready() for a in args)

    if case.op == "gather":
        fn = jax.jit(lambda x, i: jnp.take_along_axis(x, i, axis=case.axis))
    elif case.axis in (-1, len(case.shape) - 1):
        fn = jax.jit(lambda x: jax.lax.top_k(x, case.k))
    else:
        # lax.top_k works along the last axis only: move the axis there and back.
        def moved(x: Any) -> Any:
            v, i = jax.lax.top_k(jnp.moveaxis(x, case.axis, -1), case.k)
            return jnp.moveaxis(v, -1, case.axis), jnp.moveaxis(i, -1, case.axis)

        fn = jax.jit(moved)
    return Runner("jax", prepare, lambda a: jax.block_until_ready(fn(*a)))


def peer_runners(case: Case, threads: int, wanted: tuple[str, ...]) -> list[Runner]:
    """The peers in ``wanted`` that are installed here."""
    found: list[Runner] = []
    if "numpy" in wanted:
        found.append(_numpy(case))
    if "torch" in wanted and find_spec("torch") is not None:
        found.append(_torch(case, threads))
    if "jax" in wanted and find_spec("jax") is not None:
        found.append(_jax(case))
    return found
