"""From a validated spec to Numba kernel calls: strategy, outputs, threads.

The strategy for top-k depends on (n, k, layout) only, never on the data, and
every strategy returns the same bits; tests force each one through
:func:`topk` ``strategy=``.

Before any kernel runs, the kernels a call needs are passed to
:func:`.cache.ensure`, which raises :class:`.cache.NotReady` when
one is not compiled yet (the backend then answers through its fallback).  Each
call names its *job* (``topk:<strategy>:<key type>``,
``gather:<raw type>:<index type>``): the unit :mod:`.jobs` compiles.
"""

from __future__ import annotations

from functools import lru_cache
from math import prod

import numpy as np

from ...config import get_num_threads
from ...errors import IndexOutOfRangeError
from ...validation import GatherSpec, TopKSpec, check_index_values
from ..cpu_caches import data_cache_bytes
from ..layout import Sequences, raw_dtype, sequences
from ..threads import Balance, run_parallel, split_range
from . import columns as numba_columns
from . import gather as kg
from . import insert as numba_insert
from . import radix as numba_radix
from . import scan as numba_scan
from .cache import dispatchers_in, ensure, install_safe_saves
from .columns import merge_columns, topk_columns
from .insert import EXTRACT_MAX_K, PACKED_MAX_BYTES, topk_insert_rows
from .keys import key_plan
from .radix import topk_radix_rows
from .scan import SEGMENT_BYTES, UNIT_SEGMENT, merge_parts, topk_scan_rows
from .select import SORTED_K

__all__ = ["KERNEL_MODULES", "STRATEGIES", "choose_strategy", "gather",
           "gather_prefetch_distance", "topk"]

#: the modules whose kernels are cached on disk.
KERNEL_MODULES = (numba_insert, numba_scan, numba_radix, numba_columns, kg)
install_safe_saves(dispatchers_in(*KERNEL_MODULES))

#: every strategy :func:`topk` takes; "split" is the scan of a few long sequences, each
#: cut across threads (what "scan" becomes when there are fewer sequences than threads),
#: and "column-split" the columns with the axis cut across threads (what "columns"
#: becomes when there are fewer panels than threads).
STRATEGIES = ("insert", "scan", "radix", "columns", "split", "column-split")

#: below this many elements a call runs on one thread: handing work to the pool costs
#: about 20 us, the time to scan 32K elements.
PARALLEL_MIN = 1 << 15
#: a sequence at least this long is cut across threads when there are fewer sequences
#: than threads (each part then still reads 64K elements or more).
SPLIT_MIN = 1 << 17
#: rows of a column panel whose maxima are taken before any column is looked at
#: (measured, (10000, 1000) axis 0, 2 threads: k = 10 16 rows 5.8 ms, 32 rows 5.2;
#: k = 24-32 and ascending columns within 5% either way).
COLUMN_ROWS = 32
#: the most columns in one panel (one thread walks them together).
COLUMN_PANEL = 1024
#: with fewer panels than threads, the axis is cut across threads (each part walks every
#: column) when it is at least this long, rather than the panels narrowed: a thread's
#: cost is per row it visits, nearly whatever the panel's width (measured, (10000, 1000)
#: axis 0, k=10, one thread: a 1000-column panel 14.3 ms, two 500-column ones 28.7 ms).
COLUMN_SPLIT_MIN = 256
#: ... and k at most this: each part keeps its own k best, so the insertions grow with
#: the parts (measured, 2 threads, (10000, 1000) random, against narrowed panels: k = 1
#: 4.3 ms / 6.7, k = 4 4.5 / 7.5, k = 10 6.0 / 7.1, k = 16 7.4 / 9.5, k = 24 13.2 / 13.0,
#: k = 32 14.5 / 10.9; ascending columns, k = 10, 40% faster).  Its merge carries each
#: candidate's place in the low bits of its index: hence the bounds on n and on k times
#: the threads.
COLUMN_SPLIT_MAX_K = 16
COLUMN_SPLIT_MAX_N = 1 << 48
COLUMN_SPLIT_MAX_CANDIDATES = 1 << 15
#: the columns strategy serves at most this k: beyond, each column's sorted insertion
#: and compactions cost more than scanning its sequence with a stride (measured).
COLUMNS_MAX_K = SORTED_K
#: sequences up to this long always use the insert strategy ...
INSERT_MAX_N = 64
#: ... and up to this long when k is at most INSERT_SMALL_K: the scan's per-sequence
#: setup (block maxima, bounds) costs more than inserting every element.
INSERT_SMALL_N, INSERT_SMALL_K = 256, 16
#: sequences of packed keys (32 bits or fewer) up to this long also use the insert
#: strategy when k <= EXTRACT_MAX_K and k * n <= EXTRACT_MAX_WORK: its extraction costs
#: k * n / lanes whatever the data.  Measured, float32, 8M elements, 2 threads, ms
#: (extraction vs the route chosen before): (512, k=8) 3.97 vs 8.47 scan, (512, 16) 6.92
#: vs 14.1 scan, (1024, 16) 6.51 vs 7.91 scan, (1024, 32) 11.4 vs 12.2 scan, (128, 32)
#: 15.2 vs 33.1 radix, (100, 24) 15.1 vs 36.6 radix, (512, 64) 22.4 vs 24.3 radix,
#: (512, 48) transposed 22.6 vs 37.1 radix; one thread, (1536, 8) 1.48 vs 1.36 us a row
#: for the scan.  64-bit keys keep the limits above: their insertion is not branch-free,
#: and rising rows would cost it k * n moves.
EXTRACT_MAX_N = 1024
EXTRACT_MAX_WORK = 1 << 15
#: the radix sort from ``k >= n / RADIX_FRACTION``: the scan keeps one block maximum
#: per 16 elements, so above that share of k it cannot skip blocks.
RADIX_FRACTION = 16


