"""axisops across fork and in multiprocessing pools (run by test_concurrency.py).

    python fork_script.py STEP...

Steps: ``fork`` (use the pool, os.fork(), use it again in the child) and
``pool:METHOD`` (a multiprocessing Pool with the "fork" or "spawn" start
method).  Each step prints "ok STEP" when every result equals the NumPy
backend's and the parallel path really ran; a hang is caught by the caller's
timeout, and the steps printed so far say where.
"""

from __future__ import annotations

import multiprocessing
import os
import sys

import numpy as np

import axisops

THREADS = 4


def inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    x = rng.integers(-50, 50, size=(64, 2048)).astype(np.float32)  # ties everywhere
    return x, rng.integers(-2048, 2048, size=(64, 1024))


def pool_threads() -> int:
    """Worker threads the compiled core's pool has started in this process."""
    from axisops import _core

    return _core.kernels.pool_workers()


def work(seed: int) -> tuple[bool, int]:
    """Top-k and gather on the parallel path: (all equal to the oracle, pool threads)."""
    x, idx = inputs()
    x = np.roll(x, seed, axis=1)
    got, want = axisops.topk(x, 5), axisops.topk(x, 5, backend="numpy")
    same = (np.array_equal(got.values, want.values)
            and np.array_equal(got.indices, want.indices)
            and np.array_equal(axisops.gather(x, 1, idx), axisops.gather(x, 1, idx,
                                                                        backend="numpy")))
    return same, pool_threads()


def after_fork() -> None:
    axisops.set_num_threads(THREADS)
    same, threads = work(0)
    assert same and threads > 0, (same, threads)  # the parent's pool is in use
    pid = os.fork()
    if pid == 0:
        same, threads = work(1)
        os._exit(0 if same and threads > 0 else 3)  # a fresh pool of the child's own
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, status
    assert work(2)[0]  # and the parent's pool still works
    print("ok fork", flush=True)


def in_pool(method: str) -> None:
    axisops.set_num_threads(THREADS)
    assert work(0)[0]  # the parent has used its pool before the workers start
    context = multiprocessing.get_context(method)
    with context.Pool(2, initializer=axisops.set_num_threads, initargs=(THREADS,)) as pool:
        results = pool.map(work, range(6), chunksize=1)
    assert all(same and threads > 0 for same, threads in results), results
    print(f"ok pool:{method}", flush=True)


if __name__ == "__main__":
    for step in sys.argv[1:]:
        if step == "fork":
            after_fork()
        else:
            in_pool(step.partition(":")[2])
