"""First calls never wait for the compiler: the background compile and its cache.

Tests that need a cold kernel cache run in a subprocess with a NUMBA_CACHE_DIR of
their own; everything waits on events (a process ending, a file appearing), never
on time.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import axisops
from axisops import config
from axisops.kernels.numba import cache as numba_cache
from axisops.kernels.numba import jobs as numba_jobs

PATIENCE = 600  # seconds: generous bounds for compiles on a loaded 2-core machine


def _env(cache: Path, mode: str = "background") -> dict[str, str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "AXISOPS_COMPILE": mode}
    env.pop("AXISOPS_DEBUG", None)
    return env


def _python(code: str, cache: Path, mode: str = "background") -> dict:
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=_env(cache, mode), timeout=PATIENCE)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


FIRST_CALL = """
    import json, numpy as np, axisops
    from axisops.kernels.numba import cache as numba_cache
    x = np.random.default_rng(1).integers(0, 4, size=(50, 40)).astype(np.uint8)
    want = axisops.topk(x, 5, backend="numpy")
    got = axisops.topk(x, 5)
    first = numba_cache.stats()
    assert numba_cache.wait_for_worker({patience})
    again = axisops.topk(x, 5)
    after = numba_cache.stats()
    same = [bool(np.array_equal(a, b)) for r in (got, again) for a, b in zip(r, want)]
    import sys
    light = "numba.np.linalg" not in sys.modules  # loaded without Numba's compiler registries
    print(json.dumps({{"first": first, "after": after, "same": same, "light": light}}))
