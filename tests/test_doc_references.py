"""Every pointer to code in the package's docstrings, the README and docs/*.md resolves, so a
module that moves or a name that is renamed cannot leave a stale pointer behind.

What counts as a pointer (one rule per kind, each anchored so prose and data are never taken
for code):

1. **Qualified names**, anywhere (plain text, backticks, Sphinx roles, code blocks):
   ``mnemo.a.b.c``. Resolved by importing the longest module prefix and ``getattr`` the rest.
2. **Package-relative names**: a dotted path whose first part is one of mnemo's top-level
   modules or packages (``retrieval.keys``, ``storage.base.Store``, ``text.turn_kinds``),
   in prose or backticks, not inside a Markdown code block. Resolved as ``mnemo.<path>``.
3. **File paths** with a folder: ``mnemo/...``, ``tests/...``, ``bench/...``, ``scripts/...``,
   ``docs/...`` from the repository root, and ``<top-level package>/...`` (``memory/facade.py``,
   ``storage/sql/store.py``) from ``mnemo/``, or from ``tests/`` for a ``test_*`` file
   (``config/test_config.py``). The file must exist.
4. **Sphinx roles** in docstrings (``:class:`~x.Y```, ``:func:`x.y```, ``:mod:`.sibling```,
   ...) whose target is dotted, and
5. **backticked dotted names** in docstrings (``sqlite_rows.fetched``, ``Records.get_memory``):
   resolved the way Sphinx looks a name up from the module that holds the docstring: a leading
   ``.`` is relative to its package; otherwise in the module's own namespace, then in the module,
   its package and each parent package, then as ``mnemo.<path>``, then as an installed
   module (``asyncio.gather``). Dotted names that are data, not code (a hit's ``hit.scores``,
   a job kind ``turns.profile``, a metadata key, a local variable), start with one of the words
   in :data:`NOT_CODE` and are skipped.
6. In the README and docs, a backticked ``Name.attr`` whose ``Name`` is exported by ``mnemo``
   (``Memory.search``) resolves on ``mnemo``.

A dotted name ending in a file extension (``mnemo.toml``, ``config.json``, ``ui.md``) is a file
name, not a pointer. A class attribute counts when it is a pydantic or dataclass field or an
annotation (``Hit.scores``), or an instance attribute its methods set (``self.handlers = ...``),
even though ``getattr`` on the class would not find it.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import inspect
import re
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import mnemo

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mnemo"
#: mnemo's top-level modules and packages (``retrieval``, ``storage``, ``errors``, ...).
TOP_LEVEL = sorted(
    p.stem
    for p in PACKAGE.iterdir()
    if not p.name.startswith("_") and (p.suffix == ".py" or (p / "__init__.py").exists())
)
#: A last part that makes a dotted name a file name.
FILE_EXTENSIONS = {
    "csv", "css", "db", "html", "js", "json", "jsonl", "log", "md", "onnx", "png", "py",
    "sql", "sqlite", "toml", "txt", "yaml", "yml",
}  # fmt: skip
#: First parts of backticked dotted names in docstrings that name data, not code: variables and
#: parameters (``hit.scores``, ``settings.rrf_k``), job kinds (``turns.profile``), JSON and SQL
#: fields (``metadata.kind``, ``json_each.type``), PostgreSQL settings (``hnsw.iterative_scan``).
NOT_CODE = {
    "blk", "bundle", "c", "chat", "d", "error", "fact_runs", "frag", "general", "hit", "hnsw",
    "json_each", "spec",
    "layout", "m", "mem", "messages", "metadata", "options", "policy", "report", "req", "self",
    "settings", "source", "store", "topics", "turns", "tx",
}  # fmt: skip
NAME = r"[A-Za-z_]\w*"
#: rule 1 and 2: ``mnemo.a.b`` or ``<top-level>.a.b``, not part of a longer path or file name.
ANCHORED = re.compile(rf"(?<![\w./-])((?:mnemo|{'|'.join(TOP_LEVEL)})(?:\.{NAME})+)(?![\w/-]|\.\w)")
#: rule 3: a path with at least one folder and a file extension.
FILE_PATH = re.compile(
    rf"(?<![\w./~:-])((?:mnemo|tests|bench|scripts|docs|{'|'.join(TOP_LEVEL)})/[\w./-]*\.\w+)"
    r"(?![\w*/])"
)
#: rule 4: a Sphinx role's target (``:class:`~mnemo.x.Y``` or ``:func:`title <x.y>```).
ROLE = re.compile(r":(?:py:)?[a-z]+:`(?:[^`<]*<)?~?(\.?[\w.]+)>?`")
#: rule 5 and 6: a backticked dotted name.
BACKTICKED = re.compile(rf"(?<!:)``?~?(\.?{NAME}(?:\.{NAME})+)``?")
FENCE = re.compile(r"```.*?```", re.S)


@dataclass(frozen=True)
class Reference:
    """One pointer found in a text: what it says, how to resolve it, and where it is."""

    target: str
    kind: str  # "qualified" (rules 1-2, 6), "file" (rule 3), "relative" (rules 4-5)
    where: str  # "path:line"


def line_of(text: str, offset: int, first_line: int) -> int:
    """The source line of ``offset`` in a text that starts on ``first_line``."""
    return first_line + text.count("\n", 0, offset)


def is_file_name(dotted: str) -> bool:
    """``mnemo.toml``, ``config.json``: the last part is a file extension."""
    return dotted.rsplit(".", 1)[-1] in FILE_EXTENSIONS


def references_in(
    text: str, where: str, first_line: int = 1, *, docstring: bool, public: set[str]
) -> Iterator[Reference]:
    """The pointers of one docstring (``docstring=True``) or one Markdown page."""
    prose = text if docstring else FENCE.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), text)
    spans: set[tuple[int, int]] = set()

    def at(offset: int) -> str:
        return f"{where}:{line_of(text, offset, first_line)}"

    for m in ANCHORED.finditer(text):
        name = m[1]
        in_prose = prose[m.start(1) : m.end(1)] == name
        if is_file_name(name) or not (name.startswith("mnemo.") or in_prose):
            continue
        spans.add(m.span(1))
        qualified = name if name.startswith("mnemo.") else f"mnemo.{name}"
        yield Reference(qualified, "qualified", at(m.start(1)))
    for m in FILE_PATH.finditer(prose):
        yield Reference(m[1], "file", at(m.start(1)))
    backticked = [*ROLE.finditer(text), *BACKTICKED.finditer(prose)] if docstring else []
    for m in backticked:
        name = m[1]
        if "." not in name or m.span(1) in spans or is_file_name(name):
            continue
        if name.split(".", 1)[0] in NOT_CODE or ANCHORED.fullmatch(name):
            continue
        yield Reference(name, "relative", at(m.start(1)))
    if not docstring:
        for m in BACKTICKED.finditer(prose):
            name = m[1]
            if name.split(".", 1)[0] in public:
                yield Reference(f"mnemo.{name}", "qualified", at(m.start(1)))


def has_attribute(obj: Any, name: str) -> bool:
    """``getattr`` would find ``name``, or it is a field or annotation of the class ``obj``."""
    if hasattr(obj, name):
        return True
    if isinstance(obj, type):
        for klass in obj.__mro__:
            fields = {
                *getattr(klass, "model_fields", {}),
                *getattr(klass, "__dataclass_fields__", {}),
                *vars(klass).get("__annotations__", {}),
            }
            if name in fields:
                return True
            if name in attributes_set_on_self(klass):
                return True
    return False


def attributes_set_on_self(klass: type) -> set[str]:
    """The names a class's own methods assign as ``self.name = ...`` (instance attributes)."""
    try:
        source = inspect.getsource(klass)
    except (OSError, TypeError):
        return set()
    return set(re.findall(r"\bself\.(\w+)\s*(?::[^=\n]+)?=(?!=)", source))


