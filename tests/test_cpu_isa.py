"""The compiled core's instruction-set levels: every level this machine runs gives the same
bits for every strategy, dtype and layout; ``AXISOPS_ISA`` chooses a level or warns."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import axisops
from axisops import _core
from axisops.engines import cpu
from axisops.validation import ArrayMeta, gather_spec, topk_spec

LEVELS = _core.available_levels()


def _inputs():
    rng = np.random.default_rng(34)
    ties = rng.integers(-4, 4, (64, 3000)).astype(np.float32)
    ties[rng.random(ties.shape) < 0.02] = np.nan
    ties[rng.random(ties.shape) < 0.02] = -0.0
    wide = rng.integers(-(2**63), 2**63 - 1, (40, 700), dtype=np.int64)
    wide[:, ::7] = np.iinfo(np.int64).min
    half = rng.standard_normal((3000, 48)).astype(np.float16)
    flags = rng.random((20, 5000)) < 0.5
    long_row = rng.integers(0, 50, (1, 300000)).astype(np.uint16)
    return [
        (ties, 1, (1, 7, 100)), (ties.T, 0, (5,)), (ties[:, ::-3], 1, (9,)),
        (wide, 1, (1, 33, 700)), (half, 0, (3, 20)), (np.asfortranarray(half), 1, (4, 48)),
        (flags, 1, (2, 64)), (long_row, 1, (10, 1000)),
    ]


def _run_everything() -> bytes:
    """Every top-k strategy and a gather of each input, as one byte string."""
    out = []
    for x, axis, ks in _inputs():
        for k in ks:
            for largest in (True, False):
                spec = topk_spec(ArrayMeta(x.shape, x.dtype), k, axis, largest, True, None)
                for strategy in cpu.STRATEGIES:
                    values, indices = cpu.topk(x, spec, strategy=strategy)
                    out += [values.tobytes(), indices.tobytes()]
        index = np.random.default_rng(1).integers(-x.shape[axis], x.shape[axis],
                                                  size=x.shape[:axis] + (50,) + x.shape[axis + 1:])
        spec = gather_spec(ArrayMeta(x.shape, x.dtype), axis, ArrayMeta(index.shape, index.dtype))
        out.append(cpu.gather(x, index, spec).tobytes())
    return b"".join(out)


@pytest.mark.skipif(len(LEVELS) < 2, reason="this CPU runs one instruction-set level only")
def test_every_level_gives_the_same_bits():
    results = {}
    for level in LEVELS:
        with _core.level(level):
            results[level] = _run_everything()
    first = results[LEVELS[0]]
    assert all(r == first for r in results.values()), [lv for lv in LEVELS
                                                      if results[lv] != first]


def test_the_levels_agree_with_the_oracle_where_it_counts():
    x, axis, _ = _inputs()[0]
    got = axisops.topk(x, 7, axis)
    want = axisops.topk(x, 7, axis, backend="numpy")
    assert got.values.tobytes() == want.values.tobytes()
    assert np.array_equal(got.indices, want.indices)


def _info(env_isa: str) -> tuple[dict, str]:
    code = ("import json, axisops.cli.info as i; print(json.dumps(i.collect()['kernels']))")
    env = {**os.environ, "AXISOPS_ISA": env_isa}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True)
    return json.loads(done.stdout), done.stderr


@pytest.mark.parametrize("level", LEVELS)
def test_axisops_isa_forces_a_level(level):
    kernels, stderr = _info(level)
    assert kernels["isa"] == level and "Warning" not in stderr
    assert kernels["isa_available"] == LEVELS


@pytest.mark.parametrize("value, why", [("avx1024", "is not a level"),
                                        ("sse9", "is not a level")])
def test_an_unknown_level_is_refused_with_a_warning(value, why):
    kernels, stderr = _info(value)
    assert kernels["isa"] == LEVELS[-1]  # the best one this machine runs
    assert f"AXISOPS_ISA={value!r} {why}" in stderr and "RuntimeWarning" in stderr

