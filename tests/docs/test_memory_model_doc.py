"""docs/memory-model.md: its Python examples run, in order, in one namespace, on a fresh
SQLite file (the hashing embedder keeps them fast; the behaviour shown does not depend on it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_runner import python_blocks, run_examples

PAGE = Path(__file__).resolve().parents[2] / "docs" / "memory-model.md"


def test_the_page_has_examples() -> None:
    assert python_blocks(PAGE), "docs/memory-model.md lost its examples"


def test_every_example_on_the_page_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_examples(PAGE, tmp_path, monkeypatch)
