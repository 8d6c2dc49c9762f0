"""What every command of the command line shares: its words, its one-line errors, its
JSON line.  (:mod:`axisops.cli.main` imports the commands, which import this.)"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import Any

from ..errors import AxisOpsError, Words

__all__ = ["WORDS", "CLIError", "emit", "silence_stdout"]

#: How the command line names the arguments of the file jobs in messages.
WORDS = Words({"key": "--key", "index_key": "--index-key", "chunk_bytes": "--chunk-bytes",
               "scheduler": "--scheduler"},
              labels={"path": "INPUT", "index": "INDEX", "out": "output"},
              options={"out": "-o"}, flags=True)


class CLIError(AxisOpsError):
    """A problem only a command has (its stdout, the demo's folder): one line, exit status 1."""


def silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's last flush cannot fail too."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


def emit(record: dict[str, Any]) -> None:
    """Print a job's record as the command's one JSON line on stdout.

    Raises :class:`CLIError` when stdout cannot take it.
    """
    try:
        print(json.dumps(record, sort_keys=False), flush=True)
    except OSError as exc:
        silence_stdout()
        raise CLIError(f"stdout: cannot print the result ({exc.strerror or exc}); "
                       f"no output written") from None