def choose_strategy(seqs: Sequences, k: int) -> str:
    """The fastest exact strategy for ``k`` of ``n`` in this layout (measured on 2 cores).

    - columns: many unit-stride-apart sequences and a small k (their sorted top-k
      by insertion); "column-split" when they make fewer panels than threads;
    - insert: short sequences (and, for keys of 32 bits or fewer, sequences up to
      EXTRACT_MAX_N long with a moderate k);
    - radix: k large against n, where the scan's block bounds cannot filter;
    - scan: everything else ("split" when there are fewer sequences than threads).
    """
    n = seqs.n
    if (seqs.stride != 1 and seqs.inner_unit and seqs.inner >= 16 and k <= COLUMNS_MAX_K
            and 8 * k < n):
        return "column-split" if _column_split(seqs, k) else "columns"
    if n <= INSERT_MAX_N or (n <= INSERT_SMALL_N and k <= INSERT_SMALL_K) or _extracts(seqs, k):
        return "insert"
    if RADIX_FRACTION * k >= n:
        return "radix"
    return "split" if _split(seqs) else "scan"


def _extracts(seqs: Sequences, k: int) -> bool:
    """Whether the insert strategy's extraction serves these sequences (see
    EXTRACT_MAX_N)."""
    return (seqs.flat.itemsize <= PACKED_MAX_BYTES and k <= EXTRACT_MAX_K
            and seqs.n <= EXTRACT_MAX_N and k * seqs.n <= EXTRACT_MAX_WORK)


def _empty(spec: TopKSpec) -> tuple[np.ndarray, np.ndarray]:
    return (np.empty(spec.out_shape, spec.out_dtype),
            np.empty(spec.out_shape, spec.index_dtype))


