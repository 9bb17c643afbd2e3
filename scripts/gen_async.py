"""Write the awaitable facades' methods from their sync classes: python scripts/gen_async.py

Each target is a sync facade class (``mnemo.Memory``, ``mnemo.compat.mem0``'s ``Memory``) and
the module this script writes for it: one class, a subclass of
:class:`~mnemo.memory.threaded.ThreadedFacade`, with

* ``__init__`` and ``open`` taking the sync class's constructor arguments (``open`` builds it
  on a thread);
* for each public method of the sync class (not a classmethod or staticmethod, and not one the
  machinery writes by hand, ``close``), one line ``name = twin(Sync.name)``
  (:func:`~mnemo.memory.threaded.twin`): an awaitable method whose type carries the sync
  method's parameters and result, so mypy checks every awaited call, and whose name,
  docstring and signature are the sync method's. Only the constructor's parameters are
  written out (parameters, defaults and annotations as written, a builtin qualified as
  ``builtins.x`` where the class's own method ``x`` would shadow it).

The output is deterministic and already formatted as ``ruff format`` would. ``--check`` writes
nothing and exits 1 when a committed file differs (``tests/memory/test_async_generated.py``
does the same). Annotations must be strings (``from __future__ import annotations``), and each
name they use is imported the way the method's own module imports it.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import io
import sys
import tokenize
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
#: The generated modules and their classes (``import mnemo`` imports the first).
GENERATED = {
    "mnemo.memory.async_memory_methods": "AsyncMemoryMethods",
    "mnemo.compat.mem0_async_methods": "AsyncMem0Methods",
}
if __name__ == "__main__":
    # Run as a script, never import what it writes: a stale or missing generated module (a
    # name it imports gone from mnemo) must not stop its own regeneration.
    for _module, _name in GENERATED.items():
        sys.modules[_module] = ModuleType(_module)
        setattr(sys.modules[_module], _name, type(_name, (), {}))

from mnemo.memory.threaded import ThreadedFacade, public_methods  # noqa: E402

#: The command that rewrites every generated module.
COMMAND = "python scripts/gen_async.py"
WIDTH = 100
#: Names the machinery defines on every threaded facade (never generated).
MACHINERY = frozenset({n for n in dir(ThreadedFacade) if not n.startswith("_")} | {"open", "sync"})


@dataclass(frozen=True)
class Target:
    """One generated module: the sync class (``module:Class``), the file, the class name."""

    sync: str
    path: str
    name: str

    def sync_class(self) -> type:
        """The sync class, imported."""
        module, _, name = self.sync.partition(":")
        cls: type = getattr(importlib.import_module(module), name)
        return cls

    @property
    def module(self) -> str:
        """The generated module's dotted name."""
        return self.path.removesuffix(".py").replace("/", ".")


TARGETS = (
    Target(
        "mnemo.memory.facade:Memory", "mnemo/memory/async_memory_methods.py", "AsyncMemoryMethods"
    ),
    Target(
        "mnemo.compat.mem0_memory:Memory", "mnemo/compat/mem0_async_methods.py", "AsyncMem0Methods"
    ),
)
assert {t.module: t.name for t in TARGETS} == GENERATED


class GenerationError(Exception):
    """A sync method this generator cannot copy faithfully (says which, and why)."""


# ---- names and imports ------------------------------------------------------------------------
Import = tuple[str, str, str | None]  # (module, name or "" for ``import module``, alias)


def module_imports(module: ModuleType) -> dict[str, Import]:
    """The names ``module`` binds by import statements (any depth, ``TYPE_CHECKING`` too)."""
    found: dict[str, Import] = {}
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                alias = None if a.asname == a.name else a.asname  # ``x as x``: a re-export
                found[a.asname or a.name] = (node.module, a.name, alias)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    found[a.asname] = (a.name, "", a.asname)
                else:
                    top = a.name.partition(".")[0]
                    found[top] = (top, "", None)
    return found


def import_of(name: str, module: ModuleType) -> Import | None:
    """How to import ``name`` as ``module`` sees it (None: a builtin needs no import)."""
    if name == "builtins":
        return ("builtins", "", None)
    imported = module_imports(module).get(name)
    if imported is not None:
        return imported
    if name in vars(module):
        return (module.__name__, name, None)
    if hasattr(builtins, name):
        return None
    raise GenerationError(f"{module.__name__} does not define or import {name!r}")


