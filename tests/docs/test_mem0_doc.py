"""docs/coming-from-mem0.md: its Python examples run, in order, in one namespace, on mnemo's
default store (``MNEMO_PATH`` pointed at a fresh SQLite file; the hashing embedder keeps them
fast and offline), and the page is linked from the README."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_runner import python_blocks

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "coming-from-mem0.md"


def test_the_page_has_examples_and_the_readme_links_it() -> None:
    assert len(python_blocks(PAGE)) >= 2, "docs/coming-from-mem0.md lost its examples"
    assert "docs/coming-from-mem0.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_example_on_the_page_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MNEMO_EMBEDDER", "hashing")
    monkeypatch.setenv("MNEMO_PATH", str(tmp_path / "mem0-doc.db"))
    namespace: dict[str, object] = {"__name__": "mem0_doc"}
    for number, block in enumerate(python_blocks(PAGE), 1):
        code = compile(block, f"docs/coming-from-mem0.md, block {number}", "exec")
        exec(code, namespace)  # the page's own examples
