"""Compiled kernels that never keep a caller waiting.

Numba compiles a kernel the first time it meets a new signature, which takes
seconds.  Before a driver runs a kernel it calls :func:`ensure` with the
kernels and arguments it is about to use.  In the default ``"background"``
compile mode (see :func:`axisops.config.set_compile_mode`):

- a kernel already loaded in this process, or loadable from Numba's on-disk
  cache, is loaded and the call goes ahead;
- otherwise :class:`NotReady` is raised before any work starts (the backend
  then answers through its exact fallback), and a separate process
  (``python -m axisops.kernels.numba.compile``) compiles the kernel into the
  cache, at low priority, so this process's threads and GIL stay free.  Later
  calls load it as soon as it is there.

Cache entries are written data first, index last, each file by an atomic
rename, under a lock (see :func:`install_safe_saves`): a process killed at any
moment leaves either a complete entry or none, and parallel compilers never
lose each other's entries.  If a compiling process fails twice for the same
work, this process stops asking and compiles in place instead (with a warning).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ...config import get_compile_mode

__all__ = [
    "NotReady",
    "cache_path",
    "dispatchers_in",
    "ensure",
    "has_signature",
    "install_safe_saves",
    "is_cached",
    "launches_of",
    "signature",
    "stats",
    "wait_for_worker",
]

#: how many times a job is handed to a compiling process before this process gives up.
MAX_ATTEMPTS = 2


class NotReady(Exception):
    """The compiled kernel a call needs is not loadable yet (it is being compiled)."""


class _Probed(Exception):
    """Raised inside :func:`launches_of` once the launches of a call are known."""


_lock = threading.Lock()
_local = threading.local()
_ready: set[tuple[Any, str]] = set()
_pending: set[str] = set()
_attempts: dict[str, int] = {}
_worker: subprocess.Popen | None = None
_given_up = False
_counts = {"fallback_calls": 0, "workers_started": 0, "loaded": 0}


def _reset_after_fork() -> None:
    global _lock, _worker
    _lock = threading.Lock()
    _worker = None  # the parent's compiling process is not this child's to wait for
    _pending.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def ensure(launches: Sequence[tuple[Any, tuple]], job: str) -> None:
    """Make sure every ``(dispatcher, args)`` in ``launches`` can run without compiling.

    ``job`` names the work that compiles them (see :mod:`.jobs`); it is
    also the memo key, so a repeated call costs one set lookup per kernel.
    A kernel in the on-disk cache is loaded here (without the compiler: see
    :func:`_load_compiled`).  One that is not raises :class:`NotReady` (after
    asking for a background compile); in ``"sync"`` mode Numba compiles it when
    it is called, as usual.
    """
    probe = getattr(_local, "probe", None)
    if probe is not None:
        probe.extend(launches)
        raise _Probed
    sync = get_compile_mode() == "sync"
    for dispatcher, args in launches:
        if (dispatcher, job) in _ready:
            continue
        if _load(dispatcher, args):
            _ready.add((dispatcher, job))
        elif not sync and not _compile_here(job):
            raise NotReady(job)
        # else Numba compiles it in this thread when it is called


def count_fallback() -> None:
    """Note that a call was answered by the fallback (see :func:`stats`)."""
    with _lock:
        _counts["fallback_calls"] += 1


def stats() -> dict[str, Any]:
    """Counters of this process: calls answered by the fallback, compiling processes
    started, kernels loaded from the cache, and whether a compile is running.

    >>> sorted(stats())
    ['compiling', 'fallback_calls', 'loaded', 'pending', 'workers_started']
    """
    with _lock:
        running = _worker is not None and _worker.poll() is None
        return {**_counts, "compiling": running, "pending": sorted(_pending)}


def wait_for_worker(timeout: float | None = None) -> bool:
    """Wait for this process's compiling process, if any; True when none is left running."""
    worker = _worker
    if worker is None:
        return True
    try:
        worker.wait(timeout)
    except subprocess.TimeoutExpired:
        return False
    return True


def signature(dispatcher: Any, args: tuple) -> tuple:
    """Numba's argument types for calling ``dispatcher`` with ``args``."""
    return tuple(dispatcher.typeof_pyval(a) for a in args)


def _load(dispatcher: Any, args: tuple) -> bool:
    if not hasattr(dispatcher, "typeof_pyval"):
        return True  # a plain Python function (a test's stand-in) needs no compiling
    sig = signature(dispatcher, args)
    if sig in dispatcher.overloads:
        return True
    if not _in_cache(dispatcher, sig):
        return False
    if not _load_compiled(dispatcher, sig):
        dispatcher.compile(sig)  # a load: the entry is complete (see install_safe_saves)
    with _lock:
        _counts["loaded"] += 1
    return True


def _load_compiled(dispatcher: Any, sig: tuple) -> bool:
    """Load ``sig``'s cached machine code into ``dispatcher``, without the compiler.

    Numba's own load (``Dispatcher.compile``) first refreshes its typing and
    lowering registries, as a compile needs: that imports much of Numba and
    SciPy, which cost a new process's first call about 0.4 s.  Running cached
    code needs only the runtime (NRT) and the code itself, so that is all this
    sets up.  False (and nothing changed) when anything is not as expected; the
    caller then loads the Numba way.
    """
    try:
        from numba.core.compiler_lock import global_compiler_lock
        from numba.core.runtime import nrt

        ctx = dispatcher.targetctx
        cache = dispatcher._cache
        with global_compiler_lock:
            if sig in dispatcher.overloads:
                return True
            nrt.rtsys.initialize(ctx)
            data = cache._cache_file.load(cache._index_key(sig, ctx.codegen()))
            if data is None:
                return False
            cres = cache._impl.rebuild(ctx, data)
            if cres.objectmode:
                return False
            ctx.insert_user_function(cres.entry_point, cres.fndesc, [cres.library])
            dispatcher.add_overload(cres)
        return True
    except Exception:  # a Numba without these internals: load the Numba way
        return False


