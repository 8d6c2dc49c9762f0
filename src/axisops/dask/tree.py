"""Tree reductions inside a task graph, and the graph plumbing both ops share.

A tree reduction merges an ordered list of task keys ``split_every`` at a
time, keeping their order, until one key is left.  The merge function gets the
partial results as positional arguments, in order, so an order-sensitive merge
(top-k ties go to the lower index) stays exact for every fan-in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import dask
from dask.highlevelgraph import HighLevelGraph
from dask.task_spec import Task, TaskRef

from ..rules.arguments import as_fan_in

__all__ = ["graph_with", "resolve_split_every", "tree_reduce"]

#: Dask's own default fan-in for reductions.
DEFAULT_SPLIT_EVERY = 4


def resolve_split_every(value: Any, axis: int) -> int:
    """The fan-in of a tree reduction along ``axis``.

    ``value`` is an explicit argument, or ``None`` for dask's ``split_every``
    setting (an int, or a dict keyed by axis, as dask's reductions take it),
    or dask's default of 4 when that is unset.

    >>> resolve_split_every(None, 0)
    4
    >>> resolve_split_every({1: 8}, 1)
    8
    """
    source = "split_every"
    if value is None:
        value = dask.config.get("split_every", None)
        source = "dask config split_every"
    if value is None:
        return DEFAULT_SPLIT_EVERY
    if isinstance(value, Mapping):
        value = value.get(axis, DEFAULT_SPLIT_EVERY)
    return as_fan_in(value, axis, source)


def tree_reduce(
    layer: dict[Any, Task],
    leaves: list[Any],
    merge: Callable[..., Any],
    split_every: int,
    name: str,
    where: tuple[int, ...],
    *args: Any,
) -> Any:
    """Add merge tasks to ``layer`` reducing ``leaves`` in order; the final key.

    Merge tasks are keyed ``(name, level, *where, group)``;
    ``merge(*args, *partials)`` receives each group's results in order.
    """
    level = 0
    keys = list(leaves)
    while len(keys) > 1:
        level += 1
        merged = []
        for group, start in enumerate(range(0, len(keys), split_every)):
            chunk = keys[start : start + split_every]
            if len(chunk) == 1:
                merged.append(chunk[0])
                continue
            key = (name, level, *where, group)
            layer[key] = Task(key, merge, *args, *(TaskRef(k) for k in chunk))
            merged.append(key)
        keys = merged
    return keys[0]


def graph_with(
    inputs: Sequence[Any], work_name: str, work: dict, outputs: dict[str, dict]
) -> HighLevelGraph:
    """The graphs of ``inputs`` plus a work layer and output layers that read it.

    ``work`` holds the tasks that read blocks of ``inputs`` (dask collections);
    each output layer holds tasks that read only ``work``.
    """
    base = HighLevelGraph.merge(*(c.__dask_graph__() for c in inputs))
    layers = {**base.layers, work_name: work, **outputs}
    dependencies = {**base.dependencies}
    dependencies[work_name] = {name for c in inputs for name in c.__dask_layers__()}
    dependencies.update({name: {work_name} for name in outputs})
    return HighLevelGraph(layers, dependencies)
