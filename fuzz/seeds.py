#!/usr/bin/env python3
"""Writes the seed corpus, fuzz/corpus/<family>/<name>: inputs that decode (see the
harnesses' LLVMFuzzerTestOneInput and fuzz/*.hpp) to requests reaching each strategy.

The encoder below mirrors fuzz/input.hpp's reads, and each builder the order in which a
harness decodes its request; if a harness's decoding changes, the seeds still are valid
inputs (any bytes are) but may decode to other requests: rerun this script after changing
it, and check the paths the runs report (.ci/fuzz prints them).

    python3 fuzz/seeds.py
"""
from __future__ import annotations

import pathlib
import re
import struct

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"

# Tuning fields in the X-macro's order (fuzz_tuning picks "any field" by this index).
FIELDS = re.findall(r"X\((\w+),", (ROOT / "csrc/common/tuning.hpp").read_text()
                    .split("#define AXISOPS_TUNING", 1)[1].split("struct Tuning", 1)[0])

DTYPES = ["uint8", "int8", "bool", "uint16", "int16", "float16", "bfloat16", "uint32", "int32",
          "float32", "uint64", "int64", "float64"]
PATTERNS = ["random", "palette", "ascending", "descending", "runs", "sprinkled", "explicit",
            "narrow", "specials", "bumps"]


class Encoder:
    """Bytes that fuzz::Input reads back as the given choices."""

    def __init__(self) -> None:
        self.out = bytearray()

    def byte(self, v: int) -> None:
        self.out.append(v & 0xFF)

    def u16(self, v: int) -> None:
        self.out += struct.pack("<H", v)

    def u32(self, v: int) -> None:
        self.out += struct.pack("<I", v)

    def flag(self, v: bool) -> None:
        self.byte(1 if v else 0)

    def chance(self, num: int, v: bool) -> None:  # true when the byte is below num
        assert 0 < num < 256
        self.byte(0 if v else 255)

    def below(self, n: int, v: int) -> None:
        assert 0 <= v < max(n, 1)
        if n <= 1:
            return
        if n <= 256:
            self.byte(v)
        elif n <= 65536:
            self.u16(v)
        else:
            self.out += struct.pack("<Q", v)

    def in_(self, lo: int, hi: int, v: int) -> None:
        self.below(hi - lo + 1, v - lo)


def axis_length(e: Encoder, n: int) -> None:
    if n < 24:
        e.byte(n)
    elif n <= 320:
        e.byte(150)
        e.in_(24, 320, n)
    elif n <= 1200:
        e.byte(220)
        e.in_(320, 1200, n)
    else:
        e.byte(250)
        e.in_(1200, 4000, n)


def other_length(e: Encoder, n: int) -> None:
    if n == 0:
        e.byte(0)
    elif n == 1:
        e.byte(20)
    elif n <= 7:
        e.byte(72 + (n - 2 - 72 % 6) % 6)  # 2 + b % 6 == n
    else:
        e.byte(210)
        e.in_(8, 64, n)


def shape(e: Encoder, dims: list[int], axis: int) -> None:
    e.below(3, len(dims) - 1)
    e.below(len(dims), axis)
    for d, n in enumerate(dims):
        (axis_length if d == axis else other_length)(e, n)


def layout(e: Encoder, ndim: int, kind: str = "C") -> None:
    """C, F, or "reversed" (every dim negative), "broadcast" (the first dim stride 0),
    "stepped" (steps of 2)."""
    if kind == "C":
        e.byte(0)
    elif kind == "F":
        e.byte(4)
    else:  # mode 5: the identity permutation, each dim dressed
        e.byte(5)
        for d in range(ndim - 1, 0, -1):
            e.below(d + 1, d)  # swap with itself
        for o in range(ndim):  # innermost first
            d = ndim - 1 - o
            if kind == "reversed":
                e.byte(0xC0)
            elif kind == "broadcast":
                e.byte(0x30 if d == 0 else 0)
            else:  # stepped
                e.byte(0x03)


def tuning(e: Encoder, changes: dict[str, int]) -> None:
    if not changes:
        e.chance(40, True)
        return
    e.chance(40, False)
    e.below(13, len(changes))
    for name, value in changes.items():
        e.byte(255)  # any field, by index
        e.below(len(FIELDS), FIELDS.index(name))
        assert 1 <= value <= 4096, value  # written as least + below(4096): least is 0 or 1 here
        e.byte(3)
        e.below(4096, value - LEAST[name])