def lookup(obj: Any, parts: list[str]) -> bool:
    """Whether ``obj.parts[0].parts[1]...`` exists (fields of a class count, see above)."""
    for i, part in enumerate(parts):
        if not has_attribute(obj, part):
            return False
        if i < len(parts) - 1:
            obj = getattr(obj, part, None)
            if obj is None:
                return False
    return True


def module(name: str) -> types.ModuleType | None:
    """The module ``name``, imported, or None when there is no such module."""
    try:
        if name in sys.modules:
            return sys.modules[name]
        if importlib.util.find_spec(name) is None:
            return None
    except (ImportError, ValueError):
        return None
    return importlib.import_module(name)


def resolve_qualified(dotted: str) -> bool:
    """Import the longest module prefix of ``dotted``, then ``getattr`` the rest."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        found = module(".".join(parts[:cut]))
        if found is not None:
            return lookup(found, parts[cut:])
    return False


def resolve_relative(dotted: str, context: str) -> bool:
    """Resolve a name written in a docstring of the module ``context`` (rules 4 and 5)."""
    if dotted.startswith("."):
        home = module(context)
        package = context if hasattr(home, "__path__") else context.rsplit(".", 1)[0]
        return resolve_qualified(f"{package}{dotted}")
    first, _, rest = dotted.partition(".")
    home = module(context)
    if home is not None and first in vars(home):
        return lookup(vars(home)[first], rest.split("."))
    parts = context.split(".")
    bases = [".".join(parts[:cut]) for cut in range(len(parts), 0, -1)]
    if any(resolve_qualified(f"{base}.{dotted}") for base in bases):
        return True
    return first not in vars(builtins) and module(first) is not None and resolve_qualified(dotted)


def resolves(ref: Reference, context: str | None = None, root: Path = ROOT) -> bool:
    """Whether the pointer ``ref`` (found in module ``context``, if any) names something real."""
    if ref.kind == "file":
        first, name = ref.target.split("/", 1)[0], ref.target.rsplit("/", 1)[-1]
        if first not in TOP_LEVEL:
            return (root / ref.target).exists()
        return (root / ("tests" if name.startswith("test_") else "mnemo") / ref.target).exists()
    if ref.kind == "qualified":
        return resolve_qualified(ref.target)
    return context is not None and resolve_relative(ref.target, context)


def docstrings(path: Path) -> Iterator[tuple[int, str]]:
    """(first line, text) of the module's, each class's and each function's docstring."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text is not None:
                yield node.body[0].lineno, text


