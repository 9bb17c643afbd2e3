"""The adapters (``mnemo/integrations``, ``mnemo/compat``) are built on mnemo's public API only.

Public, precisely:

* a name of ``mnemo.__all__``, imported from the mnemo module it lives in (``from
  mnemo.memory.facade import Memory``: the same object as ``mnemo.Memory``; the architecture
  test wants the submodule, not ``mnemo`` itself);
* a name of the ``__all__`` of a public module, :data:`PUBLIC_MODULES` (each documented);
* anything of the adapter's own package (``mnemo.integrations`` within the integrations,
  ``mnemo.compat`` within compat), and anything outside mnemo.

And no adapter reaches under the facade: no ``.store``, ``.embedding`` or ``.pipeline`` (the
``Memory``'s store, embedding cache and search pipeline; ``Memory.refresh_expiry``, ``embed``,
``prefetch_embeddings`` and ``with_embedder`` give what an adapter needs of them), except an
attribute of that name the adapter's own class assigns (``AsyncMnemoStore.store``).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import mnemo

PACKAGE = Path(mnemo.__file__).parent
ADAPTERS = ("mnemo.integrations", "mnemo.compat")

#: Modules whose whole ``__all__`` is public, and why.
PUBLIC_MODULES = {
    "mnemo.embedders": "the Embedder base class and registry, to plug in an embedder "
    "(docs/embedders.md)",
    "mnemo.validation": "the checks Memory applies to its inputs, so an adapter can check "
    "early with the same rules",
    "mnemo.memory.closing": "with / async with closing the object, as Memory and AsyncMemory "
    "do, so an adapter's store closes the same way",
    "mnemo.memory.threaded": "the typed twins AsyncMemory is made of (a constructor taking "
    "another class's arguments), so an adapter's async class takes its sync class's",
}
#: What an adapter may not read of a Memory.
UNDER_THE_FACADE = frozenset({"store", "embedding", "pipeline"})


def adapter_modules() -> dict[str, Path]:
    """Every module of the adapters, by dotted name."""
    out = {}
    for package in ADAPTERS:
        for path in sorted(PACKAGE.joinpath(*package.split(".")[1:]).rglob("*.py")):
            parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def is_module(name: str) -> bool:
    """Whether ``name`` is a module (``from package import module`` imports one)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # its parent is a module, not a package
        return False


def public_names(module: str) -> set[str]:
    """A public module's names: its ``__all__``, else what it defines without a leading
    underscore."""
    found = importlib.import_module(module)
    if hasattr(found, "__all__"):
        return set(found.__all__)
    return {
        n
        for n, v in vars(found).items()
        if not n.startswith("_") and getattr(v, "__module__", None) == module
    }


def is_public(module: str, name: str | None, importer: str) -> bool:
    """Whether ``importer`` (an adapter module) may import ``name`` from ``module`` (None:
    the module itself)."""
    own = next(p for p in ADAPTERS if importer.startswith(p))
    if name is not None and is_module(f"{module}.{name}"):
        module, name = f"{module}.{name}", None
    if module != "mnemo" and not module.startswith("mnemo."):
        return True
    if module == own or module.startswith(own + "."):
        return True
    if name is None:
        return module in PUBLIC_MODULES
    if module in PUBLIC_MODULES:
        return name in public_names(module)
    if name not in mnemo.__all__:
        return False
    return getattr(importlib.import_module(module), name, None) is getattr(mnemo, name)


def violations(source: str, importer: str) -> list[str]:
    """The private imports and reaches under the facade of one adapter module."""
    tree = ast.parse(source)
    wrong: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            wrong += [
                f"from {node.module} import {a.name}"
                for a in node.names
                if not is_public(node.module, a.name, importer)
            ]
        elif isinstance(node, ast.Import):
            wrong += [
                f"import {a.name}" for a in node.names if not is_public(a.name, None, importer)
            ]
    for cls in [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)] + [tree]:
        own = (
            {
                t.attr
                for n in ast.walk(cls)
                if isinstance(n, ast.Assign | ast.AnnAssign)
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                if isinstance(t, ast.Attribute)
                and isinstance(t.value, ast.Name)
                and t.value.id == "self"
            }
            if isinstance(cls, ast.ClassDef)
            else set()
        )
        body = (
            cls.body
            if isinstance(cls, ast.ClassDef)
            else [n for n in tree.body if not isinstance(n, ast.ClassDef)]
        )
        for stmt in body:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Attribute) and n.attr in UNDER_THE_FACADE:
                    mine = isinstance(n.value, ast.Name) and n.value.id == "self" and n.attr in own
                    if not mine:
                        wrong.append(f"line {n.lineno}: {ast.unparse(n)}")
    return sorted(set(wrong))


def test_the_adapters_use_only_public_names() -> None:
    modules = adapter_modules()
    assert "mnemo.integrations.langgraph.store" in modules and "mnemo.compat.mem0" in modules
    found = {
        name: bad
        for name, path in modules.items()
        if (bad := violations(path.read_text(encoding="utf-8"), name))
    }
    assert found == {}


def test_the_public_modules_have_public_names() -> None:
    assert {"Embedder", "REGISTRY", "normalize_rows"} <= public_names("mnemo.embedders")
    assert {"identifier", "json_object", "created_text"} <= public_names("mnemo.validation")
    assert "Any" not in public_names("mnemo.validation")  # imported, not its own


def test_the_checker_catches_private_imports_and_reaches() -> None:
    code = (
        "from mnemo.memory.facade import Memory\n"  # public: mnemo.Memory
        "from mnemo.schemas import HIT_KINDS, MEMORY_KINDS\n"  # HIT_KINDS is not
        "from mnemo.embedders import Embedder, hashing\n"  # a module not listed public
        "from mnemo import validation as check\n"
        "from mnemo.integrations import langgraph\n"  # the adapter's own package
        "from mnemo.compat.mem0 import Memory as M0\n"  # another adapter's package
        "import mnemo.index.embed\n"
        "import numpy\n"
        "class Store:\n"
        "    def __init__(self, memory):\n"
        "        self.store = memory\n"
        "        self.store.batch()\n"  # its own attribute
        "        memory.store.rows.refresh_expiry()\n"
        "        memory.embedding.prefetched([])\n"
        "def f(mem):\n"
        "    return mem.pipeline\n"
    )
    assert violations(code, "mnemo.integrations.x") == [
        "from mnemo.compat.mem0 import Memory",
        "from mnemo.embedders import hashing",
        "from mnemo.schemas import HIT_KINDS",
        "import mnemo.index.embed",
        "line 13: memory.store",
        "line 14: memory.embedding",
        "line 16: mem.pipeline",
    ]
