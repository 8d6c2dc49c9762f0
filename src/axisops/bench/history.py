"""The performance page's tables, made from the benchmark's JSON files.

``docs/figures/bench.json`` and ``docs/figures/bench.png`` are the current run, written
by ``axisops bench --rounds 3 --json docs/figures/bench.json --plot docs/figures/bench.png``;
``docs/figures/history/`` keeps one copy of every full run worth keeping, named
``bench-YYYY-MM-DD-HHMM-COMMIT.json`` by the date and time it started and the commit it
measured (the current run is one of them: its commit comes from there).
``python -m axisops.bench.history docs/figures`` writes two markdown snippets beside
them, which ``docs/performance.md`` includes, and a test checks that they are what the
JSON files say:

- ``current.md``: the current run's machine and software (named once, here), one
  compact table (a row per case: the floor, axisops, its multiple of the floor, each
  peer, the speed-up over the fastest peer, and a mark for the row's targets), the
  targets missed, and the memory measurements when the run made them;
- ``history.md``: one row per kept run: when, the commit, the machine, how many rows
  were exact, how many targets were met, and two geometric means;

and a few rows of the current run into ``README.md``, between its ``<!-- bench:readme``
and ``<!-- bench:end -->`` lines.

>>> parse_name("bench-2026-12-06-0609-7040337.json")
('2026-12-06 06:09', '7040337')
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

__all__ = ["current_table", "history_table", "parse_name", "readme_table", "snippets",
           "with_readme_table", "write_snippets"]

NAME = re.compile(r"^bench-(\d{4}-\d{2}-\d{2})-(\d{2})(\d{2})-([0-9a-f]{7,40})\.json$")
#: Every peer column, in order, with its heading: those the run timed.
PEERS = {"numpy": "numpy", "numpy-default": "numpy default", "torch": "torch",
         "jax": "JAX", "ort": "ORT"}
#: The software named beside the machine, with how the page spells it.
SOFTWARE = {"python": "Python", "numpy": "NumPy", "torch": "torch", "jax": "JAX",
            "onnxruntime": "ONNX Runtime"}
MET, MISSED, NO_TARGET = "✓", "✗", "–"
#: The rows the README shows (those of them the run has), in this order.
README_CASES = ("(1, 10M) k=1000", "(1000, 10k) k=10", "MoE router (65536, 128) k=8",
                "sampling (32, 128000) k=50", "kNN (2000, 100000) k=10",
                "gather (4096, 4096) idx (4096, 64) axis 1", "sort (1, 10M)",
                "sort (10k, 1000)", "argsort (1, 10M)", "median (1, 10M)",
                "partition (1000, 10k) kth=5000")
#: The README's table lies between these lines (each a whole line; the first one opens
#: with this text).
README_START, README_END = "<!-- bench:readme", "<!-- bench:end -->"
RUN_COMMAND = ("`axisops bench --rounds 3 --json docs/figures/bench.json "
               "--plot docs/figures/bench.png`")


def parse_name(name: str) -> tuple[str, str]:
    """``(date and time, commit)`` of a history file's name; ValueError otherwise."""
    match = NAME.match(name)
    if match is None:
        raise ValueError(f"{name!r} is not named bench-YYYY-MM-DD-HHMM-COMMIT.json")
    day, hour, minute, commit = match.groups()
    return f"{day} {hour}:{minute}", commit


def _runs(folder: Path) -> list[tuple[Path, dict[str, Any]]]:
    """The history's runs, oldest first, each with its JSON (files not named as runs are
    not runs: left alone)."""
    found = []
    for path in sorted(Path(folder).glob("bench-*.json")):
        try:
            parse_name(path.name)
        except ValueError:
            continue
        found.append((path, json.loads(path.read_text())))
    return found


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan


def _cpu(machine: dict[str, Any]) -> str:
    """The CPU model without its trademark signs and filler words, and the CPU count."""
    model = re.sub(r"\((R|TM)\)|\bProcessor\b|\bCPU\b", "", machine.get("cpu", "?"))
    return f"{' '.join(model.split()) or '?'}, {machine.get('cpus', '?')} CPUs"


def _targets(case: dict[str, Any]) -> list[bool]:
    """The verdicts of a row's targets (a target whose peer was not timed has none)."""
    return [t["met"] for t in case["targets"] if t["met"] is not None]


def _mark(case: dict[str, Any]) -> str:
    verdicts = _targets(case)
    return NO_TARGET if not verdicts else MET if all(verdicts) else MISSED


