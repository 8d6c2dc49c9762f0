"""The documentation site and the words of the tree: the performance page's tables are what
the benchmark's JSON files say, runs are named by date and commit, the site's tools are
CI's, and the changelog is the package's."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

import axisops
from axisops.bench import history

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "docs" / "figures"


def test_the_performance_tables_are_what_the_json_files_say():
    """``python -m axisops.bench.history docs/figures`` remakes them after a run: the page's
    two snippets and the README's rows."""
    for name, text in history.snippets(FIGURES).items():
        assert (FIGURES / name).read_text(encoding="utf-8") == text, \
            f"docs/figures/{name} is stale: run python -m axisops.bench.history docs/figures"
    page = (ROOT / "docs" / "performance.md").read_text()
    for name in history.snippets(FIGURES):
        assert f'--8<-- "docs/figures/{name}"' in page
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = history.readme_table(FIGURES / "bench.json", FIGURES / "history")
    assert history.with_readme_table(readme, table) == readme, \
        "README.md's table is stale: run python -m axisops.bench.history docs/figures"
    assert table.count("\n| ") >= 8


def test_the_performance_page_shows_the_current_plot_first():
    page = (ROOT / "docs" / "performance.md").read_text()
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page)
    assert images == ["figures/bench.png"]
    assert page.index("figures/bench.png") < page.index("--8<--")
    assert "numba" not in page.lower()


def test_the_history_holds_dated_full_runs_of_the_compiled_core():
    runs = sorted((FIGURES / "history").glob("*"))
    assert runs and all(p.suffix == ".json" for p in runs)
    whens = set()
    for path in runs:
        when, commit = history.parse_name(path.name)
        payload = json.loads(path.read_text())
        assert payload["when"].startswith(when), path.name
        assert re.fullmatch(r"[0-9a-f]{7,40}", commit)
        assert not payload["quick"] and "numba" not in payload["machine"]["versions"]
        whens.add(payload["when"])
    assert json.loads((FIGURES / "bench.json").read_text())["when"] in whens
    # The Numba era (its runs, tables and plots) is in git's history, not in the tree.
    assert sorted(p.name for p in FIGURES.iterdir()) == [
        "bench.json", "bench.png", "current.md", "frameworks.json", "gpu-h200-1.json",
        "gpu-h200-2.json", "gpu-h200-3.json", "history", "history.md"]


def _run(folder: Path, name: str, when: str, cases: list[dict] | None = None) -> dict:
    source = json.loads((FIGURES / "bench.json").read_text())
    payload = {**source, "when": when, "cases": cases or source["cases"]}
    (folder / name).write_text(json.dumps(payload))
    return payload


def test_the_history_table_has_one_short_row_per_run(tmp_path):
    _run(tmp_path, "bench-2026-01-02-0304-abcdef1.json", "2026-01-02 03:04:05")
    _run(tmp_path, "bench-2026-01-03-1200-1234567.json", "2026-01-03 12:00:00")
    (tmp_path / "notes.json").write_text("{}")  # not a run: left alone
    rows = history.history_table(tmp_path, link_prefix="").splitlines()
    assert len(rows) == 4
    source = json.loads((FIGURES / "bench.json").read_text())
    cases, machine = source["cases"], source["machine"]
    exact = sum(bool(c["exact"]) for c in cases)
    targets = [t["met"] for c in cases for t in c["targets"] if t["met"] is not None]
    cpu = re.sub(r"\((R|TM)\)|\bProcessor\b|\bCPU\b", "", machine["cpu"])
    cpu = f"{' '.join(cpu.split())}, {machine['cpus']} CPUs"
    assert rows[2].startswith(f"| [2026-01-02 03:04](bench-2026-01-02-0304-abcdef1.json) "
                              f"| `abcdef1` | {cpu} | {exact} of {len(cases)} "
                              f"| {sum(targets)} of {len(targets)} |")
    assert all(len(row) < 160 for row in rows)
    with pytest.raises(ValueError, match="is not named"):
        history.parse_name("bench-stopgap.json")
    with pytest.raises(ValueError, match="is not named"):
        history.parse_name("bench-2026-12-05-2200-bac9896-numba.json")


