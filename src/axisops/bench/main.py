"""``axisops bench``: axisops against its peers, in one process.

For every case it times the read floor, axisops and each installed peer on
the same inputs, checks axisops against the NumPy oracle bit for bit, prints
ratios to the floor and to the best peer with the case's targets, and, when
asked (``--json PATH``, ``--plot PATH``), writes JSON and a PNG chart.
``--memory`` also measures the peak extra memory of one top-k call on a 400 MB
input in subprocesses.  ``--frameworks`` runs the rows of axisops inside torch
and JAX programs instead (see :mod:`axisops.bench.frameworks`).  Peers that are
not installed are named and skipped, with the extra that installs them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from axisops import gather as ax_gather
from axisops import topk as ax_topk
from axisops.config import get_num_threads

from .cases import CASES, QUANTILES, SELECT_OPS, Case, make_index, make_input, quick_cases
from .memory import measure
from .peers import axisops_runner, floor_runner, missing_peers, peer_runners, select_k
from .report import PEERS, Table, case_record, header, machine, write_json, write_png
from .timing import IDLE_SECONDS, WARM_SECONDS, CaseTimes, time_case

__all__ = ["build_parser", "main", "run"]

#: (rows, n, k) of the memory measurement: 400 MB of float32 each.
MEMORY_SHAPES = ((1, 100_000_000, 1000), (10_000, 10_000, 100))


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    p = parser or argparse.ArgumentParser(prog="bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="every case at 1/10-1/100 size")
    p.add_argument("--cases", metavar="TEXT", default="",
                   help="only the cases whose name contains TEXT")
    p.add_argument("--repeats", type=int, default=None, help="timed calls per implementation")
    p.add_argument("--rounds", type=int, default=1,
                   help="time every case this many times, one round of all cases after "
                        "another, and report the median of all their calls (a noisy "
                        "machine's slow minutes then weigh on one round, not one row)")
    p.add_argument("--peers", default=",".join(PEERS),
                   help=f"comma-separated peers to time (default {','.join(PEERS)})")
    p.add_argument("--backend", default=None, help="axisops backend to time (default: auto)")
    p.add_argument("--json", metavar="PATH",
                   help="write the results as JSON to PATH (nothing is written unless asked)")
    p.add_argument("--plot", "--png", dest="png", metavar="PATH",
                   help="draw the chart into PATH (a PNG; needs matplotlib)")
    p.add_argument("--memory", action=argparse.BooleanOptionalAction, default=False,
                   help="also measure peak RSS growth on 400 MB inputs (subprocesses)")
    p.add_argument("--frameworks", action="store_true",
                   help="only the rows inside torch/JAX programs (op layer, router "
                        "fwd+bwd, jitted top-k) against the frameworks' own ops")
    return p


def _same(got: Any, want: Any) -> bool:
    if isinstance(got, tuple):
        return len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want))
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    return got.shape == want.shape and bool(np.array_equal(got.view(np.uint8),
                                                           want.view(np.uint8)))


def _exact_select(case: Case, x: np.ndarray, backend: str | None) -> bool:
    """A selection case against the oracles of axisops.reference, bit for bit."""
    from axisops import reference

    got = axisops_runner(case, backend).call((x, None))
    if case.op in ("quantile", "nanquantile"):
        from axisops.reference.quantile import quantile

        want = quantile(x, np.array(QUANTILES), case.axis, skipnan=case.op == "nanquantile")
        return _same(got, want)
    if case.op in ("sort", "partition"):
        got = (got, None)
    elif case.op in ("argsort", "argpartition"):
        got = (None, got)
    k = select_k(case, x.shape[case.axis])
    want = {"sort": lambda: (reference.sort(x, case.axis)[0], None),
            "argsort": lambda: (None, reference.argsort(x, case.axis)),
            "kthvalue": lambda: reference.kthvalue(x, k, case.axis),
            "median": lambda: reference.kthvalue(x, k, case.axis),
            "partition": lambda: (reference.partition(x, case.k, case.axis), None),
            "argpartition": lambda: (None, reference.argpartition(x, case.k, case.axis)),
            }[case.op]()
    return all(w is None or _same(g, w) for g, w in zip(got, want))


def _exact(case: Case, backend: str | None) -> bool:
    """axisops' answer on the first input copy against the NumPy oracle, bit for bit."""
    x = make_input(case, 0)
    if case.op in SELECT_OPS:
        return _exact_select(case, x, backend)
    if case.op == "gather":
        index = make_index(case, 0)
        got = ax_gather(x, case.axis, index, backend=backend)
        want = np.take_along_axis(x, index, case.axis)
        return bool(np.array_equal(got.view(np.uint8), want.view(np.uint8)))
    got = ax_topk(x, case.k, case.axis, largest=case.largest, backend=backend)
    want = ax_topk(x, case.k, case.axis, largest=case.largest, backend="numpy")
    return all(np.array_equal(a, b) for a, b in zip(got, want))