def history_table(folder: Path, link_prefix: str = "figures/history/") -> str:
    """One markdown row per run in ``folder``, oldest first: when it ran (a link to its
    JSON), the commit, the machine, how many rows were exact, how many targets were met,
    and the geometric means over the rows of axisops' time as a multiple of the floor and
    of the fastest peer's time over axisops'."""
    rows = ["| run | commit | machine | rows exact | targets met | geomean × floor "
            "| geomean vs best peer |",
            "|---|---|---|---:|---:|---:|---:|"]
    for path, payload in _runs(folder):
        when, commit = parse_name(path.name)
        cases = payload["cases"]
        verdicts = [v for c in cases for v in _targets(c)]
        floor = _geomean([c["x_floor"]["axisops"] for c in cases])
        peer = _geomean([c["speedup_vs_best_peer"] for c in cases
                         if c.get("speedup_vs_best_peer")])
        exact = sum(c["exact"] is True for c in cases)
        rows.append(f"| [{when}]({link_prefix}{path.name}) | `{commit}` "
                    f"| {_cpu(payload['machine'])} | {exact} of {len(cases)} "
                    f"| {sum(verdicts)} of {len(verdicts)} | {floor:.2f} | {peer:.2f}× |")
    return "\n".join(rows) + "\n"


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    ms = seconds * 1e3
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.2f}"


def _commit_of(payload: dict[str, Any], history: Path) -> str:
    """The commit of the current run: that of the history file of the same run."""
    for path, kept in _runs(history):
        if kept.get("when") == payload["when"]:
            return parse_name(path.name)[1]
    when = payload["when"]
    raise ValueError(
        f"the current run ({when}) is not in {history}: copy bench.json to "
        f"{history}/bench-{when[:10]}-{when[11:13]}{when[14:16]}-COMMIT.json (COMMIT: the "
        f"commit it measured), then run this again")


def _machine_line(payload: dict[str, Any], commit: str) -> str:
    m = payload["machine"]
    versions = m.get("versions", {})
    system = m.get("platform", "").split("-")
    core = m.get("core") or {}
    level = core.get("isa") or versions.get("axisops_core", "?").split(",")[0]
    compiler = core.get("compiler") or versions.get("axisops_core", ",").split(",")[1].strip()
    software = ", ".join(f"{label} {versions[key]}" for key, label in SOFTWARE.items()
                         if key in versions)
    return (f"The current run: {payload['when'][:16]}, commit `{commit}`, "
            f"{payload['rounds']} round{'s' if payload['rounds'] != 1 else ''} of "
            f"{payload['repeats']} calls a row. The machine: {_cpu(m)} "
            f"({' '.join(system[:2]) or '?'}), {m.get('threads', '?')} threads for axisops, torch "
            f"and ONNX Runtime; the compiled core at its {level} level ({compiler}); "
            f"{software}.")


def _memory_table(memory: list[dict[str, Any]]) -> list[str]:
    if not memory:
        return []
    lines = ["", "### Memory", "",
             "The growth of a fresh process's peak memory across one top-k call "
             "(`axisops bench --memory`; float32 input, outputs included):", "",
             "| implementation | shape | k | input | peak growth | × input |",
             "|---|---|---:|---:|---:|---:|"]
    for m in memory:
        shape = " × ".join(f"{n:,}" for n in m.get("shape", ()))
        lines.append(f"| {m['impl']} | ({shape}) | {m.get('k')} | {m.get('input_mb')} MB "
                     f"| {m.get('peak_growth_mb')} MB | {m.get('growth_per_input')} |")
    return lines


def _row(c: dict[str, Any], peers: list[str], mark: bool) -> str:
    t = c["seconds"]
    best = c.get("speedup_vs_best_peer")
    name = c["case"] if c["exact"] is not False else f"{c['case']} (**not exact**)"
    return (f"| {name} | {_ms(t['floor'])} | **{_ms(t['axisops'])}** "
            f"| {c['x_floor']['axisops']:.2f} | "
            + " | ".join(_ms(t.get(p)) for p in peers)
            + f" | {'–' if best is None else f'{best:.1f}×'} |"
            + (f" {_mark(c)} |" if mark else ""))


def _heading(peers: list[str], mark: bool) -> list[str]:
    return ["| case | floor | axisops | × floor | "
            + " | ".join(PEERS[p] for p in peers) + " | vs best peer |"
            + (" target |" if mark else ""),
            "|---|---:|---:|---:|" + "---:|" * len(peers) + "---:|"
            + (":---:|" if mark else "")]