def topk(x: np.ndarray, spec: TopKSpec, *, strategy: str | None = None,
         segment: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Top-k of ``x`` for a validated ``spec`` (strategy and segment for tests)."""
    if spec.k == 0 or prod(spec.out_shape) == 0:
        return _empty(spec)
    seqs = sequences(x, spec.axis)
    plan = key_plan(spec.out_dtype, spec.largest)
    strategy = strategy or choose_strategy(seqs, spec.k)
    if strategy in ("columns", "column-split") and not (
            seqs.inner_unit and seqs.inner > 1 and seqs.stride != 1):
        strategy = "scan"  # neighbouring sequences are not unit-stride apart
    values = np.empty(spec.out_shape, spec.out_dtype)
    indices = np.empty(spec.out_shape, np.int64)
    out_v = values.view(plan.utype).reshape(seqs.outer, spec.k, seqs.inner)
    out_i = indices.reshape(seqs.outer, spec.k, seqs.inner)
    if not segment:  # unit strides need no key tile, so longer segments pay off
        segment = UNIT_SEGMENT if seqs.stride == 1 else SEGMENT_BYTES // x.itemsize
    _RUNNERS[strategy](seqs, spec, plan, segment, out_v, out_i, f"topk:{strategy}:{plan.name}")
    if spec.index_dtype != np.int64:
        indices = indices.astype(spec.index_dtype)
    return values, indices


#: per job, how much more than an even part the calling thread takes (see
#: :class:`~axisops.kernels.threads.Balance`): for the strategies whose parts are
#: independent ranges of sequences or output elements.
_BALANCES: dict[str, Balance] = {}


def _balanced(job: str, total: int, parts: int,
              unit: int) -> tuple[list[tuple[int, int]], Balance]:
    balance = _BALANCES.get(job)
    if balance is None:
        balance = _BALANCES.setdefault(job, Balance())
    return balance.split(total, parts, unit), balance


def _run_rows(kernel, seqs, spec, plan, extra, out_v, out_i, job):
    total = seqs.outer * seqs.inner
    parts = get_num_threads() if total * seqs.n >= PARALLEL_MIN else 1
    ranges, balance = _balanced(job, total, parts, seqs.n)
    tasks = [(seqs.flat, seqs.offs, seqs.stride, seqs.n, spec.k, q0, q1, seqs.inner, *extra,
              *plan.consts(), out_v, out_i) for q0, q1 in ranges]
    ensure([(kernel, tasks[0])], job)
    run_parallel(kernel, tasks, (balance, ranges[0][1], total, seqs.n))


def _insert(seqs, spec, plan, segment, out_v, out_i, job):
    _run_rows(topk_insert_rows, seqs, spec, plan, (), out_v, out_i, job)


def _radix(seqs, spec, plan, segment, out_v, out_i, job):
    _run_rows(topk_radix_rows, seqs, spec, plan, (), out_v, out_i, job)


def _scan(seqs, spec, plan, segment, out_v, out_i, job):
    _run_rows(topk_scan_rows, seqs, spec, plan, (segment, spec.sorted), out_v, out_i, job)


def _split(seqs: Sequences) -> bool:
    """Whether the scan cuts sequences across threads: fewer sequences than threads,
    each long enough to be worth it."""
    return seqs.outer * seqs.inner < get_num_threads() and seqs.n >= SPLIT_MIN


def _scan_split(seqs, spec, plan, segment, out_v, out_i, job):
    """Each sequence in turn, cut into one part per thread: every part is scanned as a
    sequence of its own (its k best, sorted), then :func:`merge_parts` merges them.

    The calling thread's part is the larger by what a :class:`Balance` learned of the
    pool's later start (measured, 2 threads, (1, 10M) k=1000: float16 1.53 -> 1.39 ms,
    float32 2.12 -> 1.93, against even parts)."""
    parts, balance = _balanced(job, seqs.n, max(2, get_num_threads()), 1)
    bounds = np.cumsum([0] + [min(spec.k, p1 - p0) for p0, p1 in parts])
    for q in range(seqs.outer * seqs.inner):
        base = int(seqs.offs[q])
        cvals = np.empty(bounds[-1], plan.utype)
        cidx = np.empty(bounds[-1], np.int64)
        tasks = []
        for (p0, p1), b0, b1 in zip(parts, bounds[:-1], bounds[1:]):
            offs = np.array([base + p0 * seqs.stride], np.int64)
            tasks.append((seqs.flat, offs, seqs.stride, p1 - p0, b1 - b0, 0, 1, 1, segment,
                          True, *plan.consts(), cvals[b0:b1].reshape(1, -1, 1),
                          cidx[b0:b1].reshape(1, -1, 1)))
        merge = (cvals, cidx, bounds, spec.k, q, seqs.inner, *plan.consts(), out_v, out_i)
        ensure([(topk_scan_rows, tasks[0]), (merge_parts, merge)], job)
        run_parallel(topk_scan_rows, tasks, (balance, parts[0][1], seqs.n, 1))
        for (p0, _), b0, b1 in zip(parts, bounds[:-1], bounds[1:]):
            cidx[b0:b1] += p0
        merge_parts(*merge)


def _panels(seqs: Sequences, panel: int = COLUMN_PANEL) -> int:
    """How many panels of at most ``panel`` columns the sequences make."""
    return seqs.outer * -(-seqs.inner // min(seqs.inner, panel))


def _column_split(seqs: Sequences, k: int) -> bool:
    """Whether the columns cut the axis across threads: fewer full panels than threads,
    the axis long enough, a small k, and the call big enough for threads at all."""
    threads = get_num_threads()
    return (threads > 1 and _panels(seqs) < threads
            and COLUMN_SPLIT_MIN <= seqs.n < COLUMN_SPLIT_MAX_N and k <= COLUMN_SPLIT_MAX_K
            and threads * k < COLUMN_SPLIT_MAX_CANDIDATES
            and seqs.outer * seqs.inner * seqs.n >= PARALLEL_MIN)


def _columns_split(seqs, spec, plan, segment, out_v, out_i, job):
    """The axis cut into one part per thread, each part walked by :func:`topk_columns`
    over every column (its k best per column, unsorted), then :func:`merge_columns`
    merges each sequence's candidates (the sequences shared among threads)."""
    threads = max(2, get_num_threads())
    panel = min(seqs.inner, COLUMN_PANEL)
    count = _panels(seqs)
    tasks, found = [], []
    for p0, p1 in split_range(seqs.n, threads):
        kp = min(spec.k, p1 - p0)
        values = np.empty((seqs.outer, kp, seqs.inner), plan.utype)
        where = np.empty((seqs.outer, kp, seqs.inner), np.int64)
        tasks.append((seqs.flat, seqs.offs + p0 * seqs.stride, seqs.stride, p1 - p0, kp, 0,
                      count, seqs.inner, panel, COLUMN_ROWS, False, *plan.consts(), values,
                      where))
        found.append((p0, values, where))
    m = sum(w.shape[1] for _, _, w in found)
    cidx = np.empty((seqs.outer, m, seqs.inner), np.int64)
    cvals = np.empty((seqs.outer, m, seqs.inner), plan.utype)
    merges = [(cvals, cidx, spec.k, q0, q1, seqs.inner, spec.sorted, *plan.consts(), out_v,
               out_i) for q0, q1 in split_range(seqs.outer * seqs.inner, threads)]
    ensure([(topk_columns, tasks[0]), (merge_columns, merges[0])], job)
    run_parallel(topk_columns, tasks)
    np.concatenate([where + p0 for p0, _, where in found], axis=1, out=cidx)
    np.concatenate([values for _, values, _ in found], axis=1, out=cvals)
    run_parallel(merge_columns, merges)