def _in_cache(dispatcher: Any, sig: tuple) -> bool:
    """Whether Numba's cache holds a complete entry for ``sig`` (nothing is loaded)."""
    cache = getattr(dispatcher, "_cache", None)
    cache_file = getattr(cache, "_cache_file", None)
    try:
        key = cache._index_key(sig, dispatcher.targetctx.codegen())
        name = cache_file._load_index().get(key)
        return name is not None and os.path.exists(cache_file._data_path(name))
    except Exception:  # a Numba without these internals: treat as not cached
        return False


def is_cached(dispatcher: Any, args: tuple) -> bool:
    """Whether ``dispatcher`` can run ``args`` without compiling (loaded or on disk)."""
    return has_signature(dispatcher, signature(dispatcher, args))


def has_signature(dispatcher: Any, sig: tuple) -> bool:
    """Whether ``dispatcher`` has code for ``sig`` loaded or in the on-disk cache."""
    return sig in dispatcher.overloads or _in_cache(dispatcher, sig)


def cache_path(dispatcher: Any) -> str | None:
    """The folder Numba caches ``dispatcher``'s compiled code in."""
    cache = getattr(dispatcher, "_cache", None)
    return getattr(cache, "cache_path", None)


def launches_of(call: Any) -> list[tuple[Any, tuple]]:
    """The ``(dispatcher, args)`` a driver call would run, found without running or
    compiling anything (``call`` is stopped at its :func:`ensure`)."""
    found: list[tuple[Any, tuple]] = []
    _local.probe = found
    try:
        call()
    except _Probed:
        pass
    finally:
        _local.probe = None
    return found


def _compile_here(job: str) -> bool:
    """Ask for a background compile of ``job``; True when this process must compile
    in place instead (background compiling does not work here)."""
    global _worker, _given_up
    with _lock:
        if _given_up:
            return True
        _pending.add(job)
        if _worker is not None and _worker.poll() is None:
            return False
        jobs = sorted(_pending)
        if any(_attempts.get(j, 0) >= MAX_ATTEMPTS for j in jobs):
            _given_up = True
        else:
            try:
                _worker = _spawn(jobs)
            except OSError:
                _given_up = True
            else:
                for j in jobs:
                    _attempts[j] = _attempts.get(j, 0) + 1
                _pending.clear()
                _counts["workers_started"] += 1
                return False
    warnings.warn(
        "axisops: compiling CPU kernels in the background does not work here, so this "
        "call compiles them now (set AXISOPS_COMPILE=sync to silence this)",
        RuntimeWarning,
        stacklevel=4,
    )
    return True


def _spawn(jobs: list[str]) -> subprocess.Popen:
    if not sys.executable:
        raise OSError("no Python executable to run a compiling process")
    root = str(Path(__file__).resolve().parents[2])  # the folder that holds axisops
    path = os.environ.get("PYTHONPATH")
    env = dict(os.environ, AXISOPS_COMPILE="sync", AXISOPS_NUM_THREADS="1",
               PYTHONPATH=root + (os.pathsep + path if path else ""))
    debug = bool(os.environ.get("AXISOPS_DEBUG"))
    return subprocess.Popen(
        [sys.executable, "-m", "axisops.kernels.numba.compile", "--background", *jobs],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=None if debug else subprocess.DEVNULL,
        env=env,
        close_fds=True,
        start_new_session=True,  # a Ctrl-C of the caller's terminal does not cut it short
    )


# --- cache files that are always complete ----------------------------------------------------


@contextlib.contextmanager
def _file_lock(path: str) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # no flock (Windows): saves are still data first, index last
        yield
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _safe_save(self: Any, key: Any, data: Any) -> None:
    """Numba's ``IndexDataCacheFile.save``, data first and under a lock.

    Numba writes the index first: a process killed before the data lands
    leaves an index entry pointing at a missing (or older) data file, and two
    processes saving different signatures of one function at once lose one of
    them.  Here the index is re-read under a lock and written last.
    """
    os.makedirs(self._cache_path, exist_ok=True)
    with _file_lock(self._index_path + ".lock"):
        overloads = self._load_index()
        name = overloads.get(key)
        if name is None:
            taken = set(overloads.values())
            number = 1
            while self._data_name(number) in taken:
                number += 1
            name = self._data_name(number)
        self._save_data(name, data)
        overloads[key] = name
        self._save_index(overloads)


def dispatchers_in(*modules: Any) -> list[Any]:
    """The cached Numba kernels (``@njit(cache=True)``) defined in ``modules``."""
    found = []
    for module in modules:
        for value in vars(module).values():
            py_func = getattr(value, "py_func", None)
            cache_file = getattr(getattr(value, "_cache", None), "_cache_file", None)
            if cache_file is not None and getattr(py_func, "__module__", None) == module.__name__:
                found.append(value)
    return found


def install_safe_saves(dispatchers: Sequence[Any]) -> None:
    """Make the cache saves of ``dispatchers`` complete-or-absent (see :func:`_safe_save`)."""
    try:
        from numba.core.caching import IndexDataCacheFile
    except ImportError:
        return
    safe = _safe_class(IndexDataCacheFile)
    for dispatcher in dispatchers:
        cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
        if type(cache_file) is IndexDataCacheFile:
            cache_file.__class__ = safe


_SAFE: dict[type, type] = {}


def _safe_class(base: type) -> type:
    if base not in _SAFE:
        _SAFE[base] = type("SafeIndexDataCacheFile", (base,), {"save": _safe_save})
    return _SAFE[base]
