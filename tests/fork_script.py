"""axisops across fork and in multiprocessing pools (run by test_concurrency.py).

    python fork_script.py STEP...

Steps: ``fork`` (use the pool, os.fork(), use it again in the child),
``pool:METHOD`` (a multiprocessing Pool with the "fork" or "spawn" start
method) and ``inside:PLACE`` (fork while another thread is inside the first
call's lazy import of the ``adapters`` or the ``engines``, inside an import the
first call makes while it runs (``call``: the NumPy engine's reference top-k), or
inside an ``ascend`` call that makes the first call; a fresh process for each).  Each
step prints "ok STEP" when every result equals the NumPy backend's and the
parallel path really ran; a hang is caught by the caller's timeout, and the
steps printed so far say where.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import multiprocessing
import os
import sys
import threading
from types import SimpleNamespace

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


#: Set when a thread starts to wait for one of the package's locks that another holds.
CONTENDED = threading.Event()


class WatchedLock:
    """A lock (or RLock) of the package that sets :data:`CONTENDED` before it waits."""

    def __init__(self, lock):
        self._lock = lock

    def acquire(self, blocking=True, timeout=-1):
        if self._lock.acquire(False):
            return True
        if not blocking:
            return False
        CONTENDED.set()
        return self._lock.acquire(True, timeout)

    def release(self):
        self._lock.release()

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()


def import_watched(*modules: str) -> None:
    """Import ``modules`` with every lock the package creates meanwhile a WatchedLock."""
    made = threading.Lock, threading.RLock

    def watched(make):
        def factory():
            mine = sys._getframe(1).f_globals["__name__"].startswith("axisops")
            return WatchedLock(make()) if mine else make()
        return factory

    threading.Lock, threading.RLock = map(watched, made)
    try:
        for module in modules:
            importlib.import_module(module)
    finally:
        threading.Lock, threading.RLock = made


def hold_the_lazy_import(table: str) -> threading.Event:
    """Make the first import of ``axisops.<table>``'s lazy loader wait, inside its lock,
    until a thread waits for one of the package's locks; the Event says it is there."""
    module, entered = importlib.import_module(f"axisops.{table}"), threading.Event()

    def import_module(name):
        if not entered.is_set():
            entered.set()
            CONTENDED.wait()
        return importlib.import_module(name)

    module.importlib = SimpleNamespace(import_module=import_module)
    return entered


def hold_the_call_time_import(name: str = "axisops.reference.topk") -> threading.Event:
    """Make the first import of ``name``, which the NumPy engine's top-k makes while the
    call runs, wait in the module's execution (holding the module's import lock, as any
    import does) until a thread waits for one of the package's locks; the Event says it
    is there."""
    entered = threading.Event()

    class Held:  # the module's own loader, which waits before it runs the module
        def __init__(self, loader):
            self.loader = loader

        def create_module(self, spec):
            return self.loader.create_module(spec)

        def exec_module(self, module):
            entered.set()
            CONTENDED.wait()
            self.loader.exec_module(module)

    class Hold:
        def find_spec(self, fullname, path=None, target=None):
            if fullname != name or entered.is_set():
                return None
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            spec.loader = Held(spec.loader)
            return spec

    assert name not in sys.modules
    sys.meta_path.insert(0, Hold())
    return entered


def first_call(place: str) -> bool:
    """The process's first axisops call (``ascend``: made inside an acl call's lock)."""
    if place != "ascend":
        return work(0)[0]
    from axisops.ascend._context import CONTEXT

    with CONTEXT.lock:
        return work(0)[0]


def child_call(place: str) -> None:
    """The forked child's own call (and acl's, for ``ascend``); exit code 1 if wrong."""
    assert work(1)[0]
    if place == "ascend":
        from axisops.ascend import acl

        assert acl.init() == 0 and acl.finalize() == 0


def fork_inside(place: str) -> None:
    """Fork while another thread is inside the first call's lazy import; the child must
    make its own call, whatever the fork had to wait for."""
    assert "axisops.adapters" not in sys.modules, "inside:PLACE runs first in its process"
    import_watched("axisops.adapters", "axisops.engines",
                   *(["axisops.ascend"] if place == "ascend" else []))
    if place == "call":
        entered = hold_the_call_time_import()
    else:
        entered = hold_the_lazy_import("engines.blocks" if place == "engines" else "adapters")
    done = []
    thread = threading.Thread(target=lambda: done.append(first_call(place)))
    thread.start()
    entered.wait()
    child = multiprocessing.get_context("fork").Process(target=child_call, args=(place,))
    child.start()
    child.join(60)
    if child.exitcode is None:  # it hangs: stop it, and let the thread go
        child.kill()
        child.join()
        CONTENDED.set()
        print("the child hung (killed after 60 s)", file=sys.stderr)
    thread.join()
    assert child.exitcode == 0 and done == [True], (child.exitcode, done)
    print(f"ok inside:{place}", flush=True)


if __name__ == "__main__":
    for step in sys.argv[1:]:
        if step == "fork":
            after_fork()
        elif step.startswith("inside:"):
            fork_inside(step.partition(":")[2])
        else:
            in_pool(step.partition(":")[2])