def module_name(path: Path) -> str:
    """``mnemo/storage/sql/store.py`` -> ``mnemo.storage.sql.store``."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unresolved() -> list[str]:
    """Every pointer in the package's docstrings, the README and docs/*.md that does not resolve."""
    public = set(mnemo.__all__)
    broken: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = str(path.relative_to(ROOT))
        context = module_name(path)
        for line, text in docstrings(path):
            for ref in references_in(text, where, line, docstring=True, public=public):
                if not resolves(ref, context):
                    broken.append(f"{ref.where}: {ref.target}")
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for ref in references_in(text, str(page.relative_to(ROOT)), docstring=False, public=public):
            if not resolves(ref):
                broken.append(f"{ref.where}: {ref.target}")
    return broken


def test_every_reference_in_docstrings_and_docs_resolves() -> None:
    broken = unresolved()
    assert broken == [], "stale references:\n" + "\n".join(broken)


def found(text: str, *, docstring: bool = True) -> list[str]:
    """The targets ``references_in`` finds in ``text``."""
    refs = references_in(text, "x.py", docstring=docstring, public=set(mnemo.__all__))
    return [r.target for r in refs]


@pytest.mark.parametrize(
    ("text", "context", "target"),
    [
        # The four pointers issue 23 found stale, each where it was written.
        ("Extra keys (see retrieval.keys).", "mnemo.config.search", "mnemo.retrieval.keys"),
        (
            "Hit fields; see ``sqlite_rows.fetched``.",
            "mnemo.storage.sqlite.store",
            "sqlite_rows.fetched",
        ),
        (
            "Session aggregation (see retrieval.context.session_boost).",
            "mnemo.retrieval.pipeline",
            "mnemo.retrieval.context.session_boost",
        ),
        (
            "Backends behind the :class:`~mnemo.storage.base.Store` protocol.",
            "mnemo.storage",
            "mnemo.storage.base.Store",
        ),
        ("In ``storage/sqlite_rows.py``.", "mnemo.storage", "storage/sqlite_rows.py"),
    ],
)
def test_the_stale_pointers_of_issue_23_are_found_and_do_not_resolve(
    text: str, context: str, target: str
) -> None:
    refs = list(references_in(text, "x.py", 1, docstring=True, public=set(mnemo.__all__)))
    assert [r.target for r in refs] == [target]
    assert not resolves(refs[0], context)


@pytest.mark.parametrize(
    ("text", "context"),
    [
        ("Extra keys (see index.keys).", "mnemo.config.search"),
        ("Hit fields; see ``rows.fetched``.", "mnemo.storage.sql.search"),
        ("See :func:`mnemo.retrieval.neighbours.session_boost`.", "mnemo.retrieval.pipeline"),
        ("Behind the :class:`~mnemo.storage.ports.store.Store` protocol.", "mnemo.storage"),
        ("Sibling: :func:`.env.warn_unknown`.", "mnemo.config.sources"),
        ("The field ``Hit.scores`` of ``RetrievalRequest.limit``.", "mnemo.retrieval.request"),
        ("See ``storage/sql/rows.py`` and ``mnemo/storage/sql/rows.py``.", "mnemo.storage"),
    ],
)
def test_pointers_to_the_current_places_resolve(text: str, context: str) -> None:
    refs = list(references_in(text, "x.py", 1, docstring=True, public=set(mnemo.__all__)))
    assert refs
    assert all(resolves(r, context) for r in refs), refs


def test_file_names_data_and_code_blocks_are_not_pointers() -> None:
    assert found("Reads ``mnemo.toml`` and ``config.json``; see embedders.md.") == []
    assert found("Each ``hit.scores`` and the ``turns.profile`` job.") == []
    sdk = "```python\nfrom mcp.client.streamable_http import x\n```\n"
    assert found(sdk, docstring=False) == []
    assert found("```python\nfrom mnemo.nowhere import x\n```\n", docstring=False) == [
        "mnemo.nowhere"
    ]
    assert found("See `Memory.search`.", docstring=False) == ["mnemo.Memory.search"]


def test_a_missing_file_path_does_not_resolve(tmp_path: Path) -> None:
    (tmp_path / "mnemo" / "memory").mkdir(parents=True)
    (tmp_path / "mnemo" / "memory" / "facade.py").touch()
    assert resolves(Reference("memory/facade.py", "file", "x"), root=tmp_path)
    assert not resolves(Reference("memory/turns.py", "file", "x"), root=tmp_path)
    assert not resolves(Reference("tests/test_gone.py", "file", "x"), root=tmp_path)