def requote(text: str) -> str:
    """``text`` with its plain single-quoted strings in double quotes (as ruff writes them)."""
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    out = text
    for tok in reversed(tokens):
        s = tok.string
        if tok.type == tokenize.STRING and s[0] == "'" and '"' not in s and "\\" not in s:
            (_, start), (_, end) = tok.start, tok.end
            out = out[:start] + '"' + s[1:-1] + '"' + out[end:]
    return out


class Annotations:
    """Annotation texts for one generated class: builtins its methods shadow qualified, and
    the imports the names need, taken from each source module."""

    def __init__(self, shadowing: Iterable[str]) -> None:
        self.shadowing = frozenset(shadowing)
        self.imports: set[Import] = set()

    def text(self, annotation: Any, module: ModuleType, where: str) -> str:
        """The source text of one annotation read in ``module``."""
        if annotation is inspect.Parameter.empty:
            raise GenerationError(f"{where}: every parameter needs an annotation")
        if not isinstance(annotation, str):
            raise GenerationError(
                f"{where}: annotation {annotation!r} is not a string; the module of the method "
                "needs `from __future__ import annotations`"
            )
        tree = ast.parse(annotation, mode="eval")
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in self.shadowing:
                if not hasattr(builtins, node.id):
                    raise GenerationError(f"{where}: {node.id!r} is also a method name")
                node.id = f"builtins.{node.id}"
        for node in ast.walk(ast.parse(ast.unparse(tree), mode="eval")):
            if isinstance(node, ast.Name) and (found := import_of(node.id, module)):
                self.imports.add(found)
        return requote(ast.unparse(tree))


def default_text(value: Any, where: str) -> str:
    """A default value as source text; only literals can be copied faithfully."""
    text = repr(value)
    try:
        same = ast.literal_eval(text) == value and type(ast.literal_eval(text)) is type(value)
    except (ValueError, SyntaxError):
        same = False
    if not same:
        raise GenerationError(f"{where}: default {text} is not a literal")
    return requote(text)


# ---- one method -------------------------------------------------------------------------------
@dataclass
class Params:
    """A signature without ``self``, as source: the parameter list and the call passing it on."""

    declared: list[str]
    passed: list[str]
    returns: str


def params_of(
    func: Callable[..., Any], module: ModuleType, notes: Annotations, where: str
) -> Params:
    """The parameters of ``func`` (its first, ``self``, left out) as declared and as passed."""
    sig = inspect.signature(func)
    params = list(sig.parameters.values())[1:]
    declared: list[str] = []
    passed: list[str] = []
    kinds = [p.kind for p in params]
    P = inspect.Parameter
    for p in params:
        if p.kind is P.KEYWORD_ONLY and P.VAR_POSITIONAL not in kinds and "*" not in declared:
            declared.append("*")
        text = f"{p.name}: {notes.text(p.annotation, module, f'{where}({p.name})')}"
        if p.default is not P.empty:
            text += f" = {default_text(p.default, f'{where}({p.name})')}"
        star = {P.VAR_POSITIONAL: "*", P.VAR_KEYWORD: "**"}.get(p.kind, "")
        declared.append(star + text)
        passed.append(f"{p.name}={p.name}" if p.kind is P.KEYWORD_ONLY else star + p.name)
        if p.kind is P.POSITIONAL_ONLY and P.POSITIONAL_ONLY not in kinds[params.index(p) + 1 :]:
            declared.append("/")
    returns = notes.text(sig.return_annotation, module, f"{where} return")
    return Params(declared, passed, returns)


def bracketed(lead: str, items: list[str], tail: str, indent: int) -> list[str]:
    """``lead(items)tail`` laid out as ruff does: one line, else the items on one indented
    line, else one item per line with a trailing comma."""
    pad = " " * indent
    one = f"{pad}{lead}({', '.join(items)}){tail}"
    if len(one) <= WIDTH or not items:
        return [one]
    inner = f"{pad}    {', '.join(items)}"
    if len(inner) <= WIDTH:
        return [f"{pad}{lead}(", inner, f"{pad}){tail}"]
    return [f"{pad}{lead}(", *(f"{pad}    {i}," for i in items), f"{pad}){tail}"]


