"""Shared pytest configuration: hypothesis profile, and the fixtures several files use.

- ``backend``: each NumPy engine in turn;
- ``runtime``, ``stream``: an initialised axisops.ascend runtime, and a stream on it;
- ``synchronous``: dask's synchronous scheduler for the test;
- ``client``: a real ``distributed.LocalCluster`` of two worker processes, one per session;
- ``big``: large ``.npy`` inputs for the bounded-memory tests, written once per session;
- ``threads``: ``axisops.set_num_threads`` for the test, the thread count restored after
  it (files that run every test at several counts define their own);
- ``no_orphans`` (every session): fails the run if a child process of the test process is
  still alive once the session's fixtures are torn down (the LocalCluster's included);
- in the checkout's conftest.py: ``restore_registry`` (backends a test registers go after
  it) and ``fresh_ascend_runtime``.

Heavy imports (dask, distributed) happen inside the fixtures that need them, and a test
that uses one is skipped where it is not installed (as are test modules that import an
optional stack: ``pytest.importorskip`` at their top).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))  # tests import oracle / strategies

from axisops import engines

settings.register_profile(
    "default",
    max_examples=int(os.environ.get("AXISOPS_HYPOTHESIS_EXAMPLES", "120")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=os.environ.get("AXISOPS_HYPOTHESIS_RANDOM") is None,
)
settings.load_profile("default")

#: Every installed engine that computes on NumPy arrays (the oracle "numpy" among them).
NUMPY_BACKENDS = [e.name for e in engines.of_type("numpy")]


@pytest.fixture(params=NUMPY_BACKENDS, scope="session")
def backend(request) -> str:
    """Each NumPy engine in turn."""
    return request.param


@pytest.fixture(scope="session", autouse=True)
def no_orphans():
    """No child process outlives the session: checked after every other session fixture
    (this one is set up first, so torn down last), waiting for exits, not for a time."""
    psutil = pytest.importorskip("psutil")
    yield
    # multiprocessing's resource tracker (started by the LocalCluster's spawned workers)
    # serves this process until it exits, and exits with it (its pipe closes): not an orphan.
    children = [p for p in psutil.Process().children(recursive=True)
                if "multiprocessing.resource_tracker" not in " ".join(_cmdline(p))]
    _, alive = psutil.wait_procs(children, timeout=30)  # returns as soon as they are gone
    for proc in alive:
        proc.kill()
    assert not alive, f"child processes left running: {[p.pid for p in alive]}"


def _cmdline(proc) -> list[str]:
    try:
        return proc.cmdline()
    except Exception:  # gone meanwhile, or not ours to read
        return []


@pytest.fixture
def threads():
    """Sets the thread count for one test (it yields ``axisops.set_num_threads``) and
    restores it."""
    import axisops

    old = axisops.get_num_threads()
    yield axisops.set_num_threads
    axisops.set_num_threads(old)


@pytest.fixture
def runtime():
    """axisops.ascend: an initialised runtime, device 0 set; finalised after, whatever happens.

    A runtime an earlier test left behind is finalised first.
    """
    from axisops.ascend import acl

    acl.finalize()  # one an earlier test left behind (100001 when there is none)
    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    acl.get_recent_err_msg()
    yield
    assert acl.finalize() in (0, acl.ACL_ERROR_UNINITIALIZE)  # 100001: the test finalised it
    acl.get_recent_err_msg()


@pytest.fixture
def stream(runtime):
    """axisops.ascend: a stream on an initialised runtime (see ``runtime``)."""
    from axisops.ascend import acl

    handle, ret = acl.rt.create_stream()
    assert ret == 0
    return handle


@pytest.fixture
def synchronous():
    """dask's synchronous scheduler for the test (exceptions come straight out)."""
    dask = pytest.importorskip("dask")

    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.fixture(scope="session")
def client():
    """A client of a real LocalCluster: two worker processes, one thread each."""
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0", silence_logs=40) as cluster, \
            Client(cluster) as c:
        yield c


@pytest.fixture(scope="session")
def big(tmp_path_factory):
    """128 MiB inputs, and 16 MiB ones that a 4 MiB chunk cuts into boxes of the same shapes."""
    from disk import big_file

    folder = tmp_path_factory.mktemp("big")
    for name, shape, dtype in [("x", (1024, 32768), np.float32), ("rows", (128, 32768), np.float32),
                               ("cols", (1024, 4096), np.float32), ("i", (1024, 32768), np.int32),
                               ("i_rows", (128, 32768), np.int32)]:
        big_file(folder / f"{name}.npy", shape, dtype, len(name))
    rng = np.random.default_rng(3)
    np.save(folder / "g.npy", rng.random((1024, 64), np.float32))
    np.save(folder / "g_rows.npy", rng.random((128, 64), np.float32))
    return folder
