"""The import-layer contract: every import goes down a layer, never up, never in a cycle.

Imports are read from the source with ``ast``, so imports under ``TYPE_CHECKING`` and inside
functions count too. ``from mnemo.pkg import name`` imports the submodule ``mnemo.pkg.name``
when one exists, else the package ``mnemo.pkg`` (its ``__init__``). docs/architecture.md draws
the same layers.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "mnemo"

#: Top to bottom. A module may import its own package and anything in a lower layer. Packages
#: of one layer are independent of each other.
LAYERS: list[list[str]] = [
    ["mnemo.__main__"],
    ["mnemo.cli"],
    ["mnemo.api", "mnemo.eval", "mnemo.integrations", "mnemo.mcp", "mnemo.ui"],
    ["mnemo.compat"],
    ["mnemo.memory"],
    ["mnemo.context", "mnemo.ops", "mnemo.files"],
    ["mnemo.retrieval", "mnemo.tiers", "mnemo.jobs"],
    ["mnemo.index"],
    ["mnemo.storage", "mnemo.embedders", "mnemo.llm"],
    ["mnemo.text", "mnemo.filters"],
    ["mnemo.list_query"],
    ["mnemo.config", "mnemo.search_query"],
    ["mnemo.validation"],
    ["mnemo.schemas"],
    ["mnemo.timestamps", "mnemo.surface_fields"],
    [
        "mnemo.errors",
        "mnemo.ids",
        "mnemo.progress",
        "mnemo.http_retry",
        "mnemo.version",
        "mnemo.memory_fields",
        "mnemo.asgi",
        "mnemo.signatures",
    ],
    ["mnemo.redact"],
]


def module_names() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def import_graph() -> dict[str, set[str]]:
    """module -> the mnemo modules it imports."""
    modules = module_names()
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, *([base] if base else [])])
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in modules else base)
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def layer_of(module: str) -> tuple[int, str] | None:
    """(layer index, package) of a module; None for the root package ``mnemo``."""
    for i, packages in enumerate(LAYERS):
        for pkg in packages:
            if module == pkg or module.startswith(pkg + "."):
                return i, pkg
    return None


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_module_belongs_to_a_layer() -> None:
    assert [m for m in module_names() if m != "mnemo" and layer_of(m) is None] == []


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_imports_only_go_down() -> None:
    wrong = []
    for src, targets in sorted(import_graph().items()):
        here = layer_of(src)
        for dst in sorted(targets):
            there = layer_of(dst)
            if dst == "mnemo":
                wrong.append(f"{src} -> mnemo (import from the submodule instead)")
            elif here is None or there is None or here[1] == there[1]:
                continue
            elif there[0] <= here[0]:
                wrong.append(f"{src} -> {dst}")
    assert wrong == []


def test_the_checker_sees_type_checking_and_function_imports(tmp_path: Path) -> None:
    code = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import mnemo.cli\n"
    tree = ast.parse(code + "def f():\n    from mnemo.memory import facade\n")
    names = [
        n.module if isinstance(n, ast.ImportFrom) else n.names[0].name
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
    ]
    assert names == ["typing", "mnemo.cli", "mnemo.memory"]
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]


#: The size a module may grow to before it is split by what it holds (issue 23).
MAX_MODULE_LINES = 450


def test_no_module_is_too_long() -> None:
    texts = {path: path.read_text(encoding="utf-8") for path in sorted(ROOT.rglob("*.py"))}
    long = {
        str(path.relative_to(ROOT)): n
        for path, text in texts.items()
        if (n := len(text.splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}, f"split these modules (over {MAX_MODULE_LINES} lines): {long}"
