"""The compiled core's thread pool: its mechanism, fork and multiprocessing, many Python
threads at once with concurrent resizing; the thread bound."""

from __future__ import annotations

import os
import re
import threading
import warnings

import numpy as np
import pytest

import axisops
from axisops import _core, config
from subprocess_helpers import run_python


@pytest.fixture
def restore_threads():
    old = axisops.get_num_threads()
    yield
    axisops.set_num_threads(old)


# --- the pool's mechanism ----------------------------------------------------------------------

@pytest.mark.parametrize("tasks, threads", [(0, 3), (1, 3), (7, 1), (200, 2), (200, 3), (5, 64)])
def test_every_task_runs_once_on_at_most_the_threads_asked_for(tasks, threads):
    ran = _core.kernels._pool_probe(tasks, threads)
    assert len(ran) == tasks  # one record per task: each ran, and only once
    if threads == 1 or tasks <= 1:
        assert set(ran) <= {0}  # no hand-off at all
    else:
        assert 0 < len(set(ran)) <= min(threads, tasks)


def test_a_failing_task_is_raised_once_every_started_task_has_finished():
    for fail_at in (0, 7, 199):
        with pytest.raises(RuntimeError, match=rf"^task {fail_at} failed; started (\d+), "
                                               r"finished \1$"):
            _core.kernels._pool_probe(200, 3, fail_at)
    assert len(_core.kernels._pool_probe(50, 3)) == 50  # and the pool still works


#: In a fresh process whose pool has one worker (threads=2 only), so that no sleeping
#: worker woken for a job can take it before the watching one.
WATCH_SCRIPT = """
from axisops import _core
K = _core.kernels
K._pool_probe(200, 2)            # the one worker exists
K._pool_watch(60_000_000)
K._pool_probe(200, 2)            # after this job it watches
before = K._pool_joined_awake()
for _ in range(5):
    assert len(K._pool_probe(5000, 2)) == 5000
assert K._pool_joined_awake() > before, (before, K._pool_joined_awake())
assert K._pool_watch(0) == 60_000_000 and K.pool_workers() == 1
for _ in range(5):
    ran = K._pool_probe(200, 2)
    assert len(ran) == 200 and len(set(ran)) <= 2
print("ok")
"""


def test_an_idle_worker_watches_for_the_next_job_before_it_sleeps():
    """The calls of a loop find their helper awake: a worker that finished a job watches
    for the next (here for up to a minute) and joins it without being woken. Each call's
    5000 tasks keep its caller busy for tens of milliseconds, many scheduler time slices,
    so the watching worker gets a core before they are all taken, even with every other
    core busy. Told not to watch, the worker sleeps at once and is woken for each job."""
    done = run_python(["-c", WATCH_SCRIPT], timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.explain()


def test_calls_from_many_python_threads_at_once_each_get_all_their_tasks():
    start = threading.Barrier(6)
    results, problems = [], []

    def call(seed):
        start.wait()
        try:
            for r in range(20):
                ran = _core.kernels._pool_probe(50 + seed + r, 1 + (seed + r) % 3)
                results.append(len(ran) == 50 + seed + r)
        except Exception as exc:
            problems.append(repr(exc))

    threads = [threading.Thread(target=call, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "deadlock"
    assert problems == [] and len(results) == 120 and all(results)


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


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
@pytest.mark.parametrize("place", ["adapters", "engines", "call", "ascend"])
def test_fork_while_another_thread_is_inside_the_first_calls_lazy_import(place):
    """A thread holds the lock of the adapters' (or the engines') lazy import, held there
    until a thread waits for one of the package's locks (``call``: inside the import of a
    module the call itself makes, which holds that module's import lock; ``ascend``: inside
    an acl call, whose lock it takes first); the main thread forks, and the child makes its
    own call (fork_script.py).  A lock copied held would hang the child; one taken at fork
    in the wrong order, the parent."""
    done = run_python(["fork_script.py", f"inside:{place}"], timeout=150)
    assert done.returncode == 0, done.explain()
    assert done.stdout.split("\n")[:1] == [f"ok inside:{place}"], done.explain()


def test_no_module_takes_the_import_lock_at_its_top_level():
    """The package's import lock, which every import made while a call runs holds and a
    fork waits for, is never taken by a module's own top level (a thread there holds the
    module's import lock: the two locks would be taken in both orders).  Every
    operation's first call on every backend installed, then every module, in a fresh
    process that records each acquisition (imports_lock_script.py)."""
    done = run_python(["imports_lock_script.py"], timeout=240)
    assert done.returncode == 0, done.explain()
    assert done.stdout.startswith("ok numpy:numpy numpy:default"), done.explain()


# --- many Python threads calling kernels while the thread count changes -------------------

def _hammer_cases():
    rng = np.random.default_rng(21)
    ties = rng.integers(-20, 20, size=(96, 400)).astype(np.float64)
    ties[rng.random(ties.shape) < 0.05] = np.nan
    long_row = rng.integers(-(2**62), 2**62, size=(1, 300000), dtype=np.int64)
    idx = rng.integers(-400, 400, size=(96, 500))
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
    the pool (every input is large enough for the parallel path; the long row is cut
    across threads) and compare each result with the NumPy backend.  No exception, no
    deadlock, no wrong result."""
    cases, rounds = _hammer_cases(), 20
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
