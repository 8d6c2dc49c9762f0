"""Gather while another thread rewrites the index (run as a script by test_cpu_gather.py).

One thread keeps overwriting stretches of ``index`` with one of three states:
two valid ones (A and B) and one whose every value is out of range, wildly or
by one.  The main thread gathers meanwhile.  Every call must either return,
element by element, what A or B would give, or raise IndexOutOfRangeError;
reading outside ``x`` would crash the process or return values ``x`` does not
hold at that place.  Prints one line of counts and exits 0 when all is well.

The writer's copies (NumPy's memmove, ``rep movsb`` on some CPUs) are not
atomic per element: a read racing with one can see an index value whose bytes
come partly from one state and partly from another (seen in CI: 994 and -320
read as -286, whose low byte is 994's and the rest -320's).  Such a value is
as real as any other: the kernel must check it and, when it is in range, gather
with it.  So an element that is neither A's nor B's passes only when it is
``x`` at that element's own row or column, at a position along the axis whose
index value is, byte by byte, a mix of the three states there.

    python gather_race_script.py ROUNDS api:THREADS [directml:THREADS ...]
"""

from __future__ import annotations

import itertools
import sys
import threading

import numpy as np

import axisops
from axisops.engines import cpu
from axisops.errors import IndexOutOfRangeError


