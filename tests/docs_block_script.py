"""Runs one Python block of README.md or docs/ as a program of its own (the child of
tests/test_docs_markdown.py): ``python -I docs_block_script.py BLOCK SOURCE LINE``, where
BLOCK is a file holding the block's code, SOURCE the markdown file it comes from and LINE
the block's first line there.

The block runs in this fresh interpreter as ``__main__``, statement by statement, so that
tracebacks point into SOURCE; a ``print(...)`` with a comment at the end of its line must
print exactly the comment's text (``print(x.tolist())  # [1, 2]``), or the run ends with
status 1 and says where.  Imports nothing but the standard library before the block does.
"""

from __future__ import annotations

import ast
import contextlib
import io
import sys
import tokenize
import types


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


def is_print(statement: ast.stmt) -> bool:
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Name) and statement.value.func.id == "print")


def run(code: str, source: str, line: int, path: str = "<block>") -> int:
    """Run ``code`` (first line: ``line`` of ``source``) in a new ``__main__`` module and
    check its prints; returns how many prints were checked, or raises AssertionError."""
    tree = ast.parse(code)
    comments, checked = end_of_line_comments(code), 0
    main = types.ModuleType("__main__")
    main.__file__ = path
    sys.modules["__main__"] = main
    for statement in tree.body:
        module = ast.Module([statement], type_ignores=[])
        ast.increment_lineno(module, line - 1)  # tracebacks point into the markdown file
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(module, source, "exec"), main.__dict__)
        sys.stdout.write(printed.getvalue())
        expected = comments.get(statement.end_lineno - line + 1)
        if is_print(statement) and expected is not None:
            got = printed.getvalue().rstrip("\n")
            if got != expected:
                raise AssertionError(f"{source}:{statement.lineno} printed "
                                     f"{got!r}, and its comment says {expected!r}")
            checked += 1
    return checked


def main() -> int:
    path, source, line = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(path, encoding="utf-8") as file:
        code = file.read()
    try:
        run(code, source, line, path)
    except AssertionError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
