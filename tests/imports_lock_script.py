"""No module of axisops takes the package's import lock at its own top level (run by
test_concurrency.py).

    python imports_lock_script.py

``axisops._forksafe.IMPORTS`` is held by every import the package makes while a call
runs, and a fork takes it (see the module).  A thread that runs a module's top level
holds that module's import lock; were it to wait there for ``IMPORTS``, held by a thread
that imports the same module, neither would go on.  So this script installs, before any
other module of the package is imported, a stand-in for the lock that records every
acquisition made while a module of axisops is being executed; then it makes the first
call of every operation on every backend this install has (the lazy imports of each),
imports every remaining module of the package, and prints the records (none is right).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import threading

import numpy as np

import axisops

FOUND: list[str] = []


class Recording:
    """An RLock that records each acquisition made inside a module's top level."""

    def __init__(self) -> None:
        self._lock = threading.RLock()

    def _check(self) -> None:
        frame = sys._getframe(2)
        while frame is not None:
            name = frame.f_globals.get("__name__", "")
            if frame.f_code.co_name == "<module>" and name.startswith("axisops"):
                FOUND.append(f"{name} (line {frame.f_lineno})")
                return
            frame = frame.f_back

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        self._check()
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> bool:
        self._check()
        return self._lock.acquire()

    def __exit__(self, *exc) -> None:
        self._lock.release()


def record() -> None:
    """Put the recording lock in place before any other module of the package is imported
    (those import ``IMPORTS`` by name); this script is run in a fresh process."""
    early = sorted(m for m in sys.modules if m.startswith("axisops."))
    assert early in ([], ["axisops._version"]), early
    import axisops._forksafe as forksafe

    forksafe.IMPORTS = Recording()


def first_calls() -> list[str]:
    """Every operation's first call on each array type and backend installed."""
    x = np.arange(24, dtype=np.float32).reshape(4, 6)[:, ::-1]
    index = np.zeros((4, 2), dtype=np.int64)
    arrays = {"numpy": (x, index)}
    try:
        import torch
        arrays["torch"] = (torch.from_numpy(x.copy()), torch.from_numpy(index))
    except ImportError:
        pass
    try:
        import jax.numpy as jnp
        arrays["jax"] = (jnp.asarray(x), jnp.asarray(index))
    except ImportError:
        pass
    try:
        import dask.array as da
        arrays["dask"] = (da.from_array(x, chunks=(2, -1)), da.from_array(index, chunks=(2, -1)))
    except ImportError:
        pass
    ran = []
    for kind, (a, i) in arrays.items():
        backends = ("numpy", None) if kind == "numpy" else (None,)
        for backend in backends:
            options = {} if backend is None else {"backend": backend}
            results = [axisops.topk(a, 2, **options), axisops.gather(a, 1, i, **options),
                       axisops.sort(a, **options), axisops.argsort(a, **options),
                       axisops.kthvalue(a, 2, **options), axisops.median(a, **options),
                       axisops.quantile(a, 0.3, **options)]
            if kind == "dask":
                import dask
                dask.compute(*[getattr(r, "values", r) for r in results],
                             scheduler="synchronous")
            ran.append(f"{kind}:{backend or 'default'}")
    return ran


def every_module() -> int:
    count = 0
    for info in pkgutil.walk_packages(axisops.__path__, "axisops."):
        try:
            importlib.import_module(info.name)
        except ImportError:  # an optional dependency this install lacks (triton, ...)
            continue
        count += 1
    return count


if __name__ == "__main__":
    record()
    ran = first_calls()
    modules = every_module()
    assert not FOUND, "taken at a module's top level: " + ", ".join(FOUND)
    print(f"ok {' '.join(ran)}; {modules} modules", flush=True)
