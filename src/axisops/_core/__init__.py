"""The compiled CPU core: the kernel module of the best instruction-set level this CPU runs.

The same C++ sources are built once per level into ``_baseline`` (x86-64-v2, or the
architecture's own baseline such as aarch64 with NEON), ``_avx2`` (x86-64-v3) and
``_avx512`` (x86-64-v4).  Every level gives the same bits; only speed differs.  The
highest level that was built and that this CPU and its OS can run is chosen when this
module is first imported, unless ``AXISOPS_ISA`` names one (``baseline``, ``avx2`` or
``avx512``): a level this machine cannot run, or that was not built, is refused with a
warning and the best available one is used instead.

>>> from axisops import _core
>>> _core.LEVEL in _core.available_levels()
True
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import import_module
from importlib.util import find_spec
from types import ModuleType

__all__ = ["LEVEL", "LEVELS", "available_levels", "kernels", "load", "paths_taken", "tuned"]

#: every level, lowest first.
LEVELS = ("baseline", "avx2", "avx512")


def load(level: str) -> ModuleType:
    """The kernel module of ``level`` (it must be built, and runnable on this CPU)."""
    return import_module(f"{__name__}._{level}")


def _built() -> list[str]:
    return [level for level in LEVELS if find_spec(f"{__name__}._{level}") is not None]


def available_levels() -> list[str]:
    """The levels that are built and that this CPU (and its OS) can run, lowest first."""
    built = _built()
    if not built:
        raise ImportError("axisops was installed without its compiled core "
                          "(reinstall it: pip install --force-reinstall axisops)")
    runnable = set(load(built[0]).cpu_levels())  # every level's module can tell
    return [level for level in built if level in runnable]


def _choose() -> str:
    available = available_levels()
    best = available[-1]
    forced = os.environ.get("AXISOPS_ISA", "").strip().lower()
    if not forced:
        return best
    if forced in available:
        return forced
    why = ("is not a level" if forced not in LEVELS
           else "is not built into this install" if forced not in _built()
           else "is not supported by this CPU")
    warnings.warn(
        f"AXISOPS_ISA={forced!r} {why} (available here: {', '.join(available)}); "
        f"using {best!r}", RuntimeWarning, stacklevel=3)
    return best


#: the level in use.
LEVEL = _choose()
#: the kernel module in use.
kernels = load(LEVEL)


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
    ...     _ = axisops.sort(np.arange(10, dtype=np.int32))
    >>> sorted(paths)
    ['sort_rows_words']
    """
    kernels._reset_paths()
    taken: set[str] = set()
    try:
        yield taken
    finally:
        taken.update(kernels._paths())
