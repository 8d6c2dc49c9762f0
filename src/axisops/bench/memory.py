"""Peak extra memory of one top-k call, measured in a fresh subprocess.

The child builds the input, runs the implementation once on a small slice of
it that takes the same code path (so that each library's start-up, its lazy
imports, a JIT peer's compilation and first allocations, are not counted),
records its peak resident set size, runs the call on the big input, and
reports how far the peak grew.  Growth includes the outputs; the report also gives their size so
the temporaries can be read off.

The peak is the kernel's high-water mark of the process's own address space
(``VmHWM`` in ``/proc/self/status``; it counts mapped file pages too).  Not
``ru_maxrss``: Linux carries the parent's peak into a child across ``exec``,
so a child of a big process reports the parent's peak, not its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

__all__ = ["measure", "peak_growth", "peak_rss_mb", "reset_peak_rss"]


def peak_rss_mb() -> float:
    """This process's peak resident memory in MiB (``VmHWM``; ``ru_maxrss`` elsewhere)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak_rss() -> bool:
    """Lower this process's peak RSS mark to its current RSS (Linux >= 4.0); True if done.

    Without it, a peak reached before the measured call (a compilation, say)
    would hide whatever the call itself allocates.
    """
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


_CHILD = r"""
import json, sys
import numpy as np
from axisops.bench.memory import peak_rss_mb, reset_peak_rss
impl, rows, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
x = np.random.default_rng(0).standard_normal((rows, n), dtype=np.float32)
if impl == "axisops":
    import axisops
    run = lambda a: axisops.topk(a, k)
elif impl == "numpy":
    from axisops.bench.peers import numpy_topk
    run = lambda a: numpy_topk(a, k, -1)
elif impl == "torch":
    import torch
    run = lambda a: torch.topk(torch.from_numpy(a), k)
run(x[: min(rows, 4), : min(n, 1 << 18)])  # same kernels as the big call, compiled now
reset_peak_rss()
before = peak_rss_mb()
out = run(x)
after = peak_rss_mb()
print(json.dumps({"growth_mib": after - before}))
"""


def peak_growth(impl: str, rows: int, n: int, k: int) -> dict[str, Any]:
    """Peak RSS growth (MB) of ``impl``'s top-k of a float32 ``(rows, n)`` array."""
    proc = subprocess.run([sys.executable, "-c", _CHILD, impl, str(rows), str(n), str(k)],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return {"impl": impl, "error": proc.stderr.strip().splitlines()[-1:]}
    growth_mb = json.loads(proc.stdout.strip().splitlines()[-1])["growth_mib"] * 2**20 / 1e6
    input_mb = rows * n * 4 / 1e6
    output_mb = rows * k * (4 + 8) / 1e6
    return {"impl": impl, "shape": [rows, n], "k": k, "input_mb": round(input_mb, 1),
            "output_mb": round(output_mb, 2), "peak_growth_mb": round(growth_mb, 1),
            "growth_per_input": round(growth_mb / input_mb, 3)}


def measure(impls: tuple[str, ...], shapes: tuple[tuple[int, int, int], ...]) -> list[dict]:
    """:func:`peak_growth` for every implementation and ``(rows, n, k)``."""
    return [peak_growth(impl, rows, n, k) for rows, n, k in shapes for impl in impls]
