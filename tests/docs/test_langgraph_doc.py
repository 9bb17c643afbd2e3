"""docs/langgraph.md: its Python examples run, in order, in one namespace, on a fresh SQLite
file with the real langgraph (the hashing embedder keeps them fast)."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_runner import python_blocks, run_examples

PAGE = Path(__file__).resolve().parents[2] / "docs" / "langgraph.md"


def test_the_page_has_examples() -> None:
    assert len(python_blocks(PAGE)) >= 5, "docs/langgraph.md lost its examples"


def test_every_example_on_the_page_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("langgraph")
    run_examples(PAGE, tmp_path, monkeypatch)
