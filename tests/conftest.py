"""Shared fixtures: real SQLite files in tmp_path, the hashing embedder, a clean environment.

Tests run with the conversation tiers (profile, episodes) off in the ``default`` preset, so a
test of the job runner sees only the jobs it registers; tiers' tests turn them on explicitly
(a constructor argument or a seed preset).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo import Memory
from mnemo.config import PRESETS

NO_CONVERSATION_TIERS = {"profile_enabled": False, "episodes_enabled": False}


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No MNEMO_* variable of the developer's shell leaks into a test."""
    for key in list(os.environ):
        if key.startswith("MNEMO_"):
            monkeypatch.delenv(key)
    monkeypatch.setitem(PRESETS, "default", {**PRESETS["default"], **NO_CONVERSATION_TIERS})


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    """A fresh SQLite file path."""
    return str(tmp_path / "mnemo.db")


@pytest.fixture
def mem(db_path: str) -> Iterator[Memory]:
    """A Memory on a real SQLite file with the deterministic hashing embedder."""
    m = Memory(db_path, embedder="hashing")
    yield m
    m.close()