LEAST = {name: 0 for name in FIELDS}
for name, least in re.findall(r"X\((\w+),[^,]+,\s*([0-9]+),", (ROOT / "csrc/common/tuning.hpp")
                              .read_text()):
    LEAST[name] = int(least)


def values(e: Encoder, pattern: str, seed: int = 1, colours: int = 3, width: int = 4,
           bumps: tuple[int, int, int] = (16, 8, 7)) -> None:
    """The value pattern; `width` the narrow pattern's keys, `bumps` the bumps pattern's
    (run length, period, phase)."""
    e.below(10, PATTERNS.index(pattern))
    e.u32(seed)
    e.below(4, colours - 1)
    for c in range(colours):
        e.flag(c % 2 == 0)  # specials and random values alternately
        if c % 2 == 0:
            e.byte(c * 5 + 4)
    e.below(64, 7)   # runs of 8
    e.below(3, 0)    # step 1
    e.byte(64)       # a quarter specials when sprinkled
    e.below(8, width - 1)
    run, period, phase = bumps
    e.below(4096, run - 1)
    e.below(15, period - 2)
    e.below(period, phase)


def topk(dtype: str, dims: list[int], axis: int, k: int, *, largest: bool = True,
         sorted_: bool = True, threads: int = 1, strategy: str = "", segment: int = 0,
         lay: str = "C", tune: dict[str, int] | None = None, pattern: str = "random",
         **pattern_args) -> bytes:
    e = Encoder()
    e.below(13, DTYPES.index(dtype))
    shape(e, dims, axis)
    layout(e, len(dims), lay)
    n = dims[axis]
    e.flag(False)
    e.below(n, k - 1)
    e.flag(largest)
    e.chance(64, not sorted_)
    e.below(3, threads - 1)
    e.chance(100, bool(strategy))
    if strategy:
        e.below(6, ["insert", "scan", "radix", "columns", "split", "column-split"].index(strategy))
    e.chance(64, bool(segment))
    if segment:
        e.flag(False)
        e.in_(1, 2000, segment)
    tuning(e, tune or {})
    values(e, pattern, **pattern_args)
    return bytes(e.out)


def select_common(e: Encoder, threads: int, strategies: list[str], strategy: str,
                  segment: int) -> None:
    e.below(3, threads - 1)
    e.chance(100, bool(strategy))
    if strategy:
        e.below(len(strategies), strategies.index(strategy))
    e.chance(80, bool(segment))
    if segment:
        e.flag(False)
        e.in_(1, 2000, segment)


def sort(dtype: str, dims: list[int], axis: int, *, descending: bool = False, wanted: int = 3,
         threads: int = 1, strategy: str = "", segment: int = 0, lay: str = "C",
         tune: dict[str, int] | None = None, pattern: str = "random") -> bytes:
    e = Encoder()
    e.below(13, DTYPES.index(dtype))
    shape(e, dims, axis)
    layout(e, len(dims), lay)
    e.flag(descending)
    e.below(3, wanted - 1)
    select_common(e, threads, ["rows", "split"], strategy, segment)
    tuning(e, tune or {})
    values(e, pattern)
    return bytes(e.out)


def kth_k(e: Encoder, n: int, k: int) -> None:  # pick_k, 1-based
    e.byte(3)
    e.below(n, k - 1)


def kthvalue(dtype: str, dims: list[int], axis: int, k: int, *, threads: int = 1,
             strategy: str = "", segment: int = 0, lay: str = "C",
             tune: dict[str, int] | None = None, pattern: str = "random") -> bytes:
    e = Encoder()
    e.flag(True)
    e.below(13, DTYPES.index(dtype))
    shape(e, dims, axis)
    layout(e, len(dims), lay)
    kth_k(e, dims[axis], k)
    select_common(e, threads, ["rows", "split", "radix"], strategy, segment)
    e.byte(3)  # sigmas: the default
    tuning(e, tune or {})
    values(e, pattern)
    return bytes(e.out)


