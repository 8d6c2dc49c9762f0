"""Module ``acl``: the slice of pyACL that an aclnn program needs around its operators.

``acl.init`` / ``acl.finalize``, the namespaces ``acl.rt`` (devices, streams,
device memory) and ``acl.util`` (host pointers), ``acl.get_recent_err_msg``,
and the constants of ``acl_base.h`` / ``acl_rt.h`` (data types, formats, copy
kinds, malloc policies, runtime status codes).  Out-values come first and
the status code last, as in pyACL: ``stream, ret = acl.rt.create_stream()``.

>>> from axisops.ascend import acl
>>> acl.rt.set_device(0)
100001
>>> acl.init(), acl.init()
(0, 100002)
>>> print(acl.get_recent_err_msg())
acl.init(): acl.init() was already called (call acl.finalize() first)
>>> acl.finalize(), acl.finalize()
(0, 100001)
"""

from __future__ import annotations

import os

from .. import _constants
from .._boundary import acl_call, brief, fail, take_recent
from .._constants import (
    ACL_ERROR_INVALID_PARAM,
    ACL_ERROR_REPEAT_INITIALIZE,
    ACL_ERROR_UNINITIALIZE,
)
from .._context import CONTEXT
from . import rt, util

# ACL_FLOAT, ACL_MEMCPY_HOST_TO_DEVICE, ...: every ACL_* number, defined once in _constants.
globals().update(_constants.ACL_EXPORTS)

__all__ = ["finalize", "get_recent_err_msg", "init", "rt", "util"]
__all__ += list(_constants.ACL_EXPORTS)  # (a call: documentation tools list strings only)


@acl_call("acl.init()")
def init(config_path: str | None = None) -> int:
    """``aclInit``: start the runtime; a second call returns 100002.

    ``config_path`` may be None, ``""`` or the path of an existing file (its
    content is not used); anything else returns 100000.
    """
    func = "acl.init()"
    with CONTEXT.lock:
        if CONTEXT.initialized:
            return fail(ACL_ERROR_REPEAT_INITIALIZE,
                        f"{func}: acl.init() was already called (call acl.finalize() first)")
        if not _config_ok(config_path):
            return fail(ACL_ERROR_INVALID_PARAM,
                        f"{func}: config_path={brief(config_path)} is not an existing file "
                        f"(need None, '' or a file path)")
        CONTEXT.initialized = True
        return 0


def _config_ok(config_path: object) -> bool:
    if config_path is None:
        return True
    if not issubclass(type(config_path), str):
        return False
    path = str.__str__(config_path)  # a plain str: a subclass's __eq__ or __fspath__ never runs
    return path == "" or os.path.isfile(path)


@acl_call("acl.finalize()")
def finalize() -> int:
    """``aclFinalize``: run pending work, release every stream, allocation and host registration.

    Before ``acl.init`` (or a second time) it returns 100001.
    """
    with CONTEXT.lock:
        if not CONTEXT.initialized:
            return fail(ACL_ERROR_UNINITIALIZE,
                        "acl.finalize(): acl.init() has not been called (or acl.finalize() has)")
        CONTEXT.finalize()
        return 0


def get_recent_err_msg() -> str | None:
    """``aclGetRecentErrMsg``: this thread's latest error message, or None; reading clears it."""
    return take_recent()
