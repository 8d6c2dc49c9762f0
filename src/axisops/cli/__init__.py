"""The ``axisops`` command line (see :mod:`axisops.cli.main`).

The process starts in :mod:`axisops.__main__`, which takes a Ctrl-C during start-up
before anything heavy is imported.
"""

from __future__ import annotations

__all__ = ["entry"]


def entry() -> int:
    """:func:`axisops.__main__.entry`, for ``axisops`` scripts installed when the
    command started here."""
    from ..__main__ import entry as start

    return start()