def run(args: argparse.Namespace, out: Any = sys.stdout) -> dict[str, Any]:
    """Run the selected cases; returns the JSON payload (also written to disk)."""
    if args.frameworks:
        from . import frameworks

        info = machine()
        print(header(info), file=out)
        payload = {"machine": info, "quick": args.quick,
                   "when": time.strftime("%Y-%m-%d %H:%M:%S"),
                   "frameworks": frameworks.run(out, args.quick, args.repeats)}
        _write(args, payload, [], out)
        return payload
    cases = [c for c in (quick_cases() if args.quick else CASES) if args.cases in c.name]
    repeats = args.repeats or (3 if args.quick else 9)
    wanted = tuple(p.strip() for p in args.peers.split(",") if p.strip())
    info = machine()
    rounds = max(1, args.rounds)
    print(header(info), file=out)
    print(f"# median of {repeats}" + (f" calls x {rounds} rounds" if rounds > 1 else "")
          + "; times in ms" + ("; quick: reduced shapes, no targets" if args.quick else ""),
          file=out)
    missing = missing_peers(wanted)
    if missing:
        print(f"# not installed, not timed: {', '.join(missing)}", file=out)
    table = Table([c.name for c in cases], tuple(p for p in PEERS if p in wanted))
    table.print_header(out)
    records, ours = [], {}
    for case, times in _timed(cases, args, wanted, repeats, rounds, out):
        ours[case.name] = times.seconds["axisops"]
        records.append(case_record(times, _exact(case, args.backend), ours.get(case.twin)))
        table.print_row(records[-1], out)
    memory = []
    if args.memory:
        impls = tuple(i for i in ("axisops", *wanted) if i in ("axisops", "numpy", "torch"))
        memory = measure(impls, MEMORY_SHAPES)
        print("\n# peak RSS growth of one top-k call (float32 input, outputs included)",
              file=out)
        for m in memory:
            print(f"{m['impl']:<8} {tuple(m.get('shape', ()))!s:<18} k={m.get('k')}: "
                  f"{m.get('peak_growth_mb')} MB for {m.get('input_mb')} MB in "
                  f"({m.get('growth_per_input')}x the input; outputs {m.get('output_mb')} MB)",
                  file=out)
    payload = {"machine": info, "repeats": repeats, "rounds": rounds, "quick": args.quick,
               "when": time.strftime("%Y-%m-%d %H:%M:%S"), "cases": records,
               "memory": memory}
    _write(args, payload, records, out)
    return payload


def _write(args: argparse.Namespace, payload: dict[str, Any], records: list[dict[str, Any]],
           out: Any) -> None:
    """The files asked for (``--json``, ``--plot``), and a line naming them."""
    written = []
    if args.json:
        write_json(args.json, payload)
        written.append(args.json)
    if args.png and records:
        title = (f"axisops bench on {payload['machine']['cpu']} "
                 f"({payload['machine']['threads']} threads)")
        if write_png(args.png, records, title):
            written.append(args.png)
        else:
            print(f"\nno chart {args.png}: pip install 'axisops[bench]'", file=out)
    if written:
        print(f"\nwrote {' and '.join(written)}", file=out)


def _timed(cases: list[Case], args: argparse.Namespace, wanted: tuple[str, ...], repeats: int,
           rounds: int, out: Any) -> Iterator[tuple[Case, CaseTimes]]:
    """Every case's times: as each is measured for one round, else merged over rounds
    (every call of every round, their median)."""
    idle, warm = (0.0, 0.0) if args.quick else (IDLE_SECONDS, WARM_SECONDS)
    merged: dict[str, CaseTimes] = {}
    for r in range(rounds):
        if rounds > 1:
            print(f"# round {r + 1} of {rounds}", file=out, flush=True)
        for case in cases:
            runners = [floor_runner(case), axisops_runner(case, args.backend),
                       *peer_runners(case, get_num_threads(), wanted)]
            times = time_case(case, runners, repeats, idle=idle, warm=warm)
            if rounds == 1:
                yield case, times
                continue
            into = merged.setdefault(case.name, CaseTimes(case, copies=times.copies))
            for name, samples in times.samples.items():
                into.samples.setdefault(name, []).extend(samples)
    for case in cases if rounds > 1 else ():
        times = merged[case.name]
        times.seconds = {n: statistics.median(s) for n, s in times.samples.items()}
        yield case, times


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
