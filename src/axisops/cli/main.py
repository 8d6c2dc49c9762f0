"""``axisops`` command line: entry point, parser and error reporting.

Each sub-command lives in its own module of this package with a
``register(subparsers)`` function that adds its parser and sets ``run``; the
``run`` function returns the exit status.  Usage errors exit 2 (argparse);
bad data exits 1 with one line on stderr; no traceback is ever shown unless
``AXISOPS_DEBUG=1`` is set.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from .._version import __version__
from ..errors import AxisOpsError
from .files import CLIError

__all__ = ["build_parser", "emit", "main"]

#: Modules of this package that each add one or more sub-commands.
COMMAND_MODULES = ("ops_commands", "info", "demo", "warmup", "bench")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="axisops",
        description="Exact, deterministic top-k and gather along an axis of .npy/.npz files.",
    )
    parser.add_argument("--version", action="version", version=f"axisops {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__package__}.{name}").register(sub)
    return parser


def emit(record: dict[str, Any]) -> None:
    """Print a job's record as the command's one JSON line on stdout."""
    print(json.dumps(record, sort_keys=False), flush=True)


def _fail(message: str, status: int = 1) -> int:
    print(f"axisops: error: {message}", file=sys.stderr, flush=True)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except (CLIError, AxisOpsError) as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except MemoryError:
        return _fail("out of memory")
    except BrokenPipeError:
        sys.stderr.close()
        return 1
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
    sys.exit(main())
