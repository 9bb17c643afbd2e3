"""docs/memory-model.md: its Python examples run, in order, in one namespace, on a fresh
SQLite file (the hashing embedder keeps them fast; the behaviour shown does not depend on it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "memory-model.md"


def python_blocks(path: Path) -> list[str]:
    """The ```python blocks of a Markdown file, in order."""
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def test_the_page_has_examples() -> None:
    assert python_blocks(PAGE), "docs/memory-model.md lost its examples"


def test_every_example_on_the_page_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MNEMO_EMBEDDER", "hashing")
    namespace: dict[str, object] = {"__name__": "memory_model_doc"}
    try:
        for number, block in enumerate(python_blocks(PAGE), 1):
            code = compile(block, f"docs/memory-model.md, block {number}", "exec")
            exec(code, namespace)  # the page's own examples
    finally:
        mem = namespace.get("mem")
        close = getattr(mem, "close", None)
        if callable(close):
            close()
