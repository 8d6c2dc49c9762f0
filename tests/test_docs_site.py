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


def test_the_performance_snippets_are_what_the_json_files_say():
    """``python -m axisops.bench.history docs/figures`` remakes them after a run."""
    for name, text in history.snippets(FIGURES).items():
        assert (FIGURES / name).read_text() == text, \
            f"docs/figures/{name} is stale: run python -m axisops.bench.history docs/figures"
    page = (ROOT / "docs" / "performance.md").read_text()
    for name in history.snippets(FIGURES):
        assert f'--8<-- "docs/figures/{name}"' in page


def test_every_run_of_the_history_is_named_by_its_date_and_commit():
    runs = sorted((FIGURES / "history").glob("bench-*.json"))
    assert len(runs) >= 14
    for path in runs:
        when, commit, _ = history.parse_name(path.name)
        assert json.loads(path.read_text())["when"].startswith(when), path.name
        assert re.fullmatch(r"[0-9a-f]{7}", commit)
    assert sorted(p.name for p in (FIGURES / "history").glob("*.png")) == \
        ["bench-2026-12-05-2200-bac9896-numba.png"]


def test_the_history_table_has_one_row_per_run(tmp_path):
    source = json.loads(next((FIGURES / "history").glob("bench-*.json")).read_text())
    for name in ("bench-2026-01-02-0304-abcdef1.json", "bench-2026-01-03-1200-1234567-x.json"):
        (tmp_path / name).write_text(json.dumps(source))
    (tmp_path / "notes.json").write_text("{}")  # not a run: ignored
    rows = history.history_table(tmp_path, link_prefix="").splitlines()
    assert len(rows) == 4
    assert rows[2].startswith("| 2026-01-02 03:04 | `abcdef1` |")
    assert rows[3].endswith("| [json](bench-2026-01-03-1200-1234567-x.json) |")
    with pytest.raises(ValueError, match="is not named"):
        history.parse_name("bench-stopgap.json")
    assert history.current_table(tmp_path / "missing.json") == history.NO_CURRENT + "\n"
    table = history.current_table(tmp_path / "bench-2026-01-02-0304-abcdef1.json")
    assert len(table.splitlines()) == 4 + len(source["cases"])


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


def test_the_reference_pages_name_modules_that_exist():
    import importlib.util

    pages = sorted((ROOT / "docs" / "reference").glob("*.md"))
    targets = [m for p in pages for m in re.findall(r"^::: ([\w.]+)$", p.read_text(), re.M)]
    assert len(pages) == 5 and "axisops" in targets
    for target in targets:
        assert importlib.util.find_spec(target) is not None, target


def test_the_nav_names_the_pages():
    nav = re.findall(r":\s*([\w/-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.M)
    # The sorting and selection page comes with the selection family's own branch.
    missing = [page for page in nav if not (ROOT / "docs" / page).is_file()]
    assert set(missing) <= {"selection.md"}, missing
