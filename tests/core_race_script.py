"""The compiled core's selection, sort and top-k while another thread rewrites the input
(run as a script by test_core_safety.py, and under AddressSanitizer by .ci/sanitize).

The kernels run without the GIL and read their input in several passes (a band pass, then
a radix select's histograms, a count, a locate; a selection, then a placing pass). A
writer thread flips the input between two states of class labels meanwhile (NumPy copies,
which release the GIL too). Every call must return well-formed results (indices inside
the sequence, every output written) or raise the core's InputChanged, and never read or
write outside an array (which ASan would report, and which before the fix corrupted the
heap). Results are not compared with an oracle: the input had no single state.

    python core_race_script.py ROUNDS THREADS [THREADS ...]
"""

from __future__ import annotations

import sys
import threading

import numpy as np

import axisops
from axisops import _core
from axisops.engines import cpu

#: Small enough that rows of a few thousand elements take the parted paths.
TUNING = dict(parallel_min=64, task_min=8, select_split_min=256, tile_max=2048,
              select_part=512, select_chunk=64, kth_final=32, row_cap_min=32, row_cap_share=4,
              parted_cap_min=16, parted_cap_share=8, parted_block=96, kth_sample_max=64)


def _flip(target: np.ndarray, states: list[np.ndarray], stop: threading.Event) -> None:
    at = 0
    while not stop.is_set():
        np.copyto(target, states[at % len(states)])
        at += 1


def _check_indices(i: np.ndarray, n: int, name: str) -> None:
    if i.size and not ((i >= 0) & (i < n)).all():
        raise AssertionError(f"{name}: an index outside [0, {n}): {i[(i < 0) | (i >= n)][:5]}")


def _calls(x: np.ndarray):
    """(name, call, check) for each kernel: the check of a returned result."""
    n = x.shape[-1]
    yield "kthvalue", lambda: cpu.kthvalue(x, 1, n // 2 + 1), lambda r: _check_indices(
        r[1], n, "kthvalue")
    yield "kthvalue-radix", lambda: cpu.kthvalue(x, 1, n // 3 + 1, strategy="radix"), \
        lambda r: _check_indices(r[1], n, "kthvalue-radix")
    yield "kthvalue-split", lambda: cpu.kthvalue(x, 1, n // 2 + 1, strategy="split"), \
        lambda r: _check_indices(r[1], n, "kthvalue-split")
    for strategy in ("rows", "split"):
        yield f"argpartition-{strategy}", lambda s=strategy: cpu.partition(
            x, 1, [n // 2], False, True, strategy=s), lambda r: _check_permutation(r[1], n)
        yield f"partition-many-{strategy}", lambda s=strategy: cpu.partition(
            x, 1, [1, n // 3, n - 2], False, True, strategy=s), \
            lambda r: _check_permutation(r[1], n)
        yield f"argsort-{strategy}", lambda s=strategy: cpu.sort(
            x, 1, False, False, True, strategy=s), lambda r: _check_permutation(r[1], n)
    yield "topk", lambda: axisops.topk(x, 50, backend="cpu"), lambda r: _check_indices(
        r.indices, n, "topk")


def _check_permutation(i: np.ndarray, n: int) -> None:
    """Each row of a partition's or sort's indices is a permutation of range(n): every
    element went to exactly one place (a write past a segment would break this)."""
    _check_indices(i, n, "indices")
    if not (np.sort(i, axis=-1) == np.arange(n)).all():
        raise AssertionError("a row's indices are not a permutation")


def run(rounds: int, threads: int) -> str:
    axisops.set_num_threads(threads)
    rng = np.random.default_rng(threads)
    shape = (2, 6000)
    states = [rng.integers(0, 6, shape).astype(np.int32), np.zeros(shape, np.int32),
              rng.integers(0, 1 << 20, shape).astype(np.int32)]
    x = states[0].copy()
    counts = []
    with _core.tuned(**TUNING):
        for name, call, check in _calls(x):
            stop = threading.Event()
            writer = threading.Thread(target=_flip, args=(x, states, stop), daemon=True)
            writer.start()
            returned = refused = 0
            try:
                for _ in range(rounds):
                    try:
                        result = call()
                    except RuntimeError as e:  # the core's InputChanged
                        if "the input changed while it was read" not in str(e):
                            raise
                        refused += 1
                        continue
                    check(result)
                    returned += 1
            finally:
                stop.set()
                writer.join()
            counts.append(f"{name}={returned}/{refused}")
    return " ".join(counts)


if __name__ == "__main__":
    rounds = int(sys.argv[1])
    for threads in sys.argv[2:]:
        print(f"threads={threads}", run(rounds, int(threads)), flush=True)
