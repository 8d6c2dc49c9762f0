"""``python -m axisops.kernels.numba.compile [--background] JOB...``: fill the kernel cache.

This is the process :mod:`.cache` starts when a call needs a kernel that
is not compiled yet (``--background``: at low priority), and what each worker
of ``axisops warmup`` runs.  It compiles each job (see :mod:`.jobs`)
into Numba's on-disk cache, or loads it when another process got there first,
and prints each job's name when it is done.  One job failing does not stop the
others; the exit status is 1 if any failed.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

__all__ = ["compile_jobs", "main"]


def compile_jobs(jobs: Sequence[str], *, report: bool = False) -> list[str]:
    """Compile ``jobs`` in this process (sync mode); returns those that failed.

    ``report`` prints each job's name on stdout once it is done.
    """
    from ... import config
    from . import jobs as numba_jobs

    config.set_compile_mode("sync")
    failed = []
    for job in jobs:
        try:
            numba_jobs.run(job)
        except Exception as exc:  # report and go on with the others
            print(f"axisops: compiling {job} failed: {type(exc).__name__}: {exc}",
                  file=sys.stderr, flush=True)
            failed.append(job)
        else:
            if report:
                print(job, flush=True)
    return failed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m axisops.kernels.numba.compile")
    parser.add_argument("--background", action="store_true",
                        help="run at low priority (a call is waiting for nothing)")
    parser.add_argument("jobs", nargs="*", help="jobs such as topk:scan:uint32")
    args = parser.parse_args(argv)
    if args.background and hasattr(os, "nice"):
        os.nice(10)
    return 1 if compile_jobs(args.jobs, report=True) else 0


if __name__ == "__main__":
    sys.exit(main())
