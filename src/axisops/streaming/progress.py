"""The progress bar of long jobs: tqdm on stderr, never on stdout.

``mode=None`` (the command line's default) shows the bar only when stderr is
a terminal and the work has run for about a second (tqdm's ``delay``), so
short runs and pipelines print nothing extra.  ``True`` (``--progress``)
forces it on, at once, even into a file or a pipe; ``False``
(``--no-progress``, and the Python API's default) turns it off.
"""

from __future__ import annotations

import sys
from typing import IO, Any

__all__ = ["DELAY_SECONDS", "progress_bar"]

#: How long work runs before the default bar appears.
DELAY_SECONDS = 1.0


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or not a real stream
        return False


def progress_bar(total: int, mode: bool | None, *, unit: str = "B", desc: str = "",
                 stream: IO[str] | None = None, leave: bool = False) -> Any:
    """A tqdm bar counting to ``total`` (bytes by default).

    ``mode`` is ``None`` (a terminal and work over a second), ``True`` (always)
    or ``False`` (never).  ``leave`` keeps the finished bar on screen.  Use it
    as a context manager and call ``update(n)``.

    >>> with progress_bar(10, False) as bar:
    ...     bar.update(10)
    """
    from tqdm import tqdm

    stream = sys.stderr if stream is None else stream
    disable = not _is_terminal(stream) if mode is None else not mode
    return tqdm(
        total=total,
        unit=unit,
        unit_scale=unit == "B",
        unit_divisor=1024 if unit == "B" else 1000,
        desc=desc or None,
        file=stream,
        disable=disable,
        delay=DELAY_SECONDS if mode is None else 0.0,
        leave=leave,
        dynamic_ncols=True,
    )
