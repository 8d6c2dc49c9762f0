"""Ratios, targets and output: the printed table, the JSON record, the PNG chart."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path
from typing import Any

import numpy as np

from axisops import __version__
from axisops.config import get_num_threads

from .cases import Target
from .timing import CaseTimes

__all__ = ["PARTIAL_PEERS", "PEERS", "Table", "case_record", "header", "machine",
           "write_json", "write_png"]

PEERS = ("numpy", "numpy-default", "torch", "jax", "ort")
#: Peers that give less than axisops (no order among equal elements, or none): shown
#: beside the others, never the best peer a target is held to.
PARTIAL_PEERS = frozenset({"numpy-default"})


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    """The machine and software the figures come from: the CPU model, the compiled
    core's instruction-set level, the levels this CPU runs, its compiler and build
    (:func:`axisops.engines.cpu.describe`, less its pool's workers, which vary)."""
    from axisops.engines import cpu

    core = {k: v for k, v in cpu.describe().items() if k != "pool_workers"}
    versions = {"axisops": __version__, "numpy": np.__version__,
                "python": platform.python_version(),
                "axisops_core": f"{core['isa']}, {core['compiler']}"}
    for name in ("torch", "jax", "onnxruntime"):
        try:
            from importlib.metadata import version

            versions[name] = version(name)
        except Exception:
            continue
    return {"cpu": _cpu_model(), "core": core, "cpus": os.cpu_count(),
            "threads": get_num_threads(), "platform": platform.platform(),
            "versions": versions}


def header(info: dict[str, Any]) -> str:
    """The run's first line: the machine, and the core's level among those the CPU runs.

    >>> header({"cpu": "AMD EPYC", "cpus": 2, "threads": 2, "core": {"isa": "avx2",
    ...     "isa_available": ["avx2", "avx512"], "compiler": "GNU 12.2.0", "build": "Release"}})
    '# AMD EPYC, 2 CPUs, 2 threads; core avx2 (this CPU runs avx2, avx512), GNU 12.2.0 Release'
    """
    core = info["core"]
    return (f"# {info['cpu']}, {info['cpus']} CPUs, {info['threads']} threads; core "
            f"{core['isa']} (this CPU runs {', '.join(core['isa_available'])}), "
            f"{core['compiler']} {core['build']}")


def _reference(target: Target, t: dict[str, float]) -> float | None:
    """The time ``target`` holds axisops' to: its peer's, or for ``"best"`` the fastest
    of the peers that give what axisops gives (None: not timed)."""
    if target.peer != "best":
        return t.get(target.peer or "")
    full = [s for p, s in t.items() if p in PEERS and p not in PARTIAL_PEERS]
    return min(full) if full else None


def _check(target: Target, t: dict[str, float], twin: float | None
           ) -> tuple[str, bool | None]:
    """The measured value(s) of ``target`` as text, and whether any part of it holds."""
    ours = t["axisops"]
    shown, verdicts = [], []
    if target.min_speedup is not None:
        ref = _reference(target, t)
        if ref is not None:
            shown.append(f"{ref / ours:.2f}x")
            verdicts.append(ref / ours >= target.min_speedup)
    if target.max_floor is not None:
        shown.append(f"{ours / t['floor']:.2f} floor")
        verdicts.append(ours / t["floor"] <= target.max_floor)
    if target.max_twin is not None and twin is not None:
        shown.append(f"{ours / twin:.2f}x random")
        verdicts.append(ours / twin <= target.max_twin)
    if not verdicts:
        return "n/a (peer not installed)", None
    return ", ".join(shown), any(verdicts)


def case_record(ct: CaseTimes, exact: bool | None, twin: float | None = None
                ) -> dict[str, Any]:
    """Everything measured for one case, with ratios and target verdicts; ``twin`` is
    axisops' time on the case's random-data twin, when it has one."""
    t = ct.seconds
    peers = {p: t[p] for p in PEERS if p in t and p not in PARTIAL_PEERS}
    best = min(peers, key=peers.__getitem__) if peers else None
    targets = []
    for target in ct.case.targets:
        value, met = _check(target, t, twin)
        targets.append({"target": target.describe(), "value": value, "met": met})
    return {
        "case": ct.case.name,
        "op": ct.case.op,
        "shape": list(ct.case.shape),
        "dtype": ct.case.dtype,
        "k": ct.case.k,
        "axis": ct.case.axis,
        "largest": ct.case.largest,
        "pattern": ct.case.pattern,
        "input_bytes": ct.case.nbytes,
        "copies": ct.copies,
        "seconds": t,
        "x_floor": {name: s / t["floor"] for name, s in t.items()},
        "best_peer": best,
        "speedup_vs_best_peer": (peers[best] / t["axisops"]) if best else None,
        "twin": ct.case.twin or None,
        "x_twin": (t["axisops"] / twin) if twin else None,
        "exact": exact,
        "targets": targets,
    }


def _ms(s: float | None) -> str:
    return "-" if s is None else f"{s * 1e3:.2f}"


#: The table's numeric columns after the case: (heading, least width).
_TIMES = (("floor", 9), ("axisops", 9), ("x floor", 7))


class Table:
    """The printed table: every column as wide as its heading and its widest entry
    (the case names are known before the first row is timed)."""

    def __init__(self, names: list[str], peers: tuple[str, ...] = PEERS) -> None:
        self.peers = peers
        self.widths = [max([len("case"), *map(len, names)]),
                       *(max(least, len(head)) for head, least in _TIMES),
                       *(max(9, len(p)) for p in peers), len("vs best") + 1]

    def _line(self, first: str, cells: list[str], last: str) -> str:
        name = first.ljust(self.widths[0])
        numbers = " ".join(c.rjust(w) for c, w in zip(cells, self.widths[1:]))
        return f"{name} {numbers}  {last}".rstrip()

    def print_header(self, out: Any) -> None:
        """The heading: times in ms, axisops as a multiple of the floor, speed-up."""
        heads = [head for head, _ in _TIMES] + list(self.peers) + ["vs best"]
        head = self._line("case", heads, "targets")
        print(head, file=out)
        print("-" * len(head), file=out)

    def print_row(self, r: dict[str, Any], out: Any) -> None:
        """One case's line."""
        t = r["seconds"]
        speed = r["speedup_vs_best_peer"]
        verdicts = "; ".join(_verdict(v) for v in r["targets"])
        exact = "  NOT EXACT" if r["exact"] is False else ""
        cells = [_ms(t["floor"]), _ms(t["axisops"]), f"{r['x_floor']['axisops']:.2f}",
                 *(_ms(t.get(p)) for p in self.peers),
                 "-" if speed is None else f"{speed:.1f}x"]
        print(self._line(r["case"], cells, verdicts + exact), file=out)


def _verdict(v: dict[str, Any]) -> str:
    if v["met"] is None:
        return f"{v['target']}: {v['value']}"
    return f"{v['target']}: {v['value']} {'ok' if v['met'] else 'MISS'}"


def write_json(path: str, payload: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps(payload, indent=1) + "\n")


def write_png(path: str, records: list[dict[str, Any]], title: str) -> bool:
    """A bar chart of every implementation's time as a multiple of the floor."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    names = ["axisops", *PEERS]
    fig, ax = plt.subplots(figsize=(12, 0.45 * len(records) + 1.5))
    height = 0.8 / len(names)
    for j, name in enumerate(names):
        ys = [i + j * height for i in range(len(records))]
        xs = [r["x_floor"].get(name, np.nan) for r in records]
        ax.barh(ys, xs, height=height, label=name)
    ax.set_yticks([i + 0.4 - height / 2 for i in range(len(records))])
    ax.set_yticklabels([r["case"] for r in records], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel("time / read floor (one np.max pass over the same bytes); lower is better")
    ax.set_title(title, fontsize=9)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
