"""Termination signals that unwind the stack, so temporary files are removed.

Two tools, with different owners:

- :func:`critical` sections belong to the jobs: creating a temporary file
  and registering its removal, or renaming a complete output into place, is
  never cut in two by a signal.  A section installs no handler; it blocks
  the signals for the calling thread for its few microseconds, so a signal
  arriving meanwhile (a default ``KeyboardInterrupt``, a SIGTERM) takes
  effect just after.  The Python API uses them, and so every output is
  complete or absent even in a program that handles no signal.
- :func:`exit_on_signals` belongs to the *process*: it replaces the
  handlers of SIGTERM, SIGHUP and SIGINT for the duration of a block.  The
  command line uses it; :func:`axisops.topk_file` and the rest never do
  (a library must not take over its caller's signals), but a program may
  opt in by wrapping its calls in it.

By default SIGTERM (and SIGHUP) kill Python without running ``finally``
blocks or context managers.  Inside :func:`exit_on_signals`, SIGTERM and
SIGHUP instead print one line and raise :class:`SystemExit` with the shell's
status for a signal (128 + its number), and SIGINT prints the same line and
raises :class:`Interrupted` (a ``KeyboardInterrupt``, exit status 130 from the
command line), so every temporary file is removed on the way out and nothing
appears under the requested name.

Four rules hold whenever the signal arrives:

- **Once.** The first signal prints the message and raises; later ones
  (a second Ctrl-C, a supervisor's repeated SIGTERM) are ignored, so the
  cleanup they would interrupt runs to the end and the message appears once.
- **Not in a critical section.** :func:`critical` marks code that must not be
  cut in two: creating a temporary file and registering its removal, or
  printing the result and renaming the output into place.  A signal that
  arrives inside is held (``signal.pthread_sigmask`` blocks it for this
  thread) and acted on when the section ends.  The mask alone is not enough:
  the kernel may hand a process-directed signal to another thread (a kernel
  pool's worker), whose C handler flags it for the main thread; so
  the Python handler also defers while a section is open.
- **Truthful.** The message says whether the output had already been put in
  place (:func:`output_committed`).
- **On a line of its own.** A progress bar drawing on the terminal is stopped
  first (:func:`~axisops.streaming.progress.stop_bars`): its line is ended
  before the message, and no bar is drawn after it.
- **Not lost.** A signal can arrive while Python runs code whose exceptions it
  cannot pass on (a weak reference's callback, such as the import system's
  module-lock cleanup, or a ``__del__``): Python would print the exception as
  "ignored" and carry on.  Inside :func:`exit_on_signals`, ``sys.unraisablehook``
  recognises the exception the handler raised, prints nothing, and has the
  signal delivered again from a helper thread, so that it takes effect in the
  main flow (the message is still printed once).

SIGKILL cannot be caught; :mod:`axisops.streaming.tempfiles` makes sure it leaves
nothing behind either.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from types import FrameType
from typing import Any

from .progress import stop_bars

__all__ = ["Interrupted", "critical", "exit_on_signals", "output_committed"]


class Interrupted(KeyboardInterrupt):
    """SIGINT inside :func:`exit_on_signals`; its message is already on stderr."""

    reported = True

_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT")
                 if hasattr(signal, name))


class _State:
    """What the handler needs to know; touched only by the main thread. The class's values
    are a fresh state (``exit_on_signals`` starts each block from them)."""

    depth = 0  # open critical sections
    pending: int | None = None  # a signal held until the sections close
    fired = False  # the first signal has been acted on
    announced = False  # its message is on stderr
    lost: int | None = None  # a signal whose exception Python could not pass on
    again: threading.Thread | None = None  # the helper delivering it again
    committed = False  # the output is in place


_STATE = _State()


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _fire(signum: int) -> None:
    _STATE.fired = True
    if not _STATE.announced:
        _STATE.announced = True
        name = signal.Signals(signum).name
        outcome = ("the output was already complete" if _STATE.committed
                   else "no output written")
        newline = "\n" if stop_bars() else ""  # end the bar's line, draw it no more
        # os.write, not print: the signal may have interrupted a write to sys.stderr.
        with contextlib.suppress(OSError):
            os.write(2, f"{newline}axisops: error: stopped by {name}; {outcome}\n".encode())
    error: BaseException = (Interrupted() if signum == getattr(signal, "SIGINT", None)
                            else SystemExit(128 + signum))
    error._axisops_signal = signum  # type: ignore[attr-defined]
    raise error


def _deliver_again(signum: int, main: int, avoid: set[Any]) -> None:
    """Sends ``signum`` to this process once the main thread (``main``) runs none of the
    code in ``avoid`` (the hook's, and that of the frames the lost exception came through),
    so that the handler raises where the exception can propagate. Those frames return
    within microseconds; after a second it is sent anyway (a lost signal is then lost
    again and comes back again), so that no wait for this thread can hang."""
    for _ in range(1000):
        frame = sys._current_frames().get(main)
        running = set()
        while frame is not None:
            running.add(frame.f_code)
            frame = frame.f_back
        if not running & avoid:
            break
        time.sleep(0.001)
    os.kill(os.getpid(), signum)


def _unraisable_hook(previous: Any) -> Any:
    """A ``sys.unraisablehook`` that delivers again a signal whose exception Python could
    not pass on (raised in a weak reference's callback or a ``__del__``), and hands every
    other exception to ``previous``."""

    def hook(unraisable: Any) -> None:
        signum = getattr(unraisable.exc_value, "_axisops_signal", None)
        if signum is None or not _STATE.fired:
            previous(unraisable)
            return
        # The next delivery raises again, where it can propagate; until then no critical
        # section starts (the message said what was in place: it must stay true).
        _STATE.fired, _STATE.lost = False, signum
        avoid = {hook.__code__}
        tb = unraisable.exc_traceback
        while tb is not None:
            avoid.add(tb.tb_frame.f_code)
            tb = tb.tb_next
        _STATE.again = threading.Thread(
            target=_deliver_again, args=(signum, threading.main_thread().ident, avoid),
            daemon=True)
        _STATE.again.start()

    return hook


def _handler(signum: int, frame: FrameType | None) -> None:
    if _STATE.fired:
        return
    if _STATE.depth:
        _STATE.pending = _STATE.pending or signum
        return
    _fire(signum)


def _takes_over(signum: int) -> bool:
    """Only signals left at their default action are taken over (not ``nohup``'s)."""
    current = signal.getsignal(signum)
    return current is signal.SIG_DFL or current is signal.default_int_handler


@contextlib.contextmanager
def exit_on_signals() -> Iterator[None]:
    """Within the block, termination signals print one line and unwind the stack.

    SIGTERM and SIGHUP raise ``SystemExit(128 + signum)``, SIGINT
    :class:`Interrupted`.  Only signals left at their default action are
    taken over, and the previous handlers are back when the block ends.
    The command line runs every job inside it; a Python program may too:

    >>> import axisops
    >>> with axisops.streaming.exit_on_signals():
    ...     pass  # axisops.topk_file(...): a SIGTERM now removes its temporary files

    Outside the main thread (where Python cannot install handlers) it does nothing.
    """
    if not _in_main_thread():
        yield
        return
    previous: dict[int, Any] = {}
    saved = dict(vars(_STATE))  # an outer block's; _State's defaults are a fresh state
    vars(_STATE).clear()
    previous_hook = sys.unraisablehook
    try:
        for s in _SIGNALS:
            if _takes_over(s):
                previous[s] = signal.signal(s, _handler)
        sys.unraisablehook = _unraisable_hook(previous_hook)
        yield
    finally:
        if _STATE.again is not None:  # its signal sent while this block's handler is in
            _STATE.again.join()
        sys.unraisablehook = previous_hook
        for s, handler in previous.items():
            signal.signal(s, handler)
        vars(_STATE).clear()
        vars(_STATE).update(saved)


def _mask(how: int, signals: Any) -> Any:
    if hasattr(signal, "pthread_sigmask"):
        return signal.pthread_sigmask(how, signals)
    return None


@contextlib.contextmanager
def critical() -> Iterator[None]:
    """A section no termination signal interrupts; one that arrives is acted on after.

    Sections nest.  In threads other than the main one (which never run
    Python signal handlers) it does nothing.

    >>> with critical():
    ...     pass  # create a temporary file and register its removal here
    """
    if not _in_main_thread():
        yield
        return
    if _STATE.lost is not None and not _STATE.fired:
        _fire(_STATE.lost)
    _STATE.depth += 1
    old = _mask(getattr(signal, "SIG_BLOCK", 0), _SIGNALS)
    try:
        yield
    finally:
        if old is not None:
            _mask(signal.SIG_SETMASK, old)
        _STATE.depth -= 1
        if not _STATE.depth and _STATE.pending is not None and not _STATE.fired:
            _fire(_STATE.pending)


def output_committed() -> None:
    """Note that the output is in place: a later signal's message says so."""
    if _in_main_thread():
        _STATE.committed = True
