"""Every kernel family at the instruction-set level in use, as one digest (run by
.ci/levels natively at each level, and under QEMU's user-mode emulation of CPUs that lack
the wider levels' instructions: there the module must choose the level the CPU has, run
every path without an illegal instruction, and give the same digest).

    python levels_script.py [LEVEL]      # prints "LEVEL DIGEST"
"""

from __future__ import annotations

import hashlib
import sys

import numpy as np

import axisops
from axisops import _core
from axisops.engines import cpu
from axisops.validation import ArrayMeta, topk_spec
from test_core_paths import DTYPES, SMALL


def _arrays():
    rng = np.random.default_rng(11)
    for dtype in DTYPES:
        for shape, kind in (((40, 300), "random"), ((1, 3000), "few"), ((300, 40), "random")):
            raw = rng.integers(0, 3 if kind == "few" else 1 << 12, shape)
            if dtype.kind in "iub":
                yield raw.astype(dtype)
            else:
                yield raw.astype(np.float32).astype(dtype)


def _calls(x: np.ndarray):
    n = x.shape[-1]
    for axis in (0, 1):
        for k in sorted({1, min(x.shape[axis], 5), min(x.shape[axis], 40)}):
            for largest in (True, False):
                spec = topk_spec(ArrayMeta(x.shape, x.dtype), k, axis, largest, True, None)
                for strategy in cpu.STRATEGIES:
                    yield cpu.topk(x, spec, strategy=strategy)
    for descending in (False, True):
        yield axisops.sort(x, descending=descending)
        yield axisops.argsort(x, axis=0, descending=descending)
    yield axisops.kthvalue(x, n // 2 + 1)
    yield axisops.median(x, axis=0)
    yield axisops.argpartition(x, [0, n // 3, n - 1])
    yield axisops.partition(x, n // 2)
    yield cpu.kth_many(x, 1, np.array([0, 1, n // 3, n // 3 + 1, n - 1]), strategy="split")
    index = np.random.default_rng(2).integers(-n, n, (x.shape[0], 50))
    yield axisops.gather(x, 1, index)


def digest() -> str:
    h = hashlib.sha256()
    for tuning in ({}, SMALL):
        with _core.tuned(**tuning):
            for threads in (1, 2):
                axisops.set_num_threads(threads)
                for x in _arrays():
                    for result in _calls(x):
                        for part in (result if isinstance(result, tuple) else (result,)):
                            h.update(np.ascontiguousarray(part).tobytes())
    return h.hexdigest()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        _core.kernels._use_level(sys.argv[1])
    print(_core.kernels.level(), digest(), flush=True)
