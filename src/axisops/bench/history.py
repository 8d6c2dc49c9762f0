"""The tables of the performance page, made from the benchmark's JSON files.

``docs/figures/history/`` holds one ``axisops bench --json`` file per full run, named
``bench-YYYY-MM-DD-HHMM-COMMIT[-NOTE].json`` by the date and time it ran and the commit
it measured.  :func:`history_table` makes one row per run; :func:`current_table` makes
the full table of the current run (``docs/figures/bench.json``), or says there is none.
``python -m axisops.bench.history docs/figures`` writes them as markdown snippets beside
the JSON files (``history.md``, ``current.md``, and ``numba.md``: the table of the last
run of the Numba kernels), which the performance page includes; a test checks that the
snippets are what the JSON files say.

>>> parse_name("bench-2026-12-05-2200-bac9896-numba.json")
('2026-12-05 22:00', 'bac9896', 'numba')
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["current_table", "history_table", "parse_name", "write_snippets"]

NAME = re.compile(
    r"^bench-(\d{4}-\d{2}-\d{2})-(\d{2})(\d{2})-([0-9a-f]{7,40})(?:-([\w-]+))?\.json$")
PEERS = ("numpy", "torch", "jax", "ort")
#: Every peer column, in order: those of PEERS always, the others where a run timed them.
COLUMNS = ("numpy", "numpy-default", "torch", "jax", "ort")
NO_CURRENT = ("*No current table yet: it is written by* `axisops bench --rounds 3 --json "
              "docs/figures/bench.json --plot docs/figures/bench.png` *and* "
              "`python -m axisops.bench.history docs/figures`.")


def parse_name(name: str) -> tuple[str, str, str]:
    """``(date and time, commit, note)`` of a history file's name; ValueError otherwise."""
    match = NAME.match(name)
    if match is None:
        raise ValueError(f"{name!r} is not named bench-YYYY-MM-DD-HHMM-COMMIT[-NOTE].json")
    day, hour, minute, commit, note = match.groups()
    return f"{day} {hour}:{minute}", commit, note or ""


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan


def _kernels(payload: dict[str, Any]) -> str:
    versions = payload.get("machine", {}).get("versions", {})
    if "numba" in versions:
        return f"Numba {versions['numba']}"
    return f"C++ core ({versions['axisops_core']})" if "axisops_core" in versions else "?"


def history_table(folder: Path, link_prefix: str = "figures/history/") -> str:
    """One markdown row per run in ``folder``, oldest first: when it ran, the commit, the
    kernels, the rounds, how many rows were exact and met their targets, and the geometric
    means of axisops' time as a multiple of the read floor and of the fastest peer's time
    over axisops'."""
    rows = ["| run | commit | kernels | rounds x calls | rows | exact | targets met "
            "| geomean x floor | geomean vs best peer | data |",
            "|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for path in sorted(Path(folder).glob("bench-*.json")):
        when, commit, _ = parse_name(path.name)
        payload = json.loads(path.read_text())
        cases = payload["cases"]
        verdicts = [t["met"] for c in cases for t in c["targets"] if t["met"] is not None]
        floor = _geomean([c["x_floor"]["axisops"] for c in cases])
        peer = _geomean([c["speedup_vs_best_peer"] for c in cases
                         if c.get("speedup_vs_best_peer")])
        exact = sum(c["exact"] is True for c in cases)
        rows.append(f"| {when} | `{commit}` | {_kernels(payload)} "
                    f"| {payload['rounds']} x {payload['repeats']} | {len(cases)} "
                    f"| {exact}/{len(cases)} | {sum(verdicts)}/{len(verdicts)} "
                    f"| {floor:.2f} | {peer:.2f}x | [json]({link_prefix}{path.name}) |")
    return "\n".join(rows) + "\n"


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    ms = seconds * 1e3
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.2f}"


def current_table(path: Path) -> str:
    """The full table of the run in ``path`` (times in ms), with its machine and date; a
    note saying there is none yet when the file does not exist."""
    path = Path(path)
    if not path.is_file():
        return NO_CURRENT + "\n"
    payload = json.loads(path.read_text())
    m = payload["machine"]
    peers = [p for p in COLUMNS
             if p in PEERS or any(p in c["seconds"] for c in payload["cases"])]
    versions = ", ".join(f"{k} {v}" for k, v in m.get("versions", {}).items())
    lines = [f"Run of {payload['when']} on {m['cpu']}, {m['cpus']} CPUs, {m['threads']} "
             f"threads ({m['platform']}); {versions}; {payload['rounds']} rounds x "
             f"{payload['repeats']} calls a row, medians in ms.", "",
             "| case | floor | axisops | x floor | " + " | ".join(peers)
             + " | vs best peer | exact | targets |",
             "|---|---:|---:|---:|" + "---:|" * len(peers) + "---:|---|---|"]
    for c in payload["cases"]:
        t = c["seconds"]
        best = c.get("speedup_vs_best_peer")
        targets = "; ".join(f"{v['target']}: {v['value']}"
                            + ("" if v["met"] is None else (" ✓" if v["met"] else " ✗"))
                            for v in c["targets"]) or "-"
        lines.append(f"| {c['case']} | {_ms(t['floor'])} | **{_ms(t['axisops'])}** "
                     f"| {c['x_floor']['axisops']:.2f} | "
                     + " | ".join(_ms(t.get(p)) for p in peers)
                     + f" | {'-' if best is None else f'{best:.1f}x'} "
                     f"| {'yes' if c['exact'] else 'NO'} | {targets} |")
    return "\n".join(lines) + "\n"


def snippets(figures: Path) -> dict[str, str]:
    """``{file name: text}`` of the snippets for ``figures`` (``docs/figures``): the
    history, the current table, and the full table of the last run noted ``numba``."""
    figures = Path(figures)
    numba = [p for p in sorted((figures / "history").glob("bench-*.json"))
             if parse_name(p.name)[2] == "numba"]
    return {"history.md": history_table(figures / "history"),
            "current.md": current_table(figures / "bench.json"),
            "numba.md": current_table(numba[-1]) if numba else "*No Numba run.*\n"}


def write_snippets(figures: Path) -> list[Path]:
    """Write :func:`snippets` beside the JSON files; returns their paths."""
    written = []
    for name, text in snippets(figures).items():
        (Path(figures) / name).write_text(text)
        written.append(Path(figures) / name)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m axisops.bench.history",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("figures", nargs="?", default="docs/figures",
                        help="the folder of bench.json and history/ (default docs/figures)")
    for path in write_snippets(Path(parser.parse_args(argv).figures)):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