def _columns(seqs, spec, plan, segment, out_v, out_i, job):
    threads = get_num_threads()
    panel = min(seqs.inner, COLUMN_PANEL)
    if _panels(seqs) < threads:  # cut panels so every thread has one
        panel = max(16, -(-seqs.inner // threads))
    count = _panels(seqs, panel)
    parts = threads if count * panel * seqs.n >= PARALLEL_MIN else 1
    tasks = [(seqs.flat, seqs.offs, seqs.stride, seqs.n, spec.k, t0, t1, seqs.inner, panel,
              COLUMN_ROWS, spec.sorted, *plan.consts(), out_v, out_i)
             for t0, t1 in split_range(count, parts)]
    ensure([(topk_columns, tasks[0])], job)
    run_parallel(topk_columns, tasks)


_RUNNERS = {"insert": _insert, "scan": _scan, "radix": _radix, "columns": _columns,
            "split": _scan_split, "column-split": _columns_split}


def gather_prefetch_distance(x_bytes: int) -> int:
    """How many reads ahead gather prefetches from an ``x`` spanning ``x_bytes``: none
    when ``x`` fits in half of one core's L2 (the other half goes to the index and
    output streams), whose lines come back fast enough that the hints are pure cost,
    else :data:`.gather.PREFETCH_DISTANCE`.

    Measured on Zen 4 (1 MiB L2), one thread, a million random reads: the hints cost
    12-15% for ``x`` of 4-128 KiB, 3-7% at 256-384 KiB, break even at 512 KiB, and
    save 7% at 768 KiB, 10% at 1 MiB, 35% at 4 MiB and 50% from 16 MiB.
    """
    return kg.PREFETCH_DISTANCE if 2 * x_bytes > data_cache_bytes(2) else 0


def gather(x: np.ndarray, index: np.ndarray, spec: GatherSpec) -> np.ndarray:
    """Gather for a validated spec: one pass that checks each index value as it is used.

    There is no separate bounds pass: the kernel checks every value it turns
    into a position (see :mod:`axisops.kernels.numba.gather`), so no other
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
    parts = get_num_threads() if out.size >= PARALLEL_MIN else 1
    ahead = gather_prefetch_distance(xs.flat.nbytes)
    job = _gather_job(flat_out.dtype, idx.flat.dtype)
    ranges, balance = _balanced(job, out.size, parts, 1)
    tasks = [(xs.flat, xs.offs, xs.stride, np.int64(n), idx.flat, idx.offs, idx.stride, m, a, b,
              xs.inner, unit, ahead, flat_out) for a, b in ranges]
    ensure([(kg.gather_flat, tasks[0])], job)
    stops = [t for t in run_parallel(kg.gather_flat, tasks, (balance, ranges[0][1], out.size, 1))
             if t >= 0]
    if stops:
        _raise_index_error(index, spec, min(stops))
    return out


@lru_cache(maxsize=64)
def _gather_job(raw: np.dtype, index: np.dtype) -> str:
    return f"gather:{raw}:{index}"  # memoised: str() of a dtype costs microseconds


def _raise_index_error(index: np.ndarray, spec: GatherSpec, stop: int) -> None:
    """The contract's error for an index the kernel stopped at (flat position ``stop``)."""
    check_index_values(index, spec)  # raises, naming the first offender in C order
    n, name = spec.n, spec.index_name
    where = ", ".join(str(int(p)) for p in np.unravel_index(stop, spec.index_shape))
    raise IndexOutOfRangeError(
        f"{name} held an out-of-range value at or after {name}[{where}] "
        f"when it was read, for {spec.dim_name} {spec.dim} of size {n}, but holds none "
        f"now (was it changed during the call?); need {-n} <= {name} <= {n - 1}"
    )