def constructors(cls: type, notes: Annotations) -> list[str]:
    """``__init__`` and ``open``, taking ``cls``'s constructor arguments."""
    module = sys.modules[cls.__module__]
    p = params_of(cls.__init__, module, notes, f"{cls.__qualname__}.__init__")
    sync = cls.__name__
    init = bracketed("def __init__", ["self", *p.declared], " -> None:", 4)
    init += [
        f'        """Open ``{sync}(...)`` (these are its arguments) here and now, served by a',
        '        pool of ``database_pool_size`` threads."""',
        *bracketed(f"sync = {sync}", p.passed, "", 8),
        "        self._attach(sync, None)",
    ]
    opener = ["    @classmethod"]
    opener += bracketed("async def open", ["cls", *p.declared], " -> Self:", 4)
    opener += [
        f'        """``{sync}(...)`` opened on a thread, so opening the store (and loading the',
        '        embedder) does not block the event loop."""',
        *bracketed("sync = await asyncio.to_thread", [sync, *p.passed], "", 8),
        "        return cls.wrap(sync)",
    ]
    return [*init, "", *opener]


# ---- the module -------------------------------------------------------------------------------
def twin_names(cls: type) -> list[str]:
    """The methods of ``cls`` that get a generated twin."""
    return [
        n
        for n in public_methods(cls)
        if n not in MACHINERY
        and not isinstance(inspect.getattr_static(cls, n), classmethod | staticmethod)
    ]


def import_lines(imports: set[Import]) -> list[str]:
    """The import block, grouped (the standard library, other packages, mnemo) and sorted
    as ruff's isort rules want."""

    def order(name: str) -> tuple[int, str]:
        kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
        return kind, name

    out: list[str] = []

    def group(module: str) -> int:
        top = module.partition(".")[0]
        return 0 if top in sys.stdlib_module_names else 2 if top == "mnemo" else 1

    for g in range(3):
        mine = [i for i in imports if group(i[0]) == g]
        lines = sorted(f"import {m}" + (f" as {a}" if a else "") for m, n, a in mine if not n)
        froms: dict[str, list[str]] = {}
        for m, n, a in mine:
            if n:
                froms.setdefault(m, []).append(f"{n} as {a}" if a else n)
        for m in sorted(froms):
            names = sorted(froms[m], key=lambda s: order(s.split(" as ")[0]))
            one = f"from {m} import {', '.join(names)}"
            lines += (
                [one]
                if len(one) <= WIDTH
                else [f"from {m} import (", *(f"    {n}," for n in names), ")"]
            )
        if lines:
            out += [*lines, ""]
    return out


def render(target: Target) -> str:
    """The source of ``target``'s generated module."""
    cls = target.sync_class()
    names = twin_names(cls)
    notes = Annotations([*names, *MACHINERY])
    notes.imports |= {
        ("asyncio", "", None),
        ("typing", "Self", None),
        (cls.__module__, cls.__name__, None),
        ("mnemo.memory.threaded", "ThreadedFacade", None),
        ("mnemo.memory.threaded", "twin", None),
    }
    body = constructors(cls, notes)
    body += ["", *(f"    {name} = twin({cls.__name__}.{name})" for name in names)]
    sync = f"{cls.__module__}.{cls.__qualname__}"
    head = [
        f'"""GENERATED by ``{COMMAND}`` from ``{cls.__module__}``: do not edit.',
        "",
        f"``{target.name}`` has an awaitable twin of each public method of",
        f":class:`{sync}` (see :mod:`mnemo.memory.threaded`); rerun the command after",
        "changing that class.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        *import_lines(notes.imports),
        "",
        f"class {target.name}(ThreadedFacade[{cls.__name__}]):",
        f'    """The awaitable twins of ``{cls.__name__}``\'s public methods, and ``__init__`` and',
        '    ``open`` taking its constructor\'s arguments (see the module docstring)."""',
        "",
        *body,
        "",
        "",
        f'__all__ = ["{target.name}"]',
        "",
    ]
    return "\n".join(head)


def stale(root: Path = ROOT) -> list[str]:
    """The generated modules under ``root`` that differ from what this script writes."""
    return [t.path for t in TARGETS if _read(root / t.path) != render(t)]


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.exists() else None


def main(argv: list[str]) -> int:
    """Write every target (``--check``: only report the stale ones, exit 1 if any)."""
    if "--check" in argv:
        old = stale()
        for path in old:
            print(f"{path} is stale: run {COMMAND}")
        return 1 if old else 0
    for t in TARGETS:
        (ROOT / t.path).write_text(render(t), encoding="utf-8")
        print(f"wrote {t.path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
