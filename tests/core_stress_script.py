"""Long rows of few distinct values at the core's size switches, against an oracle (run as a
script, one fresh process per length, by test_core_safety.py).

For one row length n (chosen around a default threshold: 2^17 where a selection is cut
across threads, 300000, 2^22 where a row is always cut) and 1, 2, 3, 6 and 255 distinct
values, every key width, 1 and 2 threads: sort, argsort (both directions), kthvalue,
median, partition, argpartition and top-k (small and large k) of the row equal the
stable order of the values' labels, computed once per (n, distinct values).

    python core_stress_script.py N
"""

from __future__ import annotations

import sys

import numpy as np

import axisops

DISTINCT = (1, 2, 3, 6, 255)
#: one dtype per key width (signed, float16, float32, int64)
DTYPES = (np.int8, np.float16, np.float32, np.int64)


def _values(labels: np.ndarray, dtype) -> np.ndarray:
    """The labels mapped to ``dtype`` by an increasing map (so they order alike)."""
    if np.dtype(dtype).kind == "f":
        return ((labels.astype(np.float64) - 100) / 4).astype(dtype)
    return (labels.astype(np.int64) - 128).astype(dtype)


class Oracle:
    """Every answer for one row of labels, from its two stable orders."""

    def __init__(self, labels: np.ndarray):
        self.n = labels.size
        self.up = np.argsort(labels, kind="stable")
        self.down = np.argsort(-labels.astype(np.int64), kind="stable")
        self.rank = np.empty(self.n, np.int64)
        self.rank[self.up] = np.arange(self.n)

    def argpartition(self, kth: int) -> np.ndarray:
        lower = np.flatnonzero(self.rank < kth)
        upper = np.flatnonzero(self.rank > kth)
        return np.concatenate([lower, self.up[kth:kth + 1], upper])


def _same(got, want, what: str) -> None:
    """Bit for bit."""
    got, want = np.asarray(got).ravel(), np.asarray(want).ravel()
    if got.dtype != want.dtype:
        raise AssertionError(f"{what}: dtype {got.dtype}, want {want.dtype}")
    bits = np.dtype(f"u{got.itemsize}")
    if not np.array_equal(got.view(bits), want.view(bits)):
        bad = np.flatnonzero(got.view(bits) != want.view(bits))
        raise AssertionError(f"{what}: {bad.size} differences, first at {bad[:3]}")


def check(n: int) -> None:
    rng = np.random.default_rng(n)
    for distinct in DISTINCT:
        labels = rng.integers(0, distinct, n).astype(np.int64)
        oracle = Oracle(labels)
        wanted = {kth: oracle.argpartition(kth) for kth in (0, (n - 1) // 2, n - 1)}
        many = _many(oracle, wanted)
        kths = (0, (n - 1) // 2, n - 1)
        for dtype in DTYPES:
            x = _values(labels, dtype)[None]
            row = x[0]
            for threads in (1, 2):
                axisops.set_num_threads(threads)
                what = f"n={n} distinct={distinct} {np.dtype(dtype)} threads={threads}"
                _same(axisops.argsort(x)[0], oracle.up, f"argsort {what}")
                _same(axisops.argsort(x, descending=True)[0], oracle.down,
                      f"argsort descending {what}")
                _same(axisops.sort(x)[0], row[oracle.up], f"sort {what}")
                for k in (1, n // 3 + 1, n):
                    got = axisops.kthvalue(x, k)
                    _same(got.indices, oracle.up[k - 1:k], f"kthvalue k={k} {what}")
                _same(axisops.median(x).indices, oracle.up[(n - 1) // 2: (n - 1) // 2 + 1],
                      f"median {what}")
                for kth in kths:
                    want = wanted[kth]
                    _same(axisops.argpartition(x, kth)[0], want, f"argpartition {kth} {what}")
                _same(axisops.partition(x, kths[1])[0], row[wanted[kths[1]]],
                      f"partition {what}")
                _same(axisops.argpartition(x, list(kths))[0], many, f"argpartition many {what}")
                for k in (10, n // 64 + 1):
                    top = axisops.topk(x, k)
                    _same(top.indices[0], oracle.down[:k], f"topk k={k} {what}")
                    low = axisops.topk(x, k, largest=False)
                    _same(low.indices[0], oracle.up[:k], f"topk smallest k={k} {what}")


def _many(oracle: Oracle, kths) -> np.ndarray:
    """argpartition at several positions: each group between them in index order."""
    cuts = sorted(set(kths))
    out = []
    lo = 0
    for kth in cuts:
        out.append(np.flatnonzero((oracle.rank >= lo) & (oracle.rank < kth)))
        out.append(oracle.up[kth:kth + 1])
        lo = kth + 1
    out.append(np.flatnonzero(oracle.rank >= lo))
    return np.concatenate(out)


if __name__ == "__main__":
    check(int(sys.argv[1]))
    print("ok", flush=True)
