"""The thread pool under fork, multiprocessing and concurrent resizing; the thread bound."""

from __future__ import annotations

import os
import re
import threading
import warnings
from itertools import pairwise
from unittest import mock

import numpy as np
import pytest

import axisops
from axisops import config
from axisops.kernels import threads
from axisops.kernels.numba import driver as drv
from axisops.validation import ArrayMeta, topk_spec
from subprocess_helpers import run_python


@pytest.fixture
def restore_threads():
    old = axisops.get_num_threads()
    yield
    axisops.set_num_threads(old)


# --- fork and multiprocessing -------------------------------------------------------------

@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_fork_and_multiprocessing_pools_after_use():
    """After the pool has run: os.fork() and a call in the child, then multiprocessing
    Pools with the fork and the spawn start methods.  In a subprocess whose whole
    process group is killed after the timeout, so a hang fails instead of blocking."""
    done = run_python(["fork_script.py", "fork", "pool:fork", "pool:spawn"], timeout=180)
    assert done.returncode == 0, done.explain()
    assert done.stdout.split("\n")[:3] == ["ok fork", "ok pool:fork", "ok pool:spawn"], \
        done.explain()


# --- resizing while other threads compute ---------------------------------------------------

def test_a_borrowed_pool_survives_a_resize(restore_threads):
    axisops.set_num_threads(3)
    pool = threads._borrow(3)  # as a call in flight on another thread holds it
    try:
        axisops.set_num_threads(2)
        assert threads.run_parallel(lambda a: 2 * a, [(1,), (2,), (3,)]) == [2, 4, 6]
        assert threads._current is not pool
        assert pool.executor.submit(lambda: 5).result() == 5
    finally:
        threads._give_back(pool)
    with pytest.raises(RuntimeError, match="after shutdown"):  # retired once given back
        pool.executor.submit(lambda: 5)


def test_run_parallel_raises_only_after_every_task_finished(restore_threads):
    axisops.set_num_threads(2)
    finished = []
    release = threading.Event()

    def task(i):
        if i == 0:
            release.set()
            raise ValueError("task 0")
        assert release.wait(60)
        finished.append(i)

    with pytest.raises(ValueError, match="task 0"):
        threads.run_parallel(task, [(0,), (1,)])
    assert finished == [1]


def test_the_calling_thread_runs_the_first_task_and_the_pool_the_others(restore_threads):
    axisops.set_num_threads(3)
    ran = threads.run_parallel(lambda i: (i, threading.get_ident()), [(0,), (1,), (2,)])
    assert [i for i, _ in ran] == [0, 1, 2]
    assert ran[0][1] == threading.get_ident()
    assert threading.get_ident() not in {ident for _, ident in ran[1:]}


def test_the_first_error_in_task_order_is_raised(restore_threads):
    axisops.set_num_threads(2)
    later_failed = threading.Event()

    def task(i):
        if i == 1:
            later_failed.set()
            raise ValueError("task 1")
        assert later_failed.wait(60)  # task 0 fails after task 1 has
        raise ValueError("task 0")

    with pytest.raises(ValueError, match="task 0"):
        threads.run_parallel(task, [(0,), (1,)])
    with pytest.raises(ValueError, match="task 1"):  # the first task succeeded
        threads.run_parallel(_fail_on(1), [(0,), (1,), (2,)])


def _fail_on(bad):
    def task(i):
        if i == bad:
            raise ValueError(f"task {i}")
        return i
    return task


def _hammer_cases():
    rng = np.random.default_rng(21)
    ties = rng.integers(-20, 20, size=(24, 200)).astype(np.float64)
    ties[rng.random(ties.shape) < 0.05] = np.nan
    long_row = rng.integers(-(2**62), 2**62, size=(1, 3000), dtype=np.int64)
    idx = rng.integers(-200, 200, size=(24, 300))
    cases = []
    for x, k, axis in ((ties, 7, 1), (ties, 5, 0), (long_row, 40, 1)):
        cases.append(("topk", (x, k, axis), axisops.topk(x, k, axis, backend="numpy")))
    cases.append(("gather", (ties, 1, idx), axisops.gather(ties, 1, idx, backend="numpy")))
    cases.append(("gather", (ties.T, 0, idx.T), axisops.gather(ties.T, 0, idx.T,
                                                                 backend="numpy")))
    return cases


def _same(got, want):
    if isinstance(want, tuple):
        return (np.array_equal(got.values, want.values, equal_nan=True)
                and np.array_equal(got.indices, want.indices))
    return np.array_equal(got, want, equal_nan=True)


