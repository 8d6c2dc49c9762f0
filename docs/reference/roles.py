"""The API reference's Sphinx roles, as links: a Griffe extension and an MkDocs hook
(both named in mkdocs.yml; this file is not a page of the site).

The docstrings name other objects with Sphinx's roles (:func:`topk`, :mod:`axisops.runner`,
:class:`~axisops.errors.Arg`), which read well in ``help()`` and which mkdocstrings would
show as they are. Before the docstrings are rendered, :class:`SphinxRoles` replaces each
role with a cross-reference to the object it names, resolved in the docstring's own scope
as Python would (``topk`` in ``axisops.api`` is ``axisops.api.topk``), shown as code: a
link where the reference renders that object, the name alone where it does not (a module
the reference leaves out). An RST literal block's ``::`` becomes a ``:``. Names the package
imports from a stub alone (``axisops/_api.pyi``) are pointed at their run-time module.

Then :func:`on_page_content`, an MkDocs hook, warns of any role left in a rendered page,
which fails ``mkdocs build --strict``. :func:`convert` and :func:`raw_roles` are plain
functions, tested by tests/test_docs_site.py without the documentation's tools.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Callable
from typing import Any

try:
    from griffe import Extension
except ImportError:  # the suite imports this file for convert and raw_roles alone
    Extension = object  # type: ignore[assignment,misc]

ROLES = ("func", "meth", "class", "mod", "attr", "data", "exc", "obj", "const")
#: A role: ``:func:`name```, ``:py:func:`~path```, ``:class:`title <path>```...
ROLE = re.compile(r":(?:py:)?(" + "|".join(ROLES) + r"):`(~?)"
                  r"(?:([^`<]*?)\s*<([\w.]+)>|([\w.]+)(\(\))?)`")
#: A role as a rendered page shows one left unconverted (backticks become <code>).
RAW_ROLE = re.compile(r":(?:py:)?(?:" + "|".join(ROLES) + r"|[a-z]+):(?:`|<code>)")
#: An RST paragraph that ends in ``::`` before a literal block.
LITERAL = re.compile(r"(\S)( ?)::(\n\n[ \t]+\S)")

_log = logging.getLogger("mkdocs.plugins.axisops_roles")


def convert(text: str, resolve: Callable[[str], str]) -> str:
    """``text`` with every role replaced by an optional cross-reference to ``resolve(name)``
    (the name as written where it raises LookupError), titled with the name, or its last
    part after ``~``, as code; and RST's ``text::`` before a literal block as ``text:``.

    >>> convert("See :func:`topk` and :class:`~a.b.C`.", lambda n: "x." + n)
    'See <autoref identifier="x.topk" optional><code>topk</code></autoref> and \
<autoref identifier="x.a.b.C" optional><code>C</code></autoref>.'
    >>> convert(":class:`the base <a.Base>`", lambda n: n)
    '<autoref identifier="a.Base" optional><code>the base</code></autoref>'
    """
    def replace(match: re.Match) -> str:
        tilde, given, name = match[2], match[3], match[4] or match[5]
        try:
            path = resolve(name)
        except LookupError:
            path = name
        title = given or (name.rsplit(".", 1)[-1] if tilde else name) + (match[6] or "")
        return (f'<autoref identifier="{html.escape(path)}" optional>'
                f"<code>{html.escape(title)}</code></autoref>")

    return LITERAL.sub(r"\1:\3", ROLE.sub(replace, text))


def raw_roles(page: str) -> list[str]:
    """The roles a rendered page still shows, with a few characters around each."""
    text = re.sub(r"<pre[^>]*>.*?</pre>", "", page, flags=re.S)  # code may show roles
    text = re.sub(r"<code>.*?</code>", "<code></code>", text, flags=re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", text[max(0, m.start() - 30):m.end() + 30]))
            for m in RAW_ROLE.finditer(text)]


def _resolver(obj: Any) -> Callable[[str], str]:
    """How names in ``obj``'s docstring resolve: absolute (``axisops.x``), relative to its
    package (``.memory``), or in its scope, first part first (``Engine.topk_block``)."""
    root = obj.path.split(".")[0]

    def resolve(name: str) -> str:
        if name.startswith("."):
            module = obj if obj.is_module else obj.module
            package = module.path if module.is_package else module.path.rsplit(".", 1)[0]
            return package + name
        first, _, rest = name.partition(".")
        if first == root:
            return name
        try:
            found = obj.resolve(first)
        except Exception as error:  # griffe's NameResolutionError
            raise LookupError(name) from error
        return f"{found}.{rest}" if rest else found

    return resolve


class SphinxRoles(Extension):
    """Converts the roles of every docstring of a package once it is loaded."""

    def on_package(self, *, pkg: Any, **kwargs: Any) -> None:
        _to_run_time(pkg)
        seen: set[int] = set()
        todo = [pkg]
        while todo:
            obj = todo.pop()
            if id(obj) in seen or obj.is_alias:
                continue
            seen.add(id(obj))
            if obj.docstring is not None:
                obj.docstring.value = convert(obj.docstring.value, _resolver(obj))
            todo.extend(member for member in obj.members.values() if not member.is_alias)


def _to_run_time(pkg: Any) -> None:
    """Points the package's names that a type checker imports from a stub alone
    (``axisops.topk`` from ``axisops/_api.pyi``, under ``TYPE_CHECKING``) at the module
    they come from at run time, named as the stub without its underscore (``axisops.api``),
    where the functions and their docstrings are."""
    from griffe import Alias, AliasResolutionError

    for name, member in list(pkg.members.items()):
        if not member.is_alias:
            continue
        try:
            member.resolve_target()
        except AliasResolutionError:
            module, _, attr = member.target_path.rpartition(".")
            public = module.rpartition(".")[2].lstrip("_")
            run_time = pkg.members.get(public)
            if run_time is not None and attr in run_time.members:
                pkg.set_member(name, Alias(name, run_time.members[attr], parent=pkg))


def on_page_content(html_text: str, page: Any, **kwargs: Any) -> str:
    """MkDocs hook: warn of every role a page still shows (``--strict`` fails on it)."""
    for found in raw_roles(html_text):
        _log.warning("%s shows a raw Sphinx role: ...%s...", page.file.src_uri, found)
    return html_text