def current_table(path: Path, history: Path | None = None) -> str:
    """The current run in ``path`` as markdown: its date, commit, machine and software
    (the commit from the same run's file in ``history``, by default ``history/`` beside
    ``path``), one table of every row (times in ms), the targets missed, and the memory
    measurements if any; a note saying there is none yet when ``path`` does not exist."""
    path = Path(path)
    if not path.is_file():
        return (f"*No current run yet: {RUN_COMMAND} and "
                f"`python -m axisops.bench.history docs/figures` make it.*\n")
    payload = json.loads(path.read_text())
    cases = payload["cases"]
    commit = _commit_of(payload, Path(history) if history else path.parent / "history")
    peers = [p for p in PEERS if any(p in c["seconds"] for c in cases)]
    exact = sum(c["exact"] is True for c in cases)
    verdicts = [v for c in cases for v in _targets(c)]
    lines = [_machine_line(payload, commit), "",
             f"Medians in ms; {exact} of {len(cases)} rows exact; {sum(verdicts)} of "
             f"{len(verdicts)} targets met.", "", *_heading(peers, mark=True)]
    missed = []
    for c in cases:
        lines.append(_row(c, peers, mark=True))
        failed = [f"{v['target']} (measured {v['value']})"
                  for v in c["targets"] if v["met"] is False]
        if failed:
            missed.append(f"- {c['case']}: " + "; ".join(failed))
    if missed:
        lines += ["", f"The targets missed ({MISSED}):", "", *missed]
    lines += _memory_table(payload.get("memory") or [])
    return "\n".join(lines) + "\n"


def readme_table(path: Path, history: Path | None = None) -> str:
    """The README's rows (:data:`README_CASES`) of the current run in ``path``, under one
    line naming the run and its machine; empty when there is no current run."""
    path = Path(path)
    if not path.is_file():
        return ""
    payload = json.loads(path.read_text())
    commit = _commit_of(payload, Path(history) if history else path.parent / "history")
    by_name = {c["case"]: c for c in payload["cases"]}
    cases = [by_name[name] for name in README_CASES if name in by_name]
    peers = [p for p in PEERS if any(p in c["seconds"] for c in cases)]
    m = payload["machine"]
    return "\n".join([f"The current run: {payload['when'][:16]}, commit `{commit}`, on "
                      f"{_cpu(m)} with {m.get('threads', '?')} threads; medians in ms.", "",
                      *_heading(peers, mark=False),
                      *(_row(c, peers, mark=False) for c in cases)]) + "\n"


def with_readme_table(readme: str, table: str) -> str:
    """``readme`` with ``table`` between its :data:`README_START` and :data:`README_END`
    lines; ValueError when it lacks them."""
    lines = readme.splitlines(keepends=True)
    try:
        start = next(i for i, line in enumerate(lines) if line.startswith(README_START))
        end = next(i for i, line in enumerate(lines) if i > start
                   and line.strip() == README_END)
    except StopIteration:
        raise ValueError(f"the README has no {README_START} ... {README_END} lines") from None
    middle = ["\n", table, "\n"] if table else []
    return "".join(lines[:start + 1] + middle + lines[end:])


def snippets(figures: Path) -> dict[str, str]:
    """``{file name: text}`` of the snippets for ``figures`` (``docs/figures``): the
    current run and the history."""
    figures = Path(figures)
    return {"current.md": current_table(figures / "bench.json", figures / "history"),
            "history.md": history_table(figures / "history")}


def write_snippets(figures: Path, readme: Path | None = None) -> list[Path]:
    """Write :func:`snippets` beside the JSON files, and the README's table into
    ``readme`` when given; returns the paths written."""
    written = []
    for name, text in snippets(figures).items():
        (Path(figures) / name).write_text(text, encoding="utf-8")
        written.append(Path(figures) / name)
    if readme is not None:
        table = readme_table(Path(figures) / "bench.json", Path(figures) / "history")
        text = Path(readme).read_text(encoding="utf-8")
        Path(readme).write_text(with_readme_table(text, table), encoding="utf-8")
        written.append(Path(readme))
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m axisops.bench.history",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("figures", nargs="?", default="docs/figures",
                        help="the folder of bench.json and history/ (default docs/figures)")
    parser.add_argument("--readme", default=None,
                        help="the README whose table to rewrite (default: README.md two "
                             "folders above FIGURES, where there is one)")
    args = parser.parse_args(argv)
    figures = Path(args.figures)
    readme = Path(args.readme) if args.readme else figures.resolve().parent.parent / "README.md"
    try:
        written = write_snippets(figures, readme if args.readme or readme.is_file() else None)
    except ValueError as error:
        print(f"python -m axisops.bench.history: {error}", file=sys.stderr)
        return 1
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