def test_set_num_threads_from_one_thread_while_six_others_compute(restore_threads):
    """One thread cycles the count through 1..4 while six compute top-k and gather on
    the pool (every call is parallel: PARALLEL_MIN=0) and compare each result with
    the NumPy backend.  No exception, no deadlock, no wrong result."""
    cases, rounds = _hammer_cases(), 60
    start = threading.Barrier(7)
    finished = threading.Event()
    problems, resizes = [], []

    def compute(seed):
        start.wait()
        try:
            for r in range(rounds):
                name, args, want = cases[(seed + r) % len(cases)]
                got = getattr(axisops, name)(*args)
                if not _same(got, want):
                    problems.append(f"worker {seed} round {r}: wrong {name}")
        except Exception as exc:
            problems.append(f"worker {seed}: {exc!r}")

    def resize():
        start.wait()
        count = 0
        while not finished.is_set():
            axisops.set_num_threads(1 + count % 4)
            count += 1
        resizes.append(count)

    with mock.patch.object(drv, "PARALLEL_MIN", 0), mock.patch.object(drv, "SPLIT_MIN", 64):
        workers = [threading.Thread(target=compute, args=(i,), daemon=True) for i in range(6)]
        resizer = threading.Thread(target=resize, daemon=True)
        for t in [*workers, resizer]:
            t.start()
        for t in workers:
            t.join(120)
        finished.set()
        resizer.join(120)
    assert not any(t.is_alive() for t in [*workers, resizer]), "deadlock"
    assert problems == []
    assert resizes and resizes[0] > 0


# --- the thread count is bounded --------------------------------------------------------------

def test_set_num_threads_accepts_numpy_integers_up_to_the_limit(restore_threads):
    for n in (np.int8(3), np.uint64(2), np.int64(config.max_threads()), 1):
        axisops.set_num_threads(n)
        assert axisops.get_num_threads() == int(n)
        assert type(axisops.get_num_threads()) is int
    assert config.max_threads() == max(64, config.cpu_count())


@pytest.mark.parametrize("value, pattern", [
    (10**6, r"n=1000000 is out of range \(need 1 <= n <= {top}, the larger of 64 and the "
            r"{cpus} CPUs this process may run on\)$"),
    ("top+1", r"n={top1} is out of range \(need 1 <= n <= {top},"),
    (0, r"n=0 is out of range"),
    (-3, r"n=-3 is out of range"),
    (np.int64(-1), r"n=-1 is out of range"),
    ("10**5000", r"n=<an integer of 16610 bits> is out of range"),
    (True, r"n=True is a bool"),
    (np.bool_(True), r"n=np.True_ is a bool"),
    (2.0, r"n=2\.0 \(float\) is not an integer"),
    ("4", r"n='4' \(str\) is not an integer"),
    (None, r"n=None \(NoneType\) is not an integer"),
])
def test_set_num_threads_refuses_what_is_not_allowed(restore_threads, value, pattern):
    top, cpus = config.max_threads(), config.cpu_count()
    value = {"top+1": top + 1, "10**5000": 10**5000}.get(value, value) \
        if isinstance(value, str) else value
    axisops.set_num_threads(2)
    with pytest.raises(axisops.InvalidArgumentError) as info:
        axisops.set_num_threads(value)
    assert str(info.value).startswith("set_num_threads(): n=")
    assert re.search(pattern.format(top=top, top1=top + 1, cpus=cpus), str(info.value)), \
        str(info.value)
    assert axisops.get_num_threads() == 2  # unchanged


@pytest.mark.parametrize("raw, message", [
    ("abc", "AXISOPS_NUM_THREADS='abc' is not an allowed integer (need 1 <= "
            "AXISOPS_NUM_THREADS <= {top}); ignored, using {cpus} threads"),
    ("0", "AXISOPS_NUM_THREADS=0 is out of range (need 1 <= AXISOPS_NUM_THREADS <= {top}, "
          "the larger of 64 and the {cpus} CPUs this process may run on); ignored, using "
          "{cpus} threads"),
    ("1000000", "AXISOPS_NUM_THREADS=1000000 is out of range"),
    ("-2", "AXISOPS_NUM_THREADS=-2 is out of range"),
    ("2.5", "AXISOPS_NUM_THREADS='2.5' is not an allowed integer"),
    ("9" * 5000, "AXISOPS_NUM_THREADS='99999999999999999999'... (5000 characters) is not"),
])
def test_a_silly_environment_value_is_ignored_with_a_warning(monkeypatch, raw, message):
    monkeypatch.setenv("AXISOPS_NUM_THREADS", raw)
    top, cpus = config.max_threads(), config.cpu_count()
    with pytest.warns(RuntimeWarning) as record:
        assert config._from_env() == cpus
    assert len(record) == 1
    assert str(record[0].message).startswith(message.format(top=top, cpus=cpus))


