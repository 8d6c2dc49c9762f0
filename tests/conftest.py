"""Shared pytest configuration: hypothesis profile and the backend fixture."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))  # tests import oracle / strategies
# The benchmark package lives outside the installed library, beside its scripts.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

# Kernel tests must run the compiled kernels, not the fallback that answers while a
# kernel compiles in the background: compile in place (tests of the background path
# set their own mode, in their own processes and kernel caches).
os.environ.setdefault("AXISOPS_COMPILE", "sync")

from axisops.registry import all_backends

settings.register_profile(
    "default",
    max_examples=int(os.environ.get("AXISOPS_HYPOTHESIS_EXAMPLES", "120")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=os.environ.get("AXISOPS_HYPOTHESIS_RANDOM") is None,
)
settings.load_profile("default")

#: Every installed backend that serves NumPy arrays (the oracle "numpy" among them).
NUMPY_BACKENDS = [b.name for b in all_backends() if "numpy" in b.array_modules and b.available()]


@pytest.fixture(params=NUMPY_BACKENDS, scope="session")
def backend(request) -> str:
    """Each NumPy-family backend in turn."""
    return request.param


@pytest.fixture
def stream():
    """axisops.ascend: an initialised runtime, device 0 set, one stream; finalised after."""
    from axisops.ascend import acl

    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    handle, ret = acl.rt.create_stream()
    assert ret == 0
    acl.get_recent_err_msg()
    yield handle
    assert acl.finalize() in (0, acl.ACL_ERROR_UNINITIALIZE)  # 100001: the test finalised it
    acl.get_recent_err_msg()