def test_the_current_table_is_one_compact_row_per_case(tmp_path):
    (tmp_path / "history").mkdir()
    cases = json.loads((FIGURES / "bench.json").read_text())["cases"][:3]
    cases[0] = {**cases[0], "exact": True, "targets": [  # whatever the current run measured
        {"target": "<= 1.5x floor", "value": "1.20 floor", "met": True},
        {"target": ">= 3x faster than best", "value": "3.10x", "met": True}]}
    cases[1] = {**cases[1], "exact": False, "targets": [
        {"target": ">= 3x faster than best", "value": "2.00x", "met": False},
        {"target": "<= 2x floor", "value": "1.00 floor", "met": True}]}
    cases[2] = {**cases[2], "targets": []}
    payload = _run(tmp_path, "bench.json", "2026-01-02 03:04:05", cases)
    with pytest.raises(ValueError, match=r"copy bench.json to .*bench-2026-01-02-0304-COMMIT"):
        history.current_table(tmp_path / "bench.json")
    (tmp_path / "history" / "bench-2026-01-02-0304-abcdef1.json").write_text(
        json.dumps(payload))
    text = history.current_table(tmp_path / "bench.json")
    lines = text.splitlines()
    assert lines[0].startswith("The current run: 2026-01-02 03:04, commit `abcdef1`, ")
    assert f"{payload['machine']['cpus']} CPUs (Linux " in lines[0]
    assert "2 of 3 rows exact; 3 of 4 targets met" in lines[2]
    table = [line for line in lines if line.startswith("| ")]
    assert table[0] == ("| case | floor | axisops | × floor | numpy | torch | JAX | ORT "
                        "| vs best peer | target |")
    assert [row.rsplit("|", 2)[1].strip() for row in table[1:]] == ["✓", "✗", "–"]
    assert "(**not exact**)" in table[2] and all(len(row) < 120 for row in table)
    assert lines[-1] == f"- {cases[1]['case']}: >= 3x faster than best (measured 2.00x)"
    assert history.current_table(tmp_path / "missing.json").startswith("*No current run yet")


def test_the_readme_table_goes_between_its_marks():
    readme = "# A\n\n<!-- bench:readme (made) -->\nold\n<!-- bench:end -->\nrest\n"
    assert history.with_readme_table(readme, "| new |\n") == (
        "# A\n\n<!-- bench:readme (made) -->\n\n| new |\n\n<!-- bench:end -->\nrest\n")
    with pytest.raises(ValueError, match="no <!-- bench:readme"):
        history.with_readme_table("# A\n", "| new |\n")


# --- words ------------------------------------------------------------------------------

RUN_BY_NUMBER = re.compile(r"\bstop[ -]?\d+", re.IGNORECASE)
NOTEBOOK = re.compile(r"\bsessions?\b", re.IGNORECASE)


def _tracked() -> list[Path]:
    """The files git tracks (the tree as committed), or every file of a source tree."""
    try:
        names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                               check=True).stdout.decode().split("\0")
        return [ROOT / n for n in names if n and (ROOT / n).is_file()]
    except (OSError, subprocess.CalledProcessError):  # an unpacked sdist: no git
        skip = {".git", "build", "site", "__pycache__"}
        return [p for p in ROOT.rglob("*") if p.is_file()
                and not skip & set(p.relative_to(ROOT).parts)
                and not p.relative_to(ROOT).parts[0].startswith(".venv")]


def lab_words(files: list[Path], root: Path) -> list[str]:
    """``file:line: text`` of every run named by a number anywhere (names included), and of
    "session" in the prose a user reads (README, CHANGELOG, docs/): in code and tests the
    word has legitimate meanings (pytest's fixture scope, a process's session)."""
    found = []
    for path in files:
        name = path.relative_to(root).as_posix()
        if RUN_BY_NUMBER.search(name):
            found.append(f"{name}: the file's name")
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (UnicodeDecodeError, OSError):
            continue  # binary
        prose = name in ("README.md", "CHANGELOG.md") or name.startswith("docs/")
        for number, line in enumerate(lines, 1):
            if RUN_BY_NUMBER.search(line) or (prose and NOTEBOOK.search(line)):
                found.append(f"{name}:{number}: {line.strip()[:120]}")
    return found


def test_no_run_is_named_like_a_lab_notebook():
    assert lab_words(_tracked(), ROOT) == []


def test_the_lab_word_check_finds_names_lines_and_prose(tmp_path):
    word = "st" + "op"  # spelled apart, so that this file passes the check itself
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(f"fine\nThe {word.title()}-3 table\n"
                                            "last session's run\n")
    (tmp_path / "code.py").write_text(f'scope="session"\n# {word.upper()} 12 made it faster\n')
    (tmp_path / f"bench-{word}21.json").write_text("{}")
    (tmp_path / "image.png").write_bytes(b"\x89PNG\xff\xfe " + word.encode() + b" 3")
    files = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    assert lab_words(files, tmp_path) == [
        f"bench-{word}21.json: the file's name", f"code.py:2: # {word.upper()} 12 made it faster",
        f"docs/a.md:2: The {word.title()}-3 table", "docs/a.md:3: last session's run"]


# --- the site's tools and the changelog ------------------------------------------------------

def _extra(name: str) -> list[str]:
    import tomllib

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return pyproject["project"]["optional-dependencies"][name]


def test_ci_installs_the_docs_extra_pinned_and_builds_the_site_strictly():
    run = (ROOT / ".ci" / "run").read_text().splitlines()
    wanted = {re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0] for r in _extra("docs")}
    (install,) = [line for line in run if "mkdocs" in line and " install " in line]
    named = {re.split(r"[\[\"]", word.strip('"'), maxsplit=1)[0]
             for word in install.split()[install.split().index("-c") + 2:]}
    assert wanted <= named, (wanted, named)
    pins = (ROOT / ".ci" / "constraints.txt").read_text()
    assert all(re.search(rf"^{re.escape(w)}==", pins, re.M) for w in wanted)
    assert any("mkdocs build --strict" in line and "mktemp" in line for line in run)