def partition(dtype: str, dims: list[int], axis: int, kths: list[int], *, wanted: int = 3,
              threads: int = 1, strategy: str = "", segment: int = 0, lay: str = "C",
              tune: dict[str, int] | None = None, pattern: str = "random") -> bytes:
    e = Encoder()
    e.flag(False)
    e.below(13, DTYPES.index(dtype))
    shape(e, dims, axis)
    layout(e, len(dims), lay)
    n = dims[axis]
    assert kths == sorted(set(kths)) and len(kths) <= min(n, 64)
    e.chance(200, False)
    e.below(min(n, 64), len(kths) - 1)
    for k in kths:
        kth_k(e, n, k + 1)
    e.below(3, wanted - 1)
    select_common(e, threads, ["rows", "split"], strategy, segment)
    e.byte(3)  # sigmas: the default
    tuning(e, tune or {})
    values(e, pattern)
    return bytes(e.out)


def gather(width: int, index: str, xdims: list[int], dim: int, idims: list[int], *,
           threads: int = 1, ahead: int = 0, task: int = 0, xlay: str = "C", ilay: str = "C",
           tune: dict[str, int] | None = None, bad: int = 0) -> bytes:
    e = Encoder()
    e.below(5, [1, 2, 4, 8, 16].index(width))
    e.below(8, ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64"].index(index))
    shape(e, xdims, dim)
    for d, m in enumerate(idims):
        if d == dim:
            e.flag(False)
            axis_length(e, m)
        elif m == xdims[d]:
            e.chance(160, True)
        else:
            e.chance(160, False)
            e.below(xdims[d] + 1, m)
    layout(e, len(xdims), xlay)
    layout(e, len(idims), ilay)
    e.below(3, threads - 1)
    if ahead == 0:
        e.byte(2)
    else:
        e.byte(0)
        e.in_(1, 300, ahead)
    e.chance(64, bool(task))
    if task:
        e.in_(1, 200, task)
    tuning(e, tune or {})
    e.u32(7)  # x's bytes
    e.below(4, bad)  # index: 0 all valid, 1-3 more and more bad values
    e.u32(11)
    return bytes(e.out)


# Tunings that let a few hundred elements reach the threads and the split paths.
THREADED = {"parallel_min": 1, "task_min": 1}
SEEDS = {
    "topk": {
        "insert-small": topk("float32", [3, 20], 1, 3),
        "insert-nan": topk("float16", [40], 0, 5, largest=False, pattern="specials"),
        "insert-words": topk("uint16", [2, 200], 1, 12, tune={"extract_max_k": 1}),
        "insert-pairs": topk("int64", [3, 50], 1, 3, pattern="palette"),
        "radix-words": topk("uint32", [2, 600], 1, 200, pattern="runs"),
        "scan-all-largest": topk("uint8", [2000], 0, 40, strategy="scan", pattern="specials"),
        "scan": topk("float64", [3, 600], 1, 20, threads=2, tune=THREADED),
        "scan-sampled": topk("int32", [2000], 0, 40, segment=16, pattern="ascending"),
        # 64 segments of 50, 8 of them sampled (the last of each 8), the only ones with large
        # values: the hoped-for bound lets in fewer than k, and the scan starts again
        "scan-rescan": topk("int32", [3200], 0, 64, strategy="scan", segment=50,
                            tune={"sample_k": 1}, pattern="bumps", width=1, bumps=(50, 8, 7)),
        "scan-banded": topk("uint16", [1500], 0, 60, strategy="scan", segment=200,
                            tune={"band_min_k": 1, "band_share": 1}),
        "radix": topk("int64", [2, 600], 1, 200, sorted_=False, pattern="narrow"),
        "split": topk("float32", [1200], 0, 10, threads=3, strategy="split",
                      tune={**THREADED, "topk_split_min": 64}),
        "columns": topk("bfloat16", [120, 32], 0, 4, pattern="palette"),
        "columns-pairs": topk("float64", [120, 32], 0, 5, largest=False),
        "column-split-fallback": topk("float32", [200, 20], 0, 3, threads=2,
                                      strategy="column-split",
                                      tune={"parallel_min": 1, "column_split_max_candidates": 1}),
        "columns-forced-large-k": topk("uint8", [200, 6], 0, 40, strategy="columns"),
        "column-split": topk("float32", [200, 20], 0, 3, threads=2,
                             tune={"parallel_min": 1, "column_split_min": 16}),
        "strided-reversed": topk("int16", [5, 300], 1, 7, lay="reversed", pattern="runs"),
        "broadcast": topk("bool", [4, 500], 1, 9, lay="broadcast"),
        "fortran": topk("uint64", [300, 3], 0, 12, lay="F", largest=False),
    },
    "sort": {
        "rows": sort("float32", [4, 100], 1, pattern="specials"),
        "rows-descending": sort("int8", [3, 50, 2], 1, descending=True, pattern="narrow"),
        "split-words": sort("uint16", [1500], 0, threads=2, strategy="split",
                            tune={**THREADED, "select_split_min": 64}),
        "split-pairs": sort("float64", [1200], 0, threads=3, strategy="split", segment=100,
                            tune=THREADED, pattern="sprinkled"),
        "split-small-parts": sort("bfloat16", [900], 0, strategy="split", segment=8,
                                  tune={"sort_parts_max": 32}),
        "values-only-stepped": sort("int64", [6, 200], 1, wanted=1, lay="stepped"),
        "indices-only-fortran": sort("bool", [300, 4], 0, wanted=2, lay="F"),
        "empty": sort("float32", [0, 5], 1),
    },
    "select": {
        "kth-rows": kthvalue("float32", [4, 300], 1, 150, pattern="sprinkled"),
        "kth-split": kthvalue("float64", [2000], 0, 700, threads=2, strategy="split",
                              segment=300, tune={**THREADED, "select_chunk": 64,
                                                 "kth_final": 16}),
        "kth-radix": kthvalue("uint32", [3, 800], 1, 5, strategy="radix", pattern="narrow"),
        "kth-small-tile": kthvalue("int16", [1000], 0, 999, tune={"tile_max": 100,
                                                                 "select_part": 64}),
        "kth-fortran": kthvalue("bfloat16", [500, 3], 0, 250, lay="F", pattern="palette"),
        "partition-rows": partition("int32", [5, 200], 1, [3, 50, 199]),
        "partition-one-split": partition("float16", [1500], 0, [700], threads=2,
                                         strategy="split", segment=200, tune=THREADED,
                                         pattern="specials"),
        "partition-many-split": partition("uint8", [900], 0, [0, 1, 2, 400, 898, 899],
                                          strategy="split", segment=128, pattern="runs"),
        "partition-values-reversed": partition("float64", [3, 400], 1, [10, 390], wanted=1,
                                               lay="reversed"),
    },
    "gather": {
        "rows": gather(4, "int64", [8, 100], 1, [8, 30]),
        "rows-ahead": gather(8, "int32", [4, 500], 1, [4, 200], ahead=64),
        "columns": gather(2, "int16", [50, 40], 0, [30, 40], threads=2,
                          tune={"parallel_min": 1, "gather_task_min": 16, "gather_block": 8}),
        "wide-elements": gather(16, "uint8", [100, 3], 0, [40, 3], xlay="F"),
        "bad-values": gather(1, "int8", [20, 6], 0, [50, 5], bad=2, task=7, threads=3),
        "unsigned-reversed": gather(4, "uint32", [6, 64], 1, [6, 64], xlay="reversed",
                                    ilay="stepped"),
        "broadcast": gather(8, "uint64", [3, 40, 5], 1, [3, 60, 5], xlay="broadcast"),
    },
}


# Inputs a fuzzing run found that reach paths no seed above reaches (chosen by the paths
# each reached, hex as the harnesses decode them today).
FOUND = {
    "select": {
        "found-band-hint-one-key":
            "fefefefefefefefefe00feffffff0000fefefefefefefefefefefefefefefefefefefefefefe01040104"
            "0025",
        "found-repeated-overflow-radix":
            "000200dc440200ff05000c011149de0005013100c0c0ff010333e90101010000000001010e0700",
        "found-missed-radix": "010c00fa2003",
        "found-parted-missed": "010400dcff020400010e07004003",
        "found-parted-repeated":
            "01f9005ca8022d8a5858585858585858585858585858585858585825",
        "found-parted-radix":
            "0120030000010200010225038000ff26030f0000490603f802010400010ef9ff4003",
        "found-parted-overflow":
            "fefefefefefefefefe00000000000000fefefefefefefefefefefefefefefefefefefefefefe01040104"
            "0025",
    },
}


def main() -> None:
    for family, found in FOUND.items():
        SEEDS[family].update({name: bytes.fromhex(h) for name, h in found.items()})
    for family, seeds in SEEDS.items():
        folder = CORPUS / family
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        for name, data in seeds.items():
            (folder / name).write_bytes(data)
        print(f"{folder.relative_to(ROOT)}: {len(seeds)} seeds")


if __name__ == "__main__":
    main()
