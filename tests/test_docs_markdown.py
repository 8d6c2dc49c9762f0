"""README.md, CHANGELOG.md and the pages of docs/: every Python block runs as a program of
its own, every shell block runs as written, and every relative link resolves
(``mkdocs build --strict`` checks the site's own links again).

A block is a fenced block that names its language: ``python``, ``sh`` (commands), or
``text`` / ``json`` (output, not run).  Each runnable block runs in its own folder, which
holds the checkout's top-level files and folders (linked, so ``examples/...`` and
``benchmarks/...`` are there as in a fresh checkout) and nothing any other block made:

- a ``python`` block runs in a fresh interpreter (``python -I``), as ``__main__``; a
  ``print(...)`` with a comment at the end of its line must print exactly the comment's
  text (``print(x.tolist())  # [1, 2]``; see ``tests/docs_block_script.py``);
- an ``sh`` block runs in ``bash -euo pipefail`` with this interpreter's ``bin`` folder
  first on ``PATH`` (``python`` and ``axisops`` are the installed ones) and must exit 0;
- ``<!-- not-run: REASON -->`` on the line before a block keeps it from running: for
  Python, a block that needs a CUDA GPU or is a call signature (keep these few); for
  shell, the install and test commands, the full benchmark, commands that need a
  release on PyPI, a GPU or a Dask cluster.

Nothing is skipped: a block that imports a stack the test extras install (torch, JAX,
Dask, xarray ...) fails where it is missing.
"""

from __future__ import annotations

import ast
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from docs_block_script import end_of_line_comments, is_print

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = Path(__file__).resolve().parent / "docs_block_script.py"
#: The pages (docs/figures/*.md are snippets the performance page includes, not pages).
FILES = [ROOT / "README.md", ROOT / "CHANGELOG.md",
         *sorted(p for p in (ROOT / "docs").rglob("*.md") if "figures" not in p.parts)]
LANGUAGES = {"python", "sh", "text", "json"}
FENCE = re.compile(r"^(\s*)(`{3,})\s*([\w+-]*)\s*$")
NOT_RUN = re.compile(r"^<!--\s*not-run:\s*(\S.*?)\s*-->$")
#: Seconds a block may take (the slowest, a torch.compile and a quick benchmark, take about
#: 8 on 2 busy cores).
TIMEOUT = 60
#: Blocks that import these take a few seconds or more in a fresh interpreter (and a shell
#: block that runs the benchmark): marked slow, so that ``-m "not slow"`` leaves them out.
HEAVY = {"torch", "jax", "dask", "distributed", "xarray"}


@dataclass
class Block:
    """One fenced block: its language, first code line (1-based), code, and not-run reason."""

    language: str
    line: int
    code: str
    not_run: str | None


def fenced_blocks(text: str) -> list[Block]:
    """Every fenced block of a markdown text, in order (an indented block, in a list item,
    loses its indentation)."""
    lines, blocks, i = text.splitlines(), [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        indent, fence = opening[1], opening[2]
        end = next(j for j in range(i + 1, len(lines))
                   if lines[j].strip().startswith(fence) and not lines[j].strip(" `"))
        before = next((line for line in reversed(lines[:i]) if line.strip()), "")
        marker = NOT_RUN.match(before.strip())
        code = "\n".join(line[len(indent):] if line.startswith(indent) else line.lstrip()
                         for line in lines[i + 1:end])
        blocks.append(Block(opening[3], i + 2, code, marker[1] if marker else None))
        i = end + 1
    return blocks


def blocks_of(path: Path) -> list[Block]:
    return fenced_blocks(path.read_text(encoding="utf-8"))


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if ROOT in path.parents else path.name


def _imports(code: str) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            roots.add(node.module.split(".")[0])
    return roots


def _runnable(language: str) -> list:
    params = []
    for path in FILES:
        for block in blocks_of(path):
            if block.language != language or block.not_run is not None:
                continue
            heavy = ("axisops bench" in block.code if language == "sh"
                     else HEAVY & _imports(block.code))
            params.append(pytest.param(path, block, id=f"{_name(path)}:{block.line}",
                                       marks=[pytest.mark.slow] if heavy else []))
    return params


def _checkout_folder(folder: Path) -> Path:
    """``folder`` with links to the checkout's top-level files and folders (those git
    tracks, or every visible one in a source tree without git)."""
    try:
        names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                               check=True).stdout.decode().split("\0")
        tops = {n.split("/")[0] for n in names if n}
    except (OSError, subprocess.CalledProcessError):
        tops = {p.name for p in ROOT.iterdir() if not p.name.startswith(".")}
    for name in sorted(tops):
        if (ROOT / name).exists():
            (folder / name).symlink_to(ROOT / name)
    return folder


