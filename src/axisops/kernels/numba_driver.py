"""From a validated spec to Numba kernel calls: strategy, outputs, threads.

The strategy for top-k depends on (n, k, layout) only, never on the data, and
every strategy returns the same bits; tests force each one through
:func:`topk` ``strategy=``.

Before any kernel runs, the kernels a call needs are passed to
:func:`.numba_cache.ensure`, which raises :class:`.numba_cache.NotReady` when
one is not compiled yet (the backend then answers through its fallback).  Each
call names its *job* (``topk:<strategy>:<key type>``,
``gather:<raw type>:<index type>``): the unit :mod:`.numba_jobs` compiles.
"""

from __future__ import annotations

import numpy as np

from ..config import get_num_threads
from ..errors import IndexOutOfRangeError
from ..validation import GatherSpec, TopKSpec, check_index_values
from . import numba_gather as kg
from . import numba_topk as kt
from .layout import Sequences, raw_dtype, sequences
from .numba_cache import dispatchers_in, ensure, install_safe_saves
from .numba_keys import key_plan
from .threads import run_parallel, split_range

__all__ = ["STRATEGIES", "choose_strategy", "gather", "topk"]

#: every strategy :func:`topk` takes; "split" is the scan of one long sequence cut
#: across threads (chosen by "scan" itself when there are fewer sequences than threads).
install_safe_saves(dispatchers_in(kt, kg))

STRATEGIES = ("insert", "scan", "radix", "columns", "split")

#: below this many elements a call runs on one thread (pool hand-off costs more).
_PARALLEL_MIN = 1 << 15
#: a sequence at least this long is split across threads when there are few of them.
_SPLIT_MIN = 1 << 17
#: rows of a column panel whose maxima are taken before any column is looked at.
_COLUMN_ROWS = 16


def choose_strategy(seqs: Sequences, k: int) -> str:
    """The fastest exact strategy for ``k`` of ``n`` in this layout (measured on 2 cores).

    - columns: many unit-stride-apart sequences and a small k (their sorted top-k
      by insertion); with a larger k the per-column compactions cost more than
      reading each sequence with a stride;
    - insert: short sequences;
    - radix: k above n / 16, where the scan's block bounds (one block max per
      16 elements) cannot filter;
    - scan: everything else.
    """
    n = seqs.n
    if (seqs.stride != 1 and seqs.inner_unit and seqs.inner >= 16 and k <= kt.SORTED_K
            and 8 * k < n):
        return "columns"
    if n <= 64 or (n <= 256 and k <= 16):
        return "insert"
    if 16 * k >= n:
        return "radix"
    return "scan"


def _empty(spec: TopKSpec) -> tuple[np.ndarray, np.ndarray]:
    return (np.empty(spec.out_shape, spec.out_dtype),
            np.empty(spec.out_shape, spec.index_dtype))


