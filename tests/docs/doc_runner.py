"""Running a docs page's Python examples: in order, in one namespace, in a fresh directory with
the hashing embedder (fast; the behaviour the pages show does not depend on it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest


def python_blocks(path: Path) -> list[str]:
    """The ```python blocks of a Markdown file, in order."""
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def run_examples(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run every ```python block of ``page`` in ``tmp_path``; close the ``mem`` they leave."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MNEMO_EMBEDDER", "hashing")
    namespace: dict[str, object] = {"__name__": page.stem.replace("-", "_") + "_doc"}
    try:
        for number, block in enumerate(python_blocks(page), 1):
            code = compile(block, f"docs/{page.name}, block {number}", "exec")
            exec(code, namespace)  # the page's own examples
    finally:
        close = getattr(namespace.get("mem"), "close", None)
        if callable(close):
            close()
