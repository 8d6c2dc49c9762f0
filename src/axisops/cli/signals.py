"""Termination signals that unwind the stack, so temporary outputs are removed.

By default SIGTERM (and SIGHUP) kill Python without running ``finally``
blocks or context managers, which would leave a half-written temporary file
behind.  Inside :func:`exit_on_signals` they raise :class:`SystemExit` with the
shell's status for a signal (128 + its number) instead, so
:func:`axisops.cli.files.atomic_output` removes its temporary file and nothing
appears under the requested name.  SIGINT already raises KeyboardInterrupt.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

__all__ = ["exit_on_signals"]

_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def _raise_exit(signum: int, frame: FrameType | None) -> None:
    name = signal.Signals(signum).name
    print(f"axisops: error: stopped by {name}; no output written", file=sys.stderr, flush=True)
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def exit_on_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise ``SystemExit(128 + signum)``.

    Only signals left at their default action are taken over.

    Outside the main thread (where Python cannot install handlers) it does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # A signal someone chose to ignore (``nohup``) or handle stays theirs.
    previous = {s: signal.signal(s, _raise_exit) for s in _SIGNALS
                if signal.getsignal(s) is signal.SIG_DFL}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