@pytest.mark.parametrize("raw, want", [(" 3 ", 3), ("1", 1), ("", None), ("  ", None)])
def test_an_allowed_environment_value_is_used(monkeypatch, raw, want):
    monkeypatch.setenv("AXISOPS_NUM_THREADS", raw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert config._from_env() == (want or config.cpu_count())


# --- the caller's share of a split --------------------------------------------------------

def _covers(ranges, total):
    assert ranges[0][0] == 0 and ranges[-1][1] == total
    assert all(a[1] == b[0] for a, b in pairwise(ranges))
    assert all(start < stop for start, stop in ranges)


def test_a_balance_grows_the_callers_part_while_the_pool_ends_late():
    """The caller's part grows while the pool threads end after it, shrinks back to an
    even part when they end well before it, and stays within its bounds; the ranges
    always cover the whole, in order."""
    b = threads.Balance()
    assert b.split(1000, 2, unit=10) == threads.split_range(1000, 2)  # nothing learned
    heads = []
    for _ in range(12):  # each call: 5 ms for the caller's part, the pool 0.5 ms later
        ranges = b.split(1000, 2, unit=10)
        _covers(ranges, 1000)
        head = ranges[0][1]
        heads.append(head)
        b.learn(head, 1000, 2, unit=10, busy=head * 1e-5, late=5e-4 - (head - 500) * 2e-5)
    assert heads[0] == 500 and heads == sorted(heads) and heads[-1] > 520
    assert heads[-1] <= 500 + (5e-4 + b.MARGIN) / 2e-5 + 1  # at most what closes the gap
    for _ in range(40):  # now the pool ends 2 ms before the caller
        head = b.split(1000, 2, unit=10)[0][1]
        b.learn(head, 1000, 2, unit=10, busy=head * 1e-5, late=-2e-3)
    assert b.lag < 1e-6 and b.split(1000, 2, unit=10)[0][1] <= 501  # even, but the margin
    b.lag, b.per_unit = 1.0, 1e-9  # a lag no part can close: capped at MAX_EXTRA
    for total, parts in ((1000, 2), (1000, 3), (7, 3), (2, 2)):
        ranges = b.split(total, parts, unit=1)
        _covers(ranges, total)
        assert len(ranges) == parts
        assert ranges[0][1] <= max(1, round(total / parts * (1 + b.MAX_EXTRA)))


def test_a_balance_ignores_calls_it_cannot_learn_from():
    b = threads.Balance()
    for head, busy, parts in ((0, 1e-3, 2), (10, 0.0, 2), (10, 1e-3, 1)):
        b.learn(head, 20, parts, unit=1, busy=busy, late=1e-3)
    assert (b.lag, b.per_unit) == (0.0, 0.0)


def test_run_parallel_reports_each_call_to_its_balance(restore_threads):
    axisops.set_num_threads(3)
    seen = []

    class Recorder(threads.Balance):
        def learn(self, head, total, parts, *, unit, busy, late):
            seen.append((head, total, parts, unit, busy >= 0, isinstance(late, float)))

    b = Recorder()
    assert threads.run_parallel(lambda a: a + 1, [(1,), (2,), (3,)], (b, 40, 100, 7)) == [2, 3, 4]
    assert seen == [(40, 100, 3, 7, True, True)]
    threads.run_parallel(lambda a: a, [(1,)], (b, 100, 100, 7))  # one task: no pool, no timing
    assert len(seen) == 1


class _Lopsided(threads.Balance):
    """A balance that gives the caller the largest part it ever may, and learns nothing."""

    def __init__(self) -> None:
        super().__init__()
        self.lag, self.per_unit = 1.0, 1e-9

    def learn(self, *args, **kwargs) -> None:
        pass


class _AllLopsided(dict):
    def get(self, key, default=None):
        return _Lopsided()


@pytest.mark.parametrize("threads_", [2, 3])
def test_a_lopsided_split_never_changes_the_bits(threads_, restore_threads):
    """With the caller's part at its largest, top-k on the row strategies and gather
    still give the oracle's bits."""
    axisops.set_num_threads(threads_)
    assert _Lopsided().split(3000, threads_, unit=40)[0][1] == 3000 * 1.5 // threads_
    rng = np.random.default_rng(threads_)
    x = rng.integers(-3, 4, (3000, 40)).astype(np.float32)
    x[::11, 5] = np.nan
    index = rng.integers(-40, 40, (3000, 64))
    with mock.patch.object(drv, "PARALLEL_MIN", 0), \
            mock.patch.object(drv, "_BALANCES", _AllLopsided()):
        for strategy, k in (("insert", 3), ("scan", 5), ("radix", 30)):
            spec = topk_spec(ArrayMeta(x.shape, x.dtype), k, 1, True, True, None)
            got = drv.topk(x, spec, strategy=strategy)
            want = axisops.topk(x, k, backend="numpy")
            np.testing.assert_array_equal(got[1], want.indices)
            assert got[0].tobytes() == want.values.tobytes()
        got = axisops.gather(x, 1, index)
        assert got.tobytes() == axisops.gather(x, 1, index, backend="numpy").tobytes()