"""


def test_a_first_call_is_answered_while_its_kernel_compiles_elsewhere(tmp_path):
    rec = _python(FIRST_CALL.format(patience=PATIENCE), tmp_path / "cache")
    assert rec["same"] == [True] * 4
    assert rec["first"]["fallback_calls"] == 1 and rec["first"]["workers_started"] == 1
    # The second call loaded what the other process compiled, and did not fall back.
    assert rec["after"]["fallback_calls"] == 1 and rec["after"]["loaded"] == 1
    assert rec["after"]["workers_started"] == 1 and not rec["after"]["compiling"]
    # A new process finds the kernel cached and never falls back; it loads the machine
    # code alone, without importing what Numba needs to compile (0.4 s, SciPy among it).
    rec = _python(FIRST_CALL.format(patience=PATIENCE), tmp_path / "cache")
    assert rec["same"] == [True] * 4
    assert rec["first"]["fallback_calls"] == 0 and rec["first"]["workers_started"] == 0
    assert rec["first"]["loaded"] == 1 and rec["light"]


def test_sync_mode_compiles_in_the_call(tmp_path):
    rec = _python(FIRST_CALL.format(patience=PATIENCE), tmp_path / "cache", mode="sync")
    assert rec["same"] == [True] * 4
    assert rec["first"]["fallback_calls"] == 0 and rec["first"]["workers_started"] == 0


def _files(folder: Path) -> set[str]:
    return {p.name for p in folder.rglob("*") if p.is_file()}


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_compiler_killed_at_any_moment_leaves_no_broken_entry(tmp_path):
    cache = tmp_path / "cache"
    job = "topk:radix:uint8"
    proc = subprocess.Popen([sys.executable, "-m", "axisops.kernels.numba.compile", job],
                            env=_env(cache, "sync"), stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + PATIENCE
    # Kill it the moment its first cache file (a data file: they come first) appears.
    while not any(name.endswith(".nbc") for name in _files(cache)) and proc.poll() is None:
        assert time.monotonic() < deadline, "the compiler never wrote anything"
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    # Whatever it left, the next process either loads a complete entry or compiles anew.
    rec = _python("""
        import json, numpy as np, axisops
        from axisops.kernels.numba import driver as numba_driver
        from axisops.validation import ArrayMeta, topk_spec
        x = np.random.default_rng(2).integers(0, 3, size=(20, 300)).astype(np.int8)
        spec = topk_spec(ArrayMeta(x.shape, x.dtype), 40, -1, False, True, None)
        got = numba_driver.topk(x, spec, strategy="radix")
        want = axisops.topk(x, 40, largest=False, backend="numpy")
        print(json.dumps([bool(np.array_equal(a, b)) for a, b in zip(got, want)]))
    """, cache, mode="sync")
    assert rec == [True, True]


def test_a_save_cut_short_never_leaves_an_index_entry(tmp_path, monkeypatch):
    """The mechanism directly: the data file is written before the index, so a
    process dying between the two leaves no index entry (Numba's own order would)."""
    from numba.core.caching import IndexDataCacheFile

    safe = numba_cache._safe_class(IndexDataCacheFile)
    cache_file = safe(str(tmp_path), "kernel-1.py311", "stamp")

    def die(self, name, data):
        raise KeyboardInterrupt  # the process is stopped while writing the data

    monkeypatch.setattr(IndexDataCacheFile, "_save_data", die)
    with pytest.raises(KeyboardInterrupt):
        cache_file.save(("sig",), b"compiled code")
    assert cache_file._load_index() == {}
    monkeypatch.undo()
    cache_file.save(("sig",), b"compiled code")
    cache_file.save(("other",), b"more code")
    assert set(cache_file._load_index()) == {("sig",), ("other",)}
    assert cache_file.load(("sig",)) == b"compiled code"


def test_every_kernel_of_the_package_saves_safely():
    from axisops.kernels.numba import driver as numba_driver

    kernels = numba_cache.dispatchers_in(*numba_driver.KERNEL_MODULES)
    assert len(kernels) >= 6
    for kernel in kernels:
        assert type(kernel._cache._cache_file).__name__ == "SafeIndexDataCacheFile"


def test_background_compiling_that_keeps_failing_falls_back_to_compiling_here(monkeypatch):
    """A compiling process that cannot work here (it exits at once) is tried twice;
    then calls compile in place, with a warning, and stay exact."""
    monkeypatch.setattr(config, "_compile_mode", "background")
    monkeypatch.setattr(numba_cache, "_ready", set())
    monkeypatch.setattr(numba_cache, "_attempts", {})
    monkeypatch.setattr(numba_cache, "_pending", set())
    monkeypatch.setattr(numba_cache, "_given_up", False)
    monkeypatch.setattr(numba_cache, "_worker", None)
    monkeypatch.setattr(numba_cache, "_load", lambda dispatcher, args: False)
    broken = [sys.executable, "-c", "raise SystemExit(3)"]
    monkeypatch.setattr(numba_cache, "_spawn", lambda jobs: subprocess.Popen(broken))
    x = np.arange(30, dtype=np.float32)[::-1].copy()
    want = axisops.topk(x, 4, backend="numpy")
    fallbacks = numba_cache.stats()["fallback_calls"]
    for _ in range(2):  # two attempts, each answered by the fallback
        got = axisops.topk(x, 4)
        assert all(np.array_equal(a, b) for a, b in zip(got, want))
        assert numba_cache.wait_for_worker(PATIENCE)
    assert numba_cache.stats()["fallback_calls"] == fallbacks + 2
    with pytest.warns(RuntimeWarning, match="background"):
        got = axisops.topk(x, 4)
    assert all(np.array_equal(a, b) for a, b in zip(got, want))
    assert numba_cache.stats()["fallback_calls"] == fallbacks + 2


def test_sync_mode_never_falls_back(monkeypatch):
    monkeypatch.setattr(config, "_compile_mode", "sync")
    before = numba_cache.stats()["fallback_calls"]
    x = np.random.default_rng(3).random((30, 70))
    got = axisops.topk(x, 3, axis=0)
    want = axisops.topk(x, 3, axis=0, backend="numpy")
    assert all(np.array_equal(a, b) for a, b in zip(got, want))
    assert numba_cache.stats()["fallback_calls"] == before


@pytest.mark.parametrize("mode", ["eager", "", None, 1, "SYNC"])
def test_set_compile_mode_refuses_other_values(mode):
    before = config.get_compile_mode()
    with pytest.raises(axisops.InvalidArgumentError, match=r"set_compile_mode.*mode="):
        config.set_compile_mode(mode)
    assert config.get_compile_mode() == before


def test_jobs_name_every_kernel_a_call_can_need():
    jobs = numba_jobs.all_jobs()
    assert len(jobs) == len(set(jobs))
    strategies = {job.split(":")[1] for job in jobs if job.startswith("topk:")}
    from axisops.kernels.numba.driver import STRATEGIES

    assert strategies == set(STRATEGIES)
    for job in jobs:
        launches = numba_jobs.launches(job)  # found without compiling
        assert launches and all(callable(kernel) for kernel, _ in launches)
    assert numba_jobs.jobs_for(["bfloat16"]) == numba_jobs.jobs_for(["int16"])