def topk(x: np.ndarray, spec: TopKSpec, *, strategy: str | None = None,
         segment: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Top-k of ``x`` for a validated ``spec`` (strategy and segment for tests)."""
    if spec.k == 0 or int(np.prod(spec.out_shape)) == 0:
        return _empty(spec)
    seqs = sequences(x, spec.axis)
    plan = key_plan(spec.out_dtype, spec.largest)
    strategy = strategy or choose_strategy(seqs, spec.k)
    if strategy == "columns" and not (seqs.inner_unit and seqs.inner > 1 and seqs.stride != 1):
        strategy = "scan"  # neighbouring sequences are not unit-stride apart
    if strategy == "scan" and _split(seqs):
        strategy = "split"
    values = np.empty(spec.out_shape, spec.out_dtype)
    indices = np.empty(spec.out_shape, np.int64)
    out_v = values.view(plan.utype).reshape(seqs.outer, spec.k, seqs.inner)
    out_i = indices.reshape(seqs.outer, spec.k, seqs.inner)
    if not segment:  # unit strides need no key tile, so longer segments pay off
        segment = kt.UNIT_SEGMENT if seqs.stride == 1 else kt.SEGMENT_BYTES // x.itemsize
    _RUNNERS[strategy](seqs, spec, plan, segment, out_v, out_i, f"topk:{strategy}:{plan.utype}")
    if spec.index_dtype != np.int64:
        indices = indices.astype(spec.index_dtype)
    return values, indices


def _row_tasks(seqs: Sequences, spec: TopKSpec) -> list[tuple[int, int]]:
    total = seqs.outer * seqs.inner
    parts = get_num_threads() if total * seqs.n >= _PARALLEL_MIN else 1
    return split_range(total, parts)


def _run_rows(kernel, seqs, spec, plan, extra, out_v, out_i, job):
    tasks = [(seqs.flat, seqs.offs, seqs.stride, seqs.n, spec.k, q0, q1, seqs.inner, *extra,
              *plan.consts(), out_v, out_i) for q0, q1 in _row_tasks(seqs, spec)]
    ensure([(kernel, tasks[0])], job)
    run_parallel(kernel, tasks)


def _insert(seqs, spec, plan, segment, out_v, out_i, job):
    _run_rows(kt.topk_insert_rows, seqs, spec, plan, (), out_v, out_i, job)


def _radix(seqs, spec, plan, segment, out_v, out_i, job):
    _run_rows(kt.topk_radix_rows, seqs, spec, plan, (), out_v, out_i, job)


def _scan(seqs, spec, plan, segment, out_v, out_i, job):
    _run_rows(kt.topk_scan_rows, seqs, spec, plan, (segment, spec.sorted), out_v, out_i, job)


def _split(seqs: Sequences) -> bool:
    """Whether the scan cuts sequences across threads: fewer sequences than threads,
    each long enough to be worth it."""
    return seqs.outer * seqs.inner < get_num_threads() and seqs.n >= _SPLIT_MIN


def _scan_split(seqs, spec, plan, segment, out_v, out_i, job):
    """Each long sequence in turn: every thread finds the k best of its part, then merge."""
    threads = max(2, get_num_threads())
    for q in range(seqs.outer * seqs.inner):
        _split_one(seqs, spec, plan, segment, q, threads, out_v, out_i, job)


def _split_one(seqs, spec, plan, segment, q, threads, out_v, out_i, job):
    k, base = spec.k, int(seqs.offs[q])
    parts = split_range(seqs.n, threads)
    cap = max(2 * k, 64)
    ckeys = np.empty(len(parts) * cap, plan.utype)
    cidx = np.empty(len(parts) * cap, np.int64)
    tasks = [(seqs.flat, base, seqs.stride, p0, p1, k, segment, *plan.consts(),
              ckeys[i * cap:(i + 1) * cap], cidx[i * cap:(i + 1) * cap])
             for i, (p0, p1) in enumerate(parts)]
    merge = (seqs.flat, base, seqs.stride, seqs.n, ckeys, cidx, 0, k, spec.sorted, q,
             seqs.inner, out_v, out_i)
    ensure([(kt.topk_scan_part, tasks[0]), (kt.merge_parts, merge)], job)
    counts = run_parallel(kt.topk_scan_part, tasks)
    keep = np.concatenate([np.arange(i * cap, i * cap + c) for i, c in enumerate(counts)])
    kt.merge_parts(seqs.flat, base, seqs.stride, seqs.n, ckeys[keep], cidx[keep], len(keep), k,
                   spec.sorted, q, seqs.inner, out_v, out_i)


def _columns(seqs, spec, plan, segment, out_v, out_i, job):
    threads = get_num_threads()
    panel = min(seqs.inner, 1024)
    if seqs.outer * -(-seqs.inner // panel) < threads:  # cut panels so every thread has one
        panel = max(16, -(-seqs.inner // threads))
    count = seqs.outer * -(-seqs.inner // panel)
    parts = threads if count * panel * seqs.n >= _PARALLEL_MIN else 1
    tasks = [(seqs.flat, seqs.offs, seqs.stride, seqs.n, spec.k, t0, t1, seqs.inner, panel,
              _COLUMN_ROWS, spec.sorted, *plan.consts(), out_v, out_i)
             for t0, t1 in split_range(count, parts)]
    ensure([(kt.topk_columns, tasks[0])], job)
    run_parallel(kt.topk_columns, tasks)


_RUNNERS = {"insert": _insert, "scan": _scan, "radix": _radix, "columns": _columns,
            "split": _scan_split}


def gather(x: np.ndarray, index: np.ndarray, spec: GatherSpec) -> np.ndarray:
    """Gather for a validated spec: one pass that checks each index value as it is used.

    There is no separate bounds pass: the kernel checks every value it turns
    into a position (see :mod:`axisops.kernels.numba_gather`), so no other
    thread rewriting ``index`` meanwhile can make it read outside ``x``.  When
    a value is out of range, nothing is returned: the error names the first
    offender in C order, or, when the index no longer holds one (it was
    changed during the call), where the kernel met one.
    """
    out = np.empty(spec.out_shape, spec.out_dtype)
    if out.size == 0:
        return out
    dim, n, m = spec.dim, spec.n, spec.index_shape[spec.dim]
    idx = sequences(index, dim, raw=False)
    extent = tuple(slice(None) if d == dim else slice(0, s) for d, s in enumerate(out.shape))
    xs = sequences(x[extent], dim)
    flat_out = out.view(raw_dtype(out.dtype)).reshape(-1)
    unit = xs.inner_unit and idx.inner_unit  # inner offsets consecutive in both
    parts = get_num_threads() if out.size >= _PARALLEL_MIN else 1

    tasks = [(xs.flat, xs.offs, xs.stride, np.int64(n), idx.flat, idx.offs, idx.stride, m, a, b,
              xs.inner, unit, flat_out) for a, b in split_range(out.size, parts)]
    ensure([(kg.gather_flat, tasks[0])], f"gather:{flat_out.dtype}:{idx.flat.dtype}")
    stops = [t for t in run_parallel(kg.gather_flat, tasks) if t >= 0]
    if stops:
        _raise_index_error(index, spec, min(stops))
    return out


def _raise_index_error(index: np.ndarray, spec: GatherSpec, stop: int) -> None:
    """The contract's error for an index the kernel stopped at (flat position ``stop``)."""
    check_index_values(index, spec)  # raises, naming the first offender in C order
    n, name = spec.n, spec.index_name
    where = ", ".join(str(int(p)) for p in np.unravel_index(stop, spec.index_shape))
    raise IndexOutOfRangeError(
        f"{spec.func}(): {name} held an out-of-range value at or after {name}[{where}] "
        f"when it was read, for {spec.dim_name} {spec.dim} of size {n}, but holds none "
        f"now (was it changed during the call?); need {-n} <= {name} <= {n - 1}"
    )