def _run(command: list[str], folder: Path, what: str) -> subprocess.CompletedProcess:
    """``command`` in ``folder``, its own session, killed with its children after
    :data:`TIMEOUT` seconds (a hang fails the test)."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
           f"{os.environ.get('PATH', '')}", "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1"}
    env.pop("AXISOPS_DEBUG", None)
    proc = subprocess.Popen(command, cwd=folder, env=env, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{what} did not finish in {TIMEOUT} s\n--- stdout\n{out}\n"
                    f"--- stderr\n{err}")
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def run_python_block(path: Path, block: Block, folder: Path) -> subprocess.CompletedProcess:
    """``block`` of ``path`` as a program of its own, in a fresh interpreter in ``folder``."""
    code = folder / f"block_{block.line}.py"
    code.write_text(block.code + "\n", encoding="utf-8")
    return _run([sys.executable, "-I", str(SCRIPT), str(code), str(path), str(block.line)],
                folder, f"{_name(path)}:{block.line}")


@pytest.mark.parametrize(("path", "block"), _runnable("python"))
def test_a_python_block_runs_as_a_program_of_its_own(path, block, tmp_path):
    done = run_python_block(path, block, _checkout_folder(tmp_path))
    assert done.returncode == 0, f"{_name(path)}:{block.line}\n{done.stderr[-4000:]}"


@pytest.mark.parametrize(("path", "block"), _runnable("sh"))
def test_a_shell_block_runs_as_written(path, block, tmp_path):
    folder = _checkout_folder(tmp_path)
    (folder / ".block.sh").write_text(block.code + "\n", encoding="utf-8")
    done = _run(["bash", "-euo", "pipefail", ".block.sh"], folder,
                f"{_name(path)}:{block.line}")
    assert done.returncode == 0, (f"{_name(path)}:{block.line} exited {done.returncode}\n"
                                  f"--- stdout\n{done.stdout[-2000:]}\n"
                                  f"--- stderr\n{done.stderr[-2000:]}")


def test_every_block_names_its_language_and_exceptions_stay_few():
    blocks = {_name(path): blocks_of(path) for path in FILES}
    unnamed = [f"{name}:{b.line} ({b.language or 'no language'})"
               for name, bs in blocks.items() for b in bs if b.language not in LANGUAGES]
    assert unnamed == [], "fence every block as python, sh, text or json"
    not_run = [(name, b.line, b.not_run) for name, bs in blocks.items() for b in bs
               if b.not_run and b.language == "python"]
    assert len(not_run) <= 4, not_run
    pointless = [(name, b.line) for name, bs in blocks.items() for b in bs
                 if b.not_run and b.language not in ("python", "sh")]
    assert pointless == [], "only python and sh blocks run: no not-run marker elsewhere"
    for name in ("README.md", "docs/ascend.md", "docs/directml.md", "docs/scale.md",
                 "docs/cli.md"):
        assert any(b.not_run is None and b.language in ("python", "sh")
                   for b in blocks[name]), name
    checked_prints = sum(len([s for s in ast.parse(b.code).body if is_print(s)])
                         for bs in blocks.values() for b in bs
                         if b.language == "python" and b.not_run is None)
    assert checked_prints >= 3


#: ``pip install`` of axisops by name (from PyPI), not of a checkout (``.``, ``'.[x]'``).
FROM_PYPI = re.compile(r"pip install\s+(?:-\S+\s+)*['\"]?axisops\b")


def test_installs_from_pypi_say_that_they_need_a_release():
    """There is no release on PyPI: every command that installs axisops by name says so on
    its line, and runs nowhere; the others install the checkout."""
    found = []
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), 1):
            if FROM_PYPI.search(line) and "release" not in line:
                found.append(f"{_name(path)}:{number}: {line.strip()}")
        for block in blocks_of(path):
            if block.language == "sh" and FROM_PYPI.search(block.code):
                assert block.not_run and "release" in block.not_run, \
                    f"{_name(path)}:{block.line} installs from PyPI: mark it not-run"
    assert found == []


def test_a_print_that_does_not_print_its_comment_fails(tmp_path):
    block = Block("python", 10, "x = [1, 2]\nprint(x)  # [1, 2]\nprint(len(x))  # 3", None)
    done = run_python_block(tmp_path / "snippet.md", block, tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().endswith("snippet.md:12 printed '2', and its comment says '3'")
    assert done.stdout == "[1, 2]\n2\n"


def test_a_block_sees_nothing_of_another(tmp_path):
    """Each block is a program of its own: names, imports and files of one are not there
    for the next."""
    first = Block("python", 1, "import sys\nx = 1\nopen('made.txt', 'w').close()", None)
    second = Block("python", 5, "print('numpy' in sys.modules)", None)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert run_python_block(tmp_path / "p.md", first, tmp_path / "a").returncode == 0
    done = run_python_block(tmp_path / "p.md", second, tmp_path / "b")
    assert done.returncode == 1 and "NameError: name 'sys' is not defined" in done.stderr
    assert 'p.md", line 5' in done.stderr  # the traceback points into the markdown file
    assert not (tmp_path / "b" / "made.txt").exists()


def test_a_hanging_block_fails_after_the_timeout(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "TIMEOUT", 1)
    block = Block("python", 1, "import time\ntime.sleep(60)", None)
    start = time.monotonic()
    with pytest.raises(pytest.fail.Exception, match="did not finish in 1 s"):
        run_python_block(tmp_path / "p.md", block, tmp_path)
    assert time.monotonic() - start < 30


def test_fences_markers_and_comments_are_read_as_written():
    text = ("Intro\n\n<!-- not-run: needs a GPU -->\n```python\nimport torch\n```\n\n"
            "```sh\nls\n```\n````python\nprint(1)  # 1\n````\n"
            "- item\n  ```text\n  E_INVALIDARG\n  ```\n")
    assert fenced_blocks(text) == [Block("python", 5, "import torch", "needs a GPU"),
                                   Block("sh", 9, "ls", None),
                                   Block("python", 12, "print(1)  # 1", None),
                                   Block("text", 16, "E_INVALIDARG", None)]
    assert end_of_line_comments("# alone\nx = 1  # one\ny = '# no'\n") == {2: "one"}
    assert FROM_PYPI.search("pip install 'axisops[torch]'")
    assert FROM_PYPI.search("pip install -q axisops")
    assert not FROM_PYPI.search(".venv/bin/pip install -q '.[torch]'")


# --- links ------------------------------------------------------------------------------------

LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+).*?\1")
MD_NAME = re.compile(r"`([^`\s]+\.md)`")


def prose(text: str) -> str:
    """``text`` without fenced blocks and code spans (links there are not links)."""
    lines, keep, fence = text.splitlines(), [], None
    for line in lines:
        opening = FENCE.match(line)
        if fence is None and opening is not None:
            fence = opening[2]
        elif fence is not None and line.strip().startswith(fence) and not line.strip(" `"):
            fence = None
        elif fence is None:
            keep.append(line)
    return "\n".join(keep)


def anchors(path: Path) -> set[str]:
    """GitHub's anchors for the headings of a markdown file."""
    found = set()
    for line in prose(path.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            title = heading[1].replace("`", "").strip().lower()
            found.add(re.sub(r"\s", "-", re.sub(r"[^\w\- ]", "", title)))
    return found


def _resolves(page: Path, target: str) -> bool:
    """Whether a relative link of ``page`` names a file of the repository (and its anchor)."""
    file_part, _, anchor = target.partition("#")
    resolved = (page.parent / file_part).resolve() if file_part else page
    if ROOT not in resolved.parents or not resolved.exists():
        return False
    return not anchor or resolved.suffix != ".md" or anchor in anchors(resolved)


def broken_links(path: Path) -> list[str]:
    """The relative links (and backticked ``*.md`` names) of ``path`` that resolve to nothing."""
    text = prose(path.read_text(encoding="utf-8"))
    broken = []
    for target in LINK.findall(CODE_SPAN.sub("", text)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue  # http:, https:, mailto: ...
        if not _resolves(path, target):
            broken.append(target)
    for name in MD_NAME.findall(text):
        if not ((path.parent / name).exists() or (ROOT / name).exists()):
            broken.append(f"`{name}`")
    return broken


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_every_relative_link_resolves(path):
    assert broken_links(path) == []


def test_links_are_found_and_checked(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A title: here\n")
    page = tmp_path / "README.md"
    page.write_text("## Usage\n[ok](docs/a.md#a-title-here) [web](https://x.org/y) "
                    "[self](#usage) ![img](docs/missing.png) [anchor](docs/a.md#nope) "
                    "[out](../elsewhere.md) `docs/a.md` `gone.md`\n"
                    "```python\n[not a link](nowhere.md)\n```\n")
    assert broken_links(page) == ["docs/missing.png", "docs/a.md#nope", "../elsewhere.md",
                                  "`gone.md`"]
