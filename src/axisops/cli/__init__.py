"""The ``axisops`` command line (see :mod:`axisops.cli.main`).

:func:`entry` is the ``axisops`` script and ``python -m axisops``.  It lives in this
small module so that nothing heavy is imported before it can take a Ctrl-C: start-up
(NumPy, the commands and their parsers) takes a few tenths of a second, and a SIGINT
landing then ends the process quietly with status 130, as one during a job does,
instead of printing a traceback.
"""

from __future__ import annotations

import contextlib
import os
import signal

__all__ = ["entry"]

#: For the tests: ``"READY,GO"`` (two file descriptors): start-up writes one byte to
#: READY (``b"1"`` if NumPy is already imported, else ``b"0"``), then waits for a byte
#: on GO before importing anything heavy, so that a signal can land there for sure.
START_HOOK = "AXISOPS_TEST_START_FDS"


def _wait_for_the_test(fds: str) -> None:
    import sys

    ready, go = (int(fd) for fd in fds.split(","))
    os.write(ready, b"1" if "numpy" in sys.modules else b"0")
    os.read(go, 1)


def entry() -> int:
    """Run the command line as the whole process; returns its exit status."""
    try:
        hook = os.environ.get(START_HOOK)
        if hook:
            _wait_for_the_test(hook)
        from .main import main

        return main(process=True)
    except KeyboardInterrupt:  # during start-up: nothing was done, so nothing to say
        with contextlib.suppress(ValueError):  # not the main thread: no handler to set
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second one during shutdown
        return 130
