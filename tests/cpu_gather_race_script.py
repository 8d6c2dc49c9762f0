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
import threading

import numpy as np

import axisops
from axisops.engines import cpu
from axisops.errors import IndexOutOfRangeError
from axisops.validation import ArrayMeta, gather_spec
from gather_race_script import _cases, _check, _invalid, _mutate

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
    rng = np.random.default_rng(17)
    counts = []
    for name, x, dim, a, b, bad in _more_cases(rng):
        spec = gather_spec(ArrayMeta(x.shape, x.dtype), dim, ArrayMeta(a.shape, a.dtype))
        want_a = axisops.gather(x, dim, a, backend="numpy")
        want_b = axisops.gather(x, dim, b, backend="numpy")
        index = a.copy(order="K")
        stop = threading.Event()
        mutator = threading.Thread(target=_mutate, args=(index, (a, b), bad, stop, 1),
                                   daemon=True)
        mutator.start()
        returned = refused = torn = 0
        try:
            for _ in range(iterations):
                call = next(calls)
                try:
                    if call % 3 == 2:
                        got = axisops.gather(x, dim, index, backend="cpu")
                    else:
                        got = cpu.gather(x, index, spec, task=TASK if call % 3 else None)
                except IndexOutOfRangeError:
                    refused += 1
                    continue
                torn += _check(name, x, dim, got, (want_a, want_b), (a, b, bad))
                returned += 1
        finally:
            stop.set()
            mutator.join()
        counts.append(f"{name}={returned}/{refused}" + (f" torn={torn}" if torn else ""))
    return " ".join(counts)


def _alternate_prefetching() -> None:
    """Every other gather prefetches, whatever the size of ``x`` against the caches."""
    calls = itertools.count()
    cpu.gather_prefetch_distance = lambda x_bytes: cpu.PREFETCH_DISTANCE * (next(calls) % 2)


if __name__ == "__main__":
    rounds = int(sys.argv[1])
    _alternate_prefetching()
    for threads in sys.argv[2:]:
        print(f"threads={threads}", run(rounds, int(threads)), flush=True)