def _invalid(rng, n, dtype, size):
    """Out-of-range values for an index of ``dtype`` into an axis of ``n``."""
    info = np.iinfo(dtype)
    near = [n, n + 1] + ([-n - 1, -n - 2] if info.min < 0 else [])
    wild = [info.max, info.max - 3, n + 2**30 if info.max > 2**31 else info.max // 2]
    if info.min < 0:
        wild += [info.min, info.min + 7, -n - 2**20]
    else:
        wild += [2**63 + 5] if info.max > 2**63 else []
    return rng.choice(np.array(near + wild, dtype=dtype), size=size)


def _cases(rng):
    """(name, x, dim, A, B, bad, layout) for each kernel path."""
    x2 = np.arange(64 * 1000, dtype=np.int64).reshape(64, 1000)
    x1 = np.arange(300_000, dtype=np.int64)
    specs = [
        ("rows", x2, 1, (64, 4096), np.int64, "C"),
        ("columns", x2, 0, (256, 1000), np.int64, "C"),
        ("strided", x2, 1, (64, 4096), np.int32, "F"),
        ("unsigned", x2, 1, (64, 4096), np.uint64, "C"),
        ("flat", x1, 0, (300_000,), np.int64, "C"),
    ]
    for name, x, dim, shape, dtype, layout in specs:
        n = x.shape[dim]
        low = 0 if np.iinfo(dtype).min == 0 else -n
        a, b = (rng.integers(low, n, size=shape).astype(dtype) for _ in range(2))
        bad = _invalid(rng, n, dtype, shape)
        if layout == "F":
            a, b, bad = (np.asfortranarray(v) for v in (a, b, bad))
        yield name, x, dim, a, b, bad


def _torn(x, dim, at, got, states) -> bool:
    """Whether ``got``, output element ``at``, is ``x`` read along ``dim`` at ``at``'s
    own place, with an index value built byte by byte from ``states`` there (the
    index values A, B and bad at ``at``).  ``x`` holds ``arange``, so ``got`` is its
    own flat position in ``x``."""
    if not 0 <= got < x.size:
        return False
    where = np.unravel_index(int(got), x.shape)
    if any(where[d] != at[d] for d in range(x.ndim) if d != dim):
        return False
    w, n, dtype = int(where[dim]), x.shape[dim], states[0].dtype
    values = [w, w - n] if np.iinfo(dtype).min < 0 else [w]
    written = np.array([s[at] for s in states], dtype).view(np.uint8).reshape(len(states), -1)
    for v in values:
        read = np.array([v], dtype).view(np.uint8)
        if all(read[i] in written[:, i] for i in range(read.size)):
            return True
    return False


def _check(name, x, dim, got, want, states) -> int:
    """Exits naming the first element that is neither A's, B's nor a torn read's; the
    count of torn reads otherwise."""
    same = (got == want[0]) | (got == want[1])
    torn = 0
    for at in map(tuple, np.argwhere(~same)):
        if not _torn(x, dim, at, got[at], states):
            sys.exit(f"{name}: element {at} is {got[at]}, "
                     f"neither {want[0][at]} nor {want[1][at]} nor a torn read of the index")
        torn += 1
    return torn


def _flat(a):
    view = a.ravel(order="K")
    assert np.shares_memory(view, a)
    return view


def _mutate(index, states, bad, stop, seed):
    """Until ``stop``: plant a short stretch of ``bad`` values, then overwrite a longer
    stretch around it with one of the valid ``states``."""
    rng = np.random.default_rng(seed)
    target, sources, wrong = _flat(index), [_flat(s) for s in states], _flat(bad)
    size = target.size
    while not stop.is_set():
        start = int(rng.integers(0, size))
        end = min(size, start + int(rng.integers(1, max(2, size // 64))))
        target[start:end] = wrong[start:end]
        src = sources[rng.integers(0, len(sources))]
        start, end = max(0, start - size // 16), min(size, end + size // 16)
        target[start:end] = src[start:end]


def _gather_directml(x, dim, index):
    """The same gather through the DirectML facade's GATHER_ELEMENTS execute."""
    from axisops import directml as dml

    types = {np.dtype(np.int64): dml.TensorDataType.INT64,
             np.dtype(np.int32): dml.TensorDataType.INT32,
             np.dtype(np.uint64): dml.TensorDataType.UINT64}
    if x.shape[:dim] + x.shape[dim + 1:] != index.shape[:dim] + index.shape[dim + 1:]:
        x = x[tuple(slice(0, s) if d != dim else slice(None) for d, s in enumerate(index.shape))]
        x = np.ascontiguousarray(x)
    strides = tuple(s // index.itemsize for s in index.strides)
    xd = dml.BufferTensorDesc(dml.TensorDataType.INT64, x.shape)
    idd = dml.BufferTensorDesc(types[index.dtype], index.shape, strides=strides)
    od = dml.BufferTensorDesc(dml.TensorDataType.INT64, index.shape)
    device = dml.create_device()
    op = device.compile_operator(device.create_operator(
        dml.GatherElementsOperatorDesc(xd, idd, od, axis=dim)))
    out = np.full(index.shape, -1, np.int64)
    try:
        op.execute([x, index], [out])
    except dml.DMLError as exc:
        if exc.hresult != dml.E_INVALIDARG or not (out == -1).all():
            raise
        raise IndexOutOfRangeError(exc.message) from None
    return out


def _alternate_prefetching() -> None:
    """Every other gather prefetches, whatever the size of ``x`` against the caches, so
    each case runs through both copy loops."""
    calls = itertools.count()
    cpu.gather_prefetch_distance = lambda x_bytes: cpu.PREFETCH_DISTANCE * (next(calls) % 2)


def race(cases, iterations: int, caller) -> str:
    """Each case's gathers while a thread rewrites its index; a line of
    ``case=returned/refused`` (and ``torn=``, the elements gathered with a torn index
    value, when there were any).  ``caller(x, dim, a)`` gives the call to make, a function
    of the index (``a`` is index state A, for what the call prepares once per case)."""
    counts = []
    for name, x, dim, a, b, bad in cases:
        call = caller(x, dim, a)
        want_a = axisops.gather(x, dim, a, backend="numpy")
        want_b = axisops.gather(x, dim, b, backend="numpy")
        index = a.copy(order="K")
        stop = threading.Event()
        mutator = threading.Thread(target=_mutate, args=(index, (a, b), bad, stop, 1),
                                   daemon=True)
        mutator.start()
        returned = refused = torn = 0
        try:
            for _ in range(iterations):
                try:
                    got = call(index)
                except IndexOutOfRangeError:
                    refused += 1
                    continue
                torn += _check(name, x, dim, got, (want_a, want_b), (a, b, bad))
                returned += 1
        finally:
            stop.set()
            mutator.join()
        counts.append(f"{name}={returned}/{refused}" + (f" torn={torn}" if torn else ""))
    return " ".join(counts)


def run(iterations: int, threads: int, directml: bool) -> str:
    """Every case with ``threads`` kernel threads, through the public function or the
    DirectML facade (see :func:`race`)."""
    axisops.set_num_threads(threads)
    gather = _gather_directml if directml else axisops.gather
    return race(_cases(np.random.default_rng(13)), iterations,
                lambda x, dim, a: lambda index: gather(x, dim, index))


if __name__ == "__main__":
    rounds = int(sys.argv[1])
    _alternate_prefetching()
    for mode in sys.argv[2:]:  # "api:THREADS" or "directml:THREADS"
        kind, _, threads = mode.partition(":")
        print(mode, run(rounds, int(threads), kind == "directml"), flush=True)
