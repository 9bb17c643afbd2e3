"""The public API is pinned: ``mnemo.__all__`` exactly, each name importable and documented,
and the exception tree drawn in ``mnemo.errors``' docstring equal to the real class hierarchy.

Changing the public API means changing ``PUBLIC`` here on purpose.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mnemo
from mnemo import errors

# ruff's RUF022 order (constants first, then classes), as in mnemo/__init__.py.
PUBLIC = [
    "MEMORY_KINDS",
    "MEMORY_PREFIX",
    "PRESETS",
    "AsyncMemory",
    "AuditReport",
    "ConfigError",
    "ContextBundle",
    "Document",
    "EmbeddingError",
    "EmbeddingTransientError",
    "Finding",
    "HistoryEntry",
    "Hit",
    "Job",
    "LLMError",
    "LLMOutputError",
    "LLMTransientError",
    "Memory",
    "MemoryItem",
    "MemoryKind",
    "MemoryQuery",
    "Message",
    "MessageIn",
    "MessageQuery",
    "MnemoError",
    "NotFoundError",
    "Page",
    "ProfileFact",
    "SchemaError",
    "SearchQuery",
    "Settings",
    "Stats",
    "StorageError",
    "ThreadedFacade",
    "Topic",
    "TopicHit",
    "TopicStats",
    "TransientError",
    "TurnBatch",
    "ValidationError",
    "twin",
]


def test_all_is_exactly_the_pinned_list() -> None:
    assert mnemo.__all__ == PUBLIC
    assert len(set(PUBLIC)) == len(PUBLIC)


@pytest.mark.parametrize("name", PUBLIC)
def test_each_name_imports_from_mnemo(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from mnemo import {name}", namespace)
    assert namespace[name] is getattr(mnemo, name)


def test_star_import_in_a_fresh_interpreter_gives_exactly_all() -> None:
    code = (
        "before = set(globals())\n"
        "from mnemo import *\n"
        "print(' '.join(sorted(set(globals()) - before - {'before'})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == sorted(PUBLIC)


def doc_comment(name: str, path: Path) -> str | None:
    """The ``#:`` comment right above the top-level assignment of ``name`` in the module at
    ``path``; None when that module does not assign ``name``."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    for node in ast.parse(source).body:
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Assign):
            targets = node.targets
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            above: list[str] = []
            i = node.lineno - 2
            while i >= 0 and lines[i].startswith("#:"):
                above.insert(0, lines[i][2:].strip())
                i -= 1
            return " ".join(above)
    return None


@pytest.mark.parametrize("name", PUBLIC)
def test_each_name_is_documented(name: str) -> None:
    obj = getattr(mnemo, name)
    if inspect.isclass(obj) or inspect.isfunction(obj):
        doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else obj.__doc__
        assert doc and doc.strip(), f"{name} has no docstring of its own"
        return
    # A constant: a Sphinx ``#:`` comment where it is assigned, in the module mnemo/__init__.py
    # imports it from, or the one that module imports it from (another module may assign a
    # name of its own that is spelled the same).
    path = Path(mnemo.__file__)
    while (doc := doc_comment(name, path)) is None:
        path = imported_from(name, path)
    assert doc, f"{name} has no #: comment in {path}"


def imported_from(name: str, path: Path) -> Path:
    """The file of the module that the module at ``path`` imports ``name`` from."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    [module] = [
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module
        and any(a.name == name for a in node.names)
    ]
    found = Path(mnemo.__file__).parent.joinpath(*module.split(".")[1:])
    return found.with_suffix(".py") if found.with_suffix(".py").exists() else found / "__init__.py"


def test_every_public_exception_is_exported() -> None:
    defined = sorted(
        name
        for name, obj in vars(errors).items()
        if inspect.isclass(obj)
        and issubclass(obj, BaseException)
        and obj.__module__ == errors.__name__
        and not name.startswith("_")
    )
    assert sorted(errors.__all__) == defined
    assert set(defined) <= set(mnemo.__all__)
    assert all(issubclass(getattr(errors, n), errors.MnemoError) for n in defined)


# ---- the exception tree in mnemo.errors' docstring ------------------------------------------
NODE = re.compile(
    r"^(?P<lead>(?:│   |    )*)(?P<branch>├── |└── )?(?P<name>[A-Z]\w*)\b(?P<rest>.*)$"
)
ALSO = re.compile(r"\(also an? (\w+)\)")


def drawn_tree() -> list[tuple[int, str, str, str]]:
    """(depth, branch, name, description) of each line of the drawn tree, top to bottom."""
    doc = errors.__doc__ or ""
    lines = doc.splitlines()
    start = next(i for i, line in enumerate(lines) if line.rstrip().endswith("::")) + 1
    while not lines[start].strip():
        start += 1
    out = []
    for line in lines[start:]:
        if not line.strip():
            break
        assert line.startswith("    "), f"tree line not indented by 4: {line!r}"
        m = NODE.match(line[4:])
        assert m, f"not a tree line: {line!r}"
        depth = len(m["lead"]) // 4 + (1 if m["branch"] else 0)
        out.append((depth, m["branch"] or "", m["name"], m["rest"].strip()))
    return out


def resolve(name: str) -> type:
    obj = getattr(errors, name, None) or getattr(builtins, name, None)
    assert inspect.isclass(obj), f"the tree names {name}, which is no class"
    return obj


def test_the_drawn_tree_is_the_real_hierarchy() -> None:
    tree = drawn_tree()
    assert tree[0][:3] == (0, "", "MnemoError")
    assert errors.MnemoError.__bases__ == (Exception,)
    parents: dict[int, str] = {}
    children: dict[str, list[tuple[str, str]]] = {}
    for depth, branch, name, text in tree:
        assert depth == 0 or depth - 1 in parents, f"{name} drawn without a parent"
        parents[depth] = name
        for deeper in [d for d in parents if d > depth]:
            del parents[deeper]
        if depth == 0:
            continue
        parent = parents[depth - 1]
        children.setdefault(parent, []).append((name, branch))
        cls = resolve(name)
        assert resolve(parent) in cls.__bases__, f"{name} is drawn under {parent}"
        others = {b.__name__ for b in cls.__bases__} - {parent}
        assert set(ALSO.findall(text)) == others, f"{name}: '(also a ...)' must name {others}"
        assert text, f"{name} has no description in the tree"
    # Well drawn: the last child of each class hangs on └──, the others on ├──.
    for parent, kids in children.items():
        drawn = [b for _, b in kids]
        assert drawn == ["├── "] * (len(kids) - 1) + ["└── "], f"branches under {parent}"
    # Every public exception is drawn, once.
    names = [name for _, _, name, _ in tree]
    assert sorted(names) == sorted(errors.__all__), "the tree must draw each exception once"


def test_the_tree_checker_rejects_a_wrong_drawing(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = errors.__doc__ or ""
    wrong = doc.replace(
        "├── EmbeddingError        an embedder could not produce vectors\n"
        "    │   └── EmbeddingTransientError",
        "├── EmbeddingError        an embedder could not produce vectors\n"
        "    ├── EmbeddingTransientError",
    )
    assert wrong != doc
    monkeypatch.setattr(errors, "__doc__", wrong)
    with pytest.raises(AssertionError, match="EmbeddingTransientError is drawn under MnemoError"):
        test_the_drawn_tree_is_the_real_hierarchy()
