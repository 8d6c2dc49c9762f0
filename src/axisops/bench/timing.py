"""Timing: warm-up, rotating input copies, median of repeats, in one process.

Every implementation of a case runs on the same copies of the same input.
The copies rotate from one call to the next, and together they are larger
than the last-level cache, so no call is served from the cache the previous
call filled.  Each implementation runs all its calls (warm-up, then the timed
ones) before the next starts: interleaving them was tried and measured
wrong, because torch's OpenMP threads and JAX's pool keep spinning for a
while after each call and took a core from whatever ran next (axisops' full
sort measured 5x slower that way on 2 cores).  For the same reason each
implementation starts after a pause of :data:`IDLE_SECONDS`: the peers of the
previous case (ONNX Runtime's spinning intra-op threads above all) would
otherwise still hold a core while the next case's first implementation runs
(the MoE router (8192, 64) measured 0.67-0.70 ms for axisops in a full run and
0.44 ms alone).

The pause has a cost of its own: a virtual CPU left idle for a quarter of a
second comes back slow, and stays slow for tens of milliseconds (its clock and
the host's scheduling ramp up again).  So after the pause each implementation
warms up by calling itself for at least :data:`WARM_SECONDS` (and at least
once per copy) before its timed calls.  Measured on the 2-vCPU VM, MoE
(8192, 64) k=2, the 12 calls after a 0.25 s pause: 0.55-0.90 ms with the old
warm-up of one call per copy, 0.35-0.50 ms after 0.2 s of calls, 0.29-0.33 ms
after 0.5 s, the same as back-to-back calls with no pause at all.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

import numpy as np

from .cases import Case, make_index, make_input
from .peers import Runner

__all__ = ["CaseTimes", "time_case"]

#: rotate through at least this many input bytes (well above a server's L3).
ROTATION_BYTES = 256 * 1024 * 1024
#: idle time before each implementation, for the previous one's threads to stop spinning.
IDLE_SECONDS = 0.25
#: least wall time of warm-up calls after the pause (see the module docstring).
WARM_SECONDS = 0.5


@dataclass
class CaseTimes:
    """Median seconds per implementation for one case, and what was checked."""

    case: Case
    seconds: dict[str, float] = field(default_factory=dict)
    samples: dict[str, list[float]] = field(default_factory=dict)
    copies: int = 1


def _copies(case: Case, max_copies: int) -> int:
    per_copy = case.nbytes + (int(np.prod(case.index_shape)) * 8 if case.op == "gather" else 0)
    return max(2, min(max_copies, -(-ROTATION_BYTES // max(per_copy, 1))))


def time_case(case: Case, runners: list[Runner], repeats: int, max_copies: int = 4,
              seed: int = 0, idle: float = IDLE_SECONDS, warm: float = WARM_SECONDS
              ) -> CaseTimes:
    """Median wall time of every runner on ``case``, each after ``idle`` seconds of
    pause and then at least ``warm`` seconds of untimed calls (at least one per copy)."""
    copies = _copies(case, max_copies)
    raw = [(make_input(case, seed + c),
            make_index(case, seed + c) if case.op == "gather" else None) for c in range(copies)]
    out = CaseTimes(case, copies=copies)
    for r in runners:
        prepared = [r.prepare(x, i) for x, i in raw]
        time.sleep(idle)
        _warm_up(r, prepared, warm)
        samples = []
        for rep in range(repeats):
            t0 = time.perf_counter()
            r.call(prepared[rep % copies])
            samples.append(time.perf_counter() - t0)
        out.samples[r.name] = samples
        del prepared
    out.seconds = {name: statistics.median(s) for name, s in out.samples.items()}
    return out


def _warm_up(runner: Runner, prepared: list, seconds: float) -> None:
    """Untimed calls, one per copy and then round again until ``seconds`` have passed:
    compilation, page faults, thread pools, and a CPU back at speed after the pause."""
    start, calls = time.perf_counter(), 0
    while calls < len(prepared) or time.perf_counter() - start < seconds:
        runner.call(prepared[calls % len(prepared)])
        calls += 1