def test_the_changelog_is_the_package_s_and_the_site_includes_it():
    log = (ROOT / "CHANGELOG.md").read_text()
    versions = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", log, re.M)
    assert versions[0][0] == axisops.__version__
    assert [v for v, _ in versions] == sorted((v for v, _ in versions),
                                              key=lambda v: tuple(map(int, v.split("."))),
                                              reverse=True)
    assert '--8<-- "CHANGELOG.md"' in (ROOT / "docs" / "changelog.md").read_text()


def _reference_targets() -> dict[str, list[str]]:
    return {p.name: re.findall(r"^::: ([\w.]+)$", p.read_text(), re.M)
            for p in sorted((ROOT / "docs" / "reference").glob("*.md"))}


def test_the_reference_pages_name_objects_that_exist():
    import importlib

    targets = _reference_targets()
    assert len(targets) == 5
    for name in (n for names in targets.values() for n in names):
        module, _, attr = name.rpartition(".")
        try:
            found = importlib.import_module(name)
        except ImportError:
            found = getattr(importlib.import_module(module), attr, None)
        assert found is not None, name


def test_the_reference_names_every_public_name_of_axisops_after_its_usage():
    page = (ROOT / "docs" / "reference" / "axisops.md").read_text()
    documented = set(_reference_targets()["axisops.md"])
    assert {f"axisops.{n}" for n in axisops.__all__ if n != "__version__"} <= documented
    for name, text in ((p.name, p.read_text()) for p in (ROOT / "docs" / "reference").glob("*.md")):
        first = text.index(":::")
        assert "```python" in text[:first] or name in ("torch.md", "directml.md", "xarray.md")
    assert page.index("```python") < page.index(":::")


def _roles():
    import importlib.util

    spec = importlib.util.spec_from_file_location("roles", ROOT / "docs" / "reference" / "roles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sphinx_roles_become_cross_references():
    roles = _roles()
    scope = {"topk": "axisops.api.topk", "Engine": "axisops.engines.base.Engine"}

    def resolve(name):
        first, _, rest = name.partition(".")
        if first == "axisops":
            return name
        return scope[first] + (f".{rest}" if rest else "")

    text = ("See :func:`topk`, :meth:`~Engine.topk_block`, :mod:`axisops.runner`, "
            ":class:`the engine <axisops.engines.base.Engine>`, :data:`nowhere` and "
            ":func:`axisops.topk()`: in the array's type::\n\n    call.run(spec)\n")
    converted = roles.convert(text, resolve)
    assert roles.ROLE.search(converted) is None
    assert ('<autoref identifier="axisops.api.topk" optional><code>topk</code></autoref>'
            in converted)
    assert '"axisops.engines.base.Engine.topk_block" optional><code>topk_block</code>' \
        in converted
    assert '"axisops.engines.base.Engine" optional><code>the engine</code>' in converted
    assert '"nowhere" optional><code>nowhere</code>' in converted  # unresolved: plain code
    assert "<code>axisops.topk()</code>" in converted
    assert converted.endswith("in the array's type:\n\n    call.run(spec)\n")


def test_a_page_that_shows_a_raw_role_is_found():
    roles = _roles()
    page = ("<p>Each is a :func:<code>boundary</code>, see :mod:`x`.</p>"
            "<pre><code>:func:`in a code block`</code></pre><p><code>:func:`quoted`</code></p>")
    found = roles.raw_roles(page)
    assert len(found) == 2 and ":func:" in found[0] and ":mod:`x`" in found[1]
    assert "code block" not in "".join(found) and "quoted" not in "".join(found)
    assert roles.raw_roles("<p>See <code>topk</code>: fine.</p>") == []


def test_every_role_of_the_package_is_one_the_reference_converts():
    roles = _roles()
    unconverted = []
    for path in sorted((ROOT / "src" / "axisops").rglob("*.py*")):
        if path.suffix not in (".py", ".pyi"):
            continue
        for match in re.finditer(r":(?:py:)?[a-z]+:`[^`]*`", path.read_text(encoding="utf-8")):
            if not roles.ROLE.fullmatch(match[0]):
                unconverted.append(f"{path.relative_to(ROOT)}: {match[0]}")
    assert unconverted == []


def test_the_docs_build_installs_only_the_documentation_tools():
    readme = (ROOT / "README.md").read_text()
    (command,) = [line for line in readme.splitlines() if "mkdocs build" in line]
    assert "mkdocs mkdocs-material" in command and " -e " not in command \
        and ".[" not in command and "pip install -q ." not in command


def test_the_nav_names_the_pages():
    nav = re.findall(r":\s*([\w/-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.M)
    # The sorting and selection page comes with the selection family's own branch.
    missing = [page for page in nav if not (ROOT / "docs" / page).is_file()]
    assert set(missing) <= {"selection.md"}, missing
