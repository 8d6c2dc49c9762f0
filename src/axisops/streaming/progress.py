"""The progress bar of long jobs: one line on stderr, never on stdout.

``mode=None`` (the command line's default) shows the bar only when stderr is
a terminal and the work has run for about a second (:data:`DELAY_SECONDS`),
so short runs and pipelines print nothing extra.  ``True`` (``--progress``)
forces it on, at once, even into a file or a pipe; ``False``
(``--no-progress``, and the Python API's default) turns it off.

A bar that was shown ends at 100% with the job, on a line of its own:
closing it draws the final state before the newline, whatever the redraw
interval skipped.  Sizes are in decimal units (kB, MB, GB: powers of 1000),
as disks and network links are sold.

A signal's message (:mod:`axisops.streaming.signals`) is printed while the
work runs, before the stack unwinds: :func:`stop_bars` first ends the line a
bar left open on a terminal and stops every bar, so the message starts on a
line of its own and no bar is drawn after it.
"""

from __future__ import annotations

import sys
import time
import weakref
from types import TracebackType
from typing import IO

__all__ = ["DELAY_SECONDS", "ProgressBar", "progress_bar", "size_text", "stop_bars"]

#: How long work runs before the default bar appears.
DELAY_SECONDS = 1.0
#: The least time between two redraws on a terminal.
REDRAW_SECONDS = 0.1
#: Characters of the bar itself.
WIDTH = 24
_UNITS = ("B", "kB", "MB", "GB", "TB", "PB")

#: Bars that may still draw (not closed, not disabled).
_LIVE: weakref.WeakSet[ProgressBar] = weakref.WeakSet()


def size_text(count: float, unit: str = "B") -> str:
    """``count`` for a person: bytes in decimal units, other units as plain counts.

    >>> size_text(2_000_000_000), size_text(999), size_text(1500), size_text(12, "block")
    ('2.0 GB', '999 B', '1.5 kB', '12 blocks')
    """
    if unit != "B":
        return f"{count:,.0f} {unit}{'' if count == 1 else 's'}"
    scaled, step = float(count), 0
    while scaled >= 1000 and step < len(_UNITS) - 1:
        scaled, step = scaled / 1000, step + 1
    return f"{scaled:.0f} B" if step == 0 else f"{scaled:.1f} {_UNITS[step]}"


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or not a real stream
        return False


class ProgressBar:
    """A one-line bar counting to ``total``; use it as a context manager and call
    :meth:`update`.  ``disable`` says it never draws; ``delay`` is how long work runs
    before it first does."""

    def __init__(self, total: int, *, unit: str, desc: str, stream: IO[str], disable: bool,
                 delay: float) -> None:
        self.total, self.unit, self.desc, self.stream = max(0, int(total)), unit, desc, stream
        self.disable, self.delay = disable, delay
        self.done = 0
        self._start = time.monotonic()
        self._drawn_at: float | None = None  # when the line was last drawn (None: never)
        self._terminal = _is_terminal(stream)
        self._line_open = False  # drawn on a terminal with no newline after it yet
        if not disable:
            _LIVE.add(self)

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close(finished=kind is None)

    def update(self, count: int) -> None:
        """Count ``count`` more units of work done."""
        self.done += count
        if self.disable:
            return
        now = time.monotonic()
        if now - self._start < self.delay:
            return
        if self._drawn_at is not None and now - self._drawn_at < REDRAW_SECONDS:
            return
        if self._drawn_at is not None and not self._terminal:
            return  # a file or a pipe gets the first line and the last, not every step
        self._draw(now, end="")

    def close(self, finished: bool = True) -> None:
        """End the bar: a bar that was drawn (or a forced one) draws its final state, at
        100% when the work is ``finished``, and ends its line."""
        _LIVE.discard(self)
        if self.disable:
            return
        if finished:
            self.done = max(self.done, self.total)
        if self._drawn_at is None and self.delay > 0:
            return  # the work ended before the bar was due: nothing was shown
        self._draw(time.monotonic(), end="\n")

    def stop(self) -> bool:
        """Never draw again; returns whether the bar's line was left open on a terminal."""
        _LIVE.discard(self)
        self.disable = True
        return self._line_open

    def _draw(self, now: float, end: str) -> None:
        self._drawn_at = now
        share = 1.0 if self.total == 0 else min(1.0, self.done / self.total)
        filled = round(share * WIDTH)
        elapsed = now - self._start
        rate = f", {size_text(self.done / elapsed, self.unit)}/s" if elapsed > 0 else ""
        line = (f"{self.desc + ': ' if self.desc else ''}{share:4.0%} "
                f"|{'#' * filled}{' ' * (WIDTH - filled)}| "
                f"{size_text(self.done, self.unit)} / {size_text(self.total, self.unit)} "
                f"[{elapsed:.1f} s{rate}]")
        if not self._terminal:
            self._write(line + "\n")
            return
        # Open before the write: a signal's message landing in between then starts with a
        # newline of its own, at worst below an empty line.
        self._line_open = True
        self._write(f"\r{line}\033[K{end}")
        self._line_open = not end

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # stderr closed: the job goes on without its bar
            self.disable = True


def stop_bars() -> bool:
    """Stop every bar that may still draw, for a message printed before the work unwinds.

    Returns whether a bar's line was left open on a terminal: the message then starts
    with a newline, to stand on a line of its own.

    >>> import io
    >>> class Terminal(io.StringIO):
    ...     def isatty(self):
    ...         return True
    >>> out = Terminal()
    >>> with progress_bar(100, True, desc="topk", stream=out) as bar:
    ...     bar.update(50)
    ...     stop_bars()
    True
    >>> out.getvalue().count("topk"), out.getvalue().endswith("\\n")
    (1, False)
    """
    open_line = False
    for bar in list(_LIVE):
        open_line = bar.stop() or open_line
    return open_line


def progress_bar(total: int, mode: bool | None, *, unit: str = "B", desc: str = "",
                 stream: IO[str] | None = None) -> ProgressBar:
    """A bar counting to ``total`` (bytes by default) on ``stream`` (stderr).

    ``mode`` is ``None`` (a terminal and work over a second), ``True`` (always,
    at once) or ``False`` (never).

    >>> import io
    >>> out = io.StringIO()
    >>> with progress_bar(2_000_000_000, True, desc="topk", stream=out) as bar:
    ...     bar.update(1_000_000_000)
    >>> out.getvalue().splitlines()[-1].startswith("topk: 100% |")
    True
    >>> "2.0 GB / 2.0 GB" in out.getvalue()
    True
    """
    stream = sys.stderr if stream is None else stream
    disable = not _is_terminal(stream) if mode is None else not mode
    return ProgressBar(total, unit=unit, desc=desc, stream=stream, disable=disable,
                       delay=DELAY_SECONDS if mode is None else 0.0)
