"""The ``axisops`` command: its script (``axisops.__main__:entry``) and ``python -m axisops``.

A Ctrl-C may come at any moment of start-up, and start-up takes a few tenths of a
second (NumPy, the commands and their parsers).  So the first thing this module does,
before it imports anything heavy, is to make SIGINT end the process at once, quietly,
with the command line's status for it, 130: nothing has been done yet, so there is
nothing to undo or to say.  :func:`axisops.cli.main.main` hands SIGINT back to Python
once the command is parsed, just before it runs, and the command's own handling
(one line, temporary files removed) takes over.

Importing this module is starting the command, so nothing but the script and
``python -m`` imports it (nor does pytest's doctest collection: it skips
``__main__.py``).  Python's own start-up and ``import axisops`` (which imports almost
nothing) come before it; a Ctrl-C there is Python's.
"""

import contextlib
import os
import signal
import sys


def _start_up_interrupted(signum: int, frame: object) -> None:
    # An exit, not an exception: raised in a finalizer an exception would be printed
    # and ignored, and raised before entry() runs it would print a traceback.
    os._exit(130)


if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not if it is ignored
    with contextlib.suppress(ValueError):  # outside the main thread: not the start-up
        signal.signal(signal.SIGINT, _start_up_interrupted)

#: For the tests: ``"POINT:READY,GO"`` stops start-up at POINT (``import``: this module,
#: just after the handler; ``entry``: before the command line is imported; ``main``:
#: just before it runs), writes one byte to the file descriptor READY (``b"1"`` if
#: NumPy is imported already, else ``b"0"``) and waits for a byte on GO.
START_HOOK = "AXISOPS_TEST_START"

__all__ = ["START_HOOK", "entry"]


def _wait_for_the_test(point: str) -> None:
    where, _, fds = os.environ.get(START_HOOK, "").partition(":")
    if where != point:
        return
    ready, go = (int(fd) for fd in fds.split(","))
    os.write(ready, b"1" if "numpy" in sys.modules else b"0")
    os.read(go, 1)


_wait_for_the_test("import")


def entry() -> int:
    """Run the command line as the whole process; returns its exit status."""
    try:
        _wait_for_the_test("entry")
        from .cli.main import main

        _wait_for_the_test("main")
        return main(process=True)
    except KeyboardInterrupt:  # a second Ctrl-C while the command reported the first
        return 130


if __name__ == "__main__":
    sys.exit(entry())
