"""``axisops`` command line: entry point, parser and error reporting.

Each sub-command lives in its own module of this package with a
``register(subparsers)`` function that adds its parser and sets ``run``; the
``run`` function returns the exit status.  Usage errors exit 2 (argparse);
bad data exits 1 with one line on stderr (control characters escaped, long
messages cut); no traceback is ever shown unless ``AXISOPS_DEBUG=1`` is set.

A job's JSON line is printed just before its output is put in place: if
stdout cannot take it (a closed pipe, a full disk), the command exits 1 and
writes no output.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

from .._version import __version__
from ..errors import AxisOpsError
from ..streaming.errors import one_line
from .output import WORDS, CLIError, emit, silence_stdout

__all__ = ["WORDS", "CLIError", "build_parser", "emit", "main"]

#: Modules of this package that each add one or more sub-commands.
COMMAND_MODULES = (".ops_commands", ".info", ".demo", ".bench")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="axisops",
        description="Exact, deterministic top-k and gather along an axis of .npy, .npz and "
                    "zarr files of any size, read in chunks with bounded memory, and their "
                    "quantiles (quantile); also what "
                    "this installation runs (info), the documented examples run as files "
                    "(demo), and a benchmark against NumPy, torch, JAX and ONNX Runtime "
                    "(bench).",
        epilog="'axisops COMMAND --help' describes a command.",
    )
    parser.add_argument("--version", action="version", version=f"axisops {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                title="commands")
    for name in COMMAND_MODULES:
        importlib.import_module(name, __package__).register(sub)
    return parser


def _fail(message: str, status: int = 1) -> int:
    with contextlib.suppress(OSError, ValueError):
        print(f"axisops: error: {one_line(message)}", file=sys.stderr, flush=True)
    return status


def _set_sigint(handler: Any) -> None:
    """Make ``handler`` the process's SIGINT handler, unless SIGINT is ignored."""
    if threading.current_thread() is threading.main_thread() and (
            signal.getsignal(signal.SIGINT) is not signal.SIG_IGN):
        signal.signal(signal.SIGINT, handler)


def main(argv: Sequence[str] | None = None, *, process: bool = False) -> int:
    """Run the command line; returns the exit status.

    ``process`` says this is the whole process (the ``axisops`` script): a Ctrl-C
    during start-up has ended it quietly (:mod:`axisops.__main__`) until the command
    is parsed; from there to the end of the command it interrupts the command (one
    line, status 130); once the command is done it is ignored, as the interpreter's
    shutdown would otherwise print a traceback for it.
    """
    args = build_parser().parse_args(argv)
    if not os.environ.get("AXISOPS_DEBUG"):
        # zarr's event loop logs abandoned tasks after a read fails: not one line.
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    try:
        if process:
            _set_sigint(signal.default_int_handler)  # the command's own handling takes over
        status = int(args.run(args) or 0)
        if process:
            _set_sigint(signal.SIG_IGN)  # until here a SIGINT lands in the except below
        return status
    except AxisOpsError as exc:
        exc.spell(WORDS)
        return _fail(str(exc))
    except KeyboardInterrupt as exc:  # SIGINT: the job's handler may have said so already
        return 130 if getattr(exc, "reported", False) else _fail("interrupted", 130)
    except MemoryError:
        return _fail("out of memory")
    except BrokenPipeError:
        silence_stdout()
        return _fail("stdout: the reader went away")
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        return _fail(f"{where}{exc.strerror or exc}")
    except Exception as exc:
        if os.environ.get("AXISOPS_DEBUG"):
            raise
        return _fail(
            f"internal error: {type(exc).__name__}: {exc} (set AXISOPS_DEBUG=1 for details)"
        )


if __name__ == "__main__":
    sys.exit(main(process=True))
