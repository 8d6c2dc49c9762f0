"""Compile every CPU kernel ahead of use, in parallel, and say what is cached.

Kernels are compiled with ``cache=True``, so each is compiled once per machine
(per Numba cache folder) and loaded by later processes.  :func:`warmup` runs
the jobs of :mod:`.jobs` that are not cached yet in worker processes (one
per CPU by default), with a progress bar; :func:`cache_status` counts cached
and missing kernels without compiling anything.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from typing import Any

from ...config import cpu_count

__all__ = ["cache_dir", "cache_status", "warmup"]


def _kernels(jobs: Iterable[str]) -> dict[str, list[tuple[Any, tuple]]]:
    """Each job's kernels, as ``(dispatcher, signature)`` pairs (nothing is compiled)."""
    from .cache import signature
    from .jobs import launches

    return {job: [(kernel, signature(kernel, args)) for kernel, args in launches(job)]
            for job in jobs}


def _count(found: dict[str, list[tuple[Any, tuple]]]) -> tuple[int, int]:
    """``(kernels, cached)``: distinct kernels (jobs share some), and how many are cached."""
    from .cache import has_signature

    unique = {pair for pairs in found.values() for pair in pairs}
    return len(unique), sum(has_signature(kernel, sig) for kernel, sig in unique)


def cache_dir() -> str:
    """The folder Numba keeps axisops' compiled kernels in."""
    from . import scan as numba_scan
    from .cache import cache_path

    return str(cache_path(numba_scan.topk_scan_rows))


def cache_status(dtypes: Iterable[Any] | None = None) -> dict[str, Any]:
    """How many of the kernels :func:`warmup` compiles are cached (nothing is compiled).

    >>> status = cache_status(["uint8"])
    >>> status["kernels"] == status["cached"] + status["not_cached"]
    True
    """
    from .jobs import jobs_for

    total, cached = _count(_kernels(jobs_for(dtypes)))
    return {"cache_dir": cache_dir(), "kernels": total, "cached": cached,
            "not_cached": total - cached}


def _compile_one(job: str) -> list[str]:
    from .compile import compile_jobs

    return compile_jobs([job])


def warmup(dtypes: Iterable[Any] | None = None, *, workers: int | None = None,
           progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Compile (or load) every kernel that serves ``dtypes`` (None: every type).

    Jobs whose kernels are all cached already are skipped; the others run in
    ``workers`` processes (default: one per CPU).  ``progress(done, total)`` is
    called with kernel counts as they are ready.  Returns what was done.
    """
    from .cache import has_signature
    from .jobs import jobs_for

    start = time.perf_counter()
    found = _kernels(jobs_for(dtypes))
    total, before = _count(found)
    todo = [job for job, pairs in found.items() if not all(has_signature(*p) for p in pairs)]
    failed: list[str] = []
    workers = max(1, min(workers or cpu_count(), len(todo) or 1))
    if progress:
        progress(before, total)
    if todo:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            futures = [pool.submit(_compile_one, job) for job in todo]
            for future in as_completed(futures):
                failed += future.result()
                if progress:
                    progress(_count(found)[1], total)
    cached = _count(found)[1]
    return {
        "seconds": round(time.perf_counter() - start, 3),
        "kernels": total,
        "cached_before": before,
        "compiled": cached - before,
        "cached": cached,
        "failed": failed,
        "workers": workers if todo else 0,
        "cache_dir": cache_dir(),
    }


