"""README.md, CHANGELOG.md and the pages of docs/: every Python snippet runs, and every
relative link resolves (``mkdocs build --strict`` checks the site's own links again).

Snippets are the blocks fenced as ```` ```python ````.  The blocks of a file run
in order, in one fresh namespace per file, in a temporary directory, so a later
block may use what an earlier one made.  Conventions the files follow:

- ``<!-- not-run: REASON -->`` on the line before a block: the block is not run
  (it needs a CUDA GPU, or it is a call signature).  Keep these few.
- A block that imports an optional stack (dask, torch, jax ...) runs where the
  stack is installed; without it, that block and the file's later blocks are
  skipped (they may build on it).
- ``print(...)`` with a comment at the end of its line must print exactly the
  comment's text (``print(x.tolist())  # [1, 2]``).
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import re
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The pages (docs/figures/*.md are snippets the performance page includes, not pages).
FILES = [ROOT / "README.md", ROOT / "CHANGELOG.md",
         *sorted(p for p in (ROOT / "docs").rglob("*.md") if p.parent.name != "figures")]
#: Stacks a snippet may import that the package does not require.
OPTIONAL = {"cupy", "dask", "distributed", "jax", "matplotlib", "torch", "triton", "xarray",
            "zarr"}
FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)\s*$")
NOT_RUN = re.compile(r"^<!--\s*not-run:\s*(\S.*?)\s*-->$")


@dataclass
class Block:
    """One fenced block: its language, first code line (1-based), code, and not-run reason."""

    language: str
    line: int
    code: str
    not_run: str | None


def fenced_blocks(text: str) -> list[Block]:
    """Every fenced block of a markdown text, in order."""
    lines, blocks, i = text.splitlines(), [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith(opening[1]))
        before = next((line for line in reversed(lines[:i]) if line.strip()), "")
        marker = NOT_RUN.match(before.strip())
        blocks.append(Block(opening[2], i + 2, "\n".join(lines[i + 1:end]),
                            marker[1] if marker else None))
        i = end + 1
    return blocks


def python_blocks(path: Path) -> list[Block]:
    return [b for b in fenced_blocks(path.read_text()) if b.language == "python"]


def missing_stacks(code: str) -> list[str]:
    """The optional stacks ``code`` imports that are not installed here."""
    roots = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            roots.add(node.module.split(".")[0])
    return sorted(r for r in roots & OPTIONAL if importlib.util.find_spec(r) is None)


def end_of_line_comments(code: str) -> dict[int, str]:
    """``{line: text}`` of comments that follow code on their line (1-based lines)."""
    found, code_lines = {}, set()
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT and token.start[0] in code_lines:
            found[token.start[0]] = token.string.lstrip("#").strip()
        elif token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                tokenize.DEDENT, tokenize.COMMENT):
            code_lines.add(token.start[0])
    return found


def _is_print(statement: ast.stmt) -> bool:
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Name) and statement.value.func.id == "print")


def run_block(block: Block, filename: str, namespace: dict) -> int:
    """Run ``block`` statement by statement; check its prints; return how many were checked."""
    tree = ast.parse(block.code)
    comments, checked = end_of_line_comments(block.code), 0
    for statement in tree.body:
        module = ast.Module([statement], type_ignores=[])
        ast.increment_lineno(module, block.line - 1)  # tracebacks point into the .md file
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(module, filename, "exec"), namespace)
        expected = comments.get(statement.end_lineno - block.line + 1)
        if _is_print(statement) and expected is not None:
            assert printed.getvalue().rstrip("\n") == expected, \
                f"{filename}:{statement.lineno} printed {printed.getvalue()!r}"
            checked += 1
    return checked


@pytest.fixture
def clean_ascend_runtime():
    """Snippets may leave the Ascend emulator initialised; later tests need it fresh."""
    yield
    acl = sys.modules.get("axisops.ascend.acl")
    if acl is not None:  # finalise through the public API (100001 when nothing was left)
        acl.finalize()
        acl.get_recent_err_msg()


RUNNABLE = [path for path in FILES if any(b.not_run is None for b in python_blocks(path))]


#: Files whose snippets take ten seconds or more (the README's tour imports every stack).
SLOW = {"README.md", "scale.md"}


@pytest.mark.parametrize("path", [
    pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW else p for p in RUNNABLE
], ids=lambda p: str(p.relative_to(ROOT)))
def test_the_python_snippets_run(path, tmp_path, monkeypatch, clean_ascend_runtime):
    monkeypatch.chdir(tmp_path)
    filename, namespace = str(path.relative_to(ROOT)), {"__name__": "__main__"}
    for block in python_blocks(path):
        if block.not_run is not None:
            continue
        missing = missing_stacks(block.code)
        if missing:
            pytest.skip(f"{filename}:{block.line} and later blocks need {', '.join(missing)}")
        run_block(block, filename, namespace)


def test_the_conventions_are_applied_and_exceptions_stay_few():
    blocks = {path.relative_to(ROOT).as_posix(): python_blocks(path) for path in FILES}
    not_run = [(name, b.line, b.not_run) for name, bs in blocks.items() for b in bs if b.not_run]
    assert len(not_run) <= 4, not_run
    for name in ("README.md", "docs/ascend.md", "docs/directml.md", "docs/scale.md"):
        assert any(b.not_run is None for b in blocks[name]), name
    checked_prints = sum(len([s for s in ast.parse(b.code).body if _is_print(s)])
                         for bs in blocks.values() for b in bs if b.not_run is None)
    assert checked_prints >= 3


def test_a_print_that_does_not_print_its_comment_fails():
    block = Block("python", 10, "x = [1, 2]\nprint(x)  # [1, 2]\nprint(len(x))  # 3", None)
    with pytest.raises(AssertionError, match=r"snippet.md:12 printed '2\\n'"):
        run_block(block, "snippet.md", {})


def test_fences_markers_and_comments_are_read_as_written():
    text = ("Intro\n\n<!-- not-run: needs a GPU -->\n```python\nimport torch\n```\n\n"
            "```sh\nls\n```\n````python\nprint(1)  # 1\n````\n")
    assert fenced_blocks(text) == [Block("python", 5, "import torch", "needs a GPU"),
                                   Block("sh", 9, "ls", None),
                                   Block("python", 12, "print(1)  # 1", None)]
    assert end_of_line_comments("# alone\nx = 1  # one\ny = '# no'\n") == {2: "one"}
    assert missing_stacks("import numpy\nimport no_such_stack") == []
    assert missing_stacks("import dask.array as da") == (
        [] if importlib.util.find_spec("dask") else ["dask"])


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
            fence = opening[1]
        elif fence is not None and line.startswith(fence):
            fence = None
        elif fence is None:
            keep.append(line)
    return "\n".join(keep)


def anchors(path: Path) -> set[str]:
    """GitHub's anchors for the headings of a markdown file."""
    found = set()
    for line in prose(path.read_text()).splitlines():
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
    text = prose(path.read_text())
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


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
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
