"""The compiled core's gather while another thread rewrites the index (run as a script by
test_cpu_gather.py).

The same race as ``gather_race_script.py`` (its cases, writer and checks: every call
returns, element by element, what index state A or B would give, or a torn read of the
index honoured at its own place, or raises IndexOutOfRangeError), on the "cpu" backend,
with more index types, the output cut into small tasks at odd places, and every other
call prefetching whatever the size of ``x``, so both kernel paths run.

    python cpu_gather_race_script.py ROUNDS THREADS [THREADS ...]
"""

from __future__ import annotations

import itertools
import sys

import numpy as np

import axisops
from axisops.engines import cpu
from axisops.validation import ArrayMeta, gather_spec
from gather_race_script import _alternate_prefetching, _cases, _invalid, race

#: output elements per task: odd, so tasks start inside blocks and rows.
TASK = 3001


def _more_cases(rng):
    """The race script's cases, plus narrow and unsigned index types and an index read
    along an inner dimension of a 3-D x (the block path's columns)."""
    yield from _cases(rng)
    x2 = np.arange(64 * 1000, dtype=np.int64).reshape(64, 1000)
    x3 = np.arange(6 * 500 * 8, dtype=np.int64).reshape(6, 500, 8)
    for name, x, dim, shape, dtype, layout in (
        ("uint16", x2, 1, (64, 4096), np.uint16, "C"),
        ("int16-F", x2, 1, (64, 4096), np.int16, "F"),
        ("uint32-columns", x2, 0, (256, 1000), np.uint32, "C"),
        ("3-D", x3, 1, (6, 2000, 8), np.int64, "F"),
    ):
        n = x.shape[dim]
        low = 0 if np.iinfo(dtype).min == 0 else -n
        a, b = (rng.integers(low, n, size=shape).astype(dtype) for _ in range(2))
        bad = _invalid(rng, n, dtype, shape) if dtype != np.int16 else rng.choice(
            np.array([n, n + 1, -n - 1, 32767, -32768], dtype), size=shape)
        if layout == "F":
            a, b, bad = (np.asfortranarray(v) for v in (a, b, bad))
        yield name, x, dim, a, b, bad


def run(iterations: int, threads: int) -> str:
    """Every case with ``threads`` kernel threads; a line of ``case=returned/refused``
    (and ``torn=`` when elements were gathered with a torn index value)."""
    axisops.set_num_threads(threads)
    calls = itertools.count()

    def caller(x, dim, a):
        spec = gather_spec(ArrayMeta(x.shape, x.dtype), dim, ArrayMeta(a.shape, a.dtype))

        def call(index):
            n = next(calls)
            if n % 3 == 2:
                return axisops.gather(x, dim, index, backend="cpu")
            return cpu.gather(x, index, spec, task=TASK if n % 3 else None)
        return call

    return race(_more_cases(np.random.default_rng(17)), iterations, caller)


if __name__ == "__main__":
    rounds = int(sys.argv[1])
    _alternate_prefetching()
    for threads in sys.argv[2:]:
        print(f"threads={threads}", run(rounds, int(threads)), flush=True)
