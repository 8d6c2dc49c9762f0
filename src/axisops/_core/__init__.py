"""The compiled CPU core: one extension module, its hot kernels built once per
instruction-set level.

``_kernels`` holds the kernels of every level built (``baseline``: x86-64-v2 or the
architecture's own baseline such as aarch64 with NEON; ``avx2``: x86-64-v3; ``avx512``:
x86-64-v4), each level's in a table of its own; every call goes through the table of the
level in use. That is the highest level built that this CPU and its OS can run, unless
``AXISOPS_ISA`` names one (``baseline``, ``avx2`` or ``avx512``): a level this machine
cannot run, or that was not built, is refused with a warning and the best available one is
used instead. Every level gives the same bits; only speed differs.

>>> from axisops import _core
>>> _core.LEVEL in _core.available_levels()
True
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from . import _kernels as kernels

__all__ = ["LEVEL", "LEVELS", "available_levels", "kernels", "level", "paths_taken", "tuned"]

#: every level, lowest first.
LEVELS = ("baseline", "avx2", "avx512")


def available_levels() -> list[str]:
    """The levels that are built and that this CPU (and its OS) can run, lowest first."""
    runnable = set(kernels.cpu_levels())
    return [name for name in kernels.built_levels() if name in runnable]


def _choose() -> str:
    available = available_levels()
    best = available[-1]
    forced = os.environ.get("AXISOPS_ISA", "").strip().lower()
    if not forced:
        return best
    if forced in available:
        return forced
    why = ("is not a level" if forced not in LEVELS
           else "is not built into this install" if forced not in kernels.built_levels()
           else "is not supported by this CPU")
    warnings.warn(
        f"AXISOPS_ISA={forced!r} {why} (available here: {', '.join(available)}); "
        f"using {best!r}", RuntimeWarning, stacklevel=3)
    return best


#: the level in use (chosen when the module is first imported).
LEVEL = _choose()
kernels._use_level(LEVEL)


@contextmanager
def level(name: str) -> Iterator[str]:
    """Runs the block with the kernels of level ``name`` (a test hook: the level is the
    process's, so not for concurrent use).

    >>> import numpy as np, axisops
    >>> with level(available_levels()[0]):
    ...     axisops.sort(np.array([3, 1, 2])).tolist()
    [1, 2, 3]
    """
    before = kernels._use_level(name)
    try:
        yield name
    finally:
        kernels._use_level(before)


@contextmanager
def tuned(**fields: int) -> Iterator[dict[str, int]]:
    """Runs the block with the core's size switches ``fields`` changed (a test hook).

    Every size switch of the core (where a sequence is cut across threads, how long a
    part, a chunk or a segment is, how many candidates fit before another route takes
    over) is a field of its tuning; shrinking them lets inputs of a few hundred elements
    take the paths that otherwise only inputs of millions reach. Results never depend on
    the tuning; only the time does. Yields the tuning in force; the previous one is back
    afterwards. Not for concurrent use (the tuning is the process's).

    >>> import numpy as np, axisops
    >>> with tuned(select_split_min=64, select_part=32) as tuning:
    ...     tuning["select_part"]
    ...     int(axisops.kthvalue(np.arange(100.0), 7).values)
    32
    6
    """
    before = kernels._set_tuning(fields)
    try:
        yield kernels._tuning()
    finally:
        kernels._set_tuning(before)


@contextmanager
def paths_taken() -> Iterator[set[str]]:
    """Collects the names of the strategies and paths the core's calls in the block took
    (see ``kernels.PATHS``; a test hook, for one thread at a time).

    >>> import numpy as np, axisops
    >>> with paths_taken() as paths:
    ...     _ = axisops.sort(np.arange(10, dtype=np.float16))
    >>> sorted(paths)
    ['sort_rows_bare']
    """
    kernels._reset_paths()
    taken: set[str] = set()
    try:
        yield taken
    finally:
        taken.update(kernels._paths())
