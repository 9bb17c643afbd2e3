"""Settings: the one class users configure mnemo with, the union of the component groups.

Each group is a small frozen model in its own module (:mod:`mnemo.config.storage`,
:mod:`~mnemo.config.files`, :mod:`~mnemo.config.embedding`, :mod:`~mnemo.config.llm`,
:mod:`~mnemo.config.jobs`, :mod:`~mnemo.config.server`, :mod:`~mnemo.config.search`,
:mod:`~mnemo.config.tiers`, :mod:`~mnemo.config.facts`, :mod:`~mnemo.config.topics`);
``Settings`` inherits from all of them, so every field stays flat (``settings.rrf_k``) and a
``Settings`` is an instance of each group type a component may ask for.

Precedence, highest first: constructor arguments > ``MNEMO_*`` environment variables > the TOML
file named by ``config_file`` (env ``MNEMO_CONFIG_FILE``), else ``mnemo.toml`` in the working
directory when there is one > the chosen preset > the defaults.
Each source is one module of :mod:`mnemo.config.sources`; :func:`mnemo.config.sources.layered`
orders them. The environment is read when a ``Settings`` is built, never at import time.

Every field's description is its documentation; ``docs/configuration.md`` lists them all and a
test keeps the two in step. The env var of field ``foo_bar`` is ``MNEMO_FOO_BAR``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pydantic
from pydantic import Field, model_validator

from mnemo.config.embedding import EmbeddingSettings
from mnemo.config.facts import FactSettings
from mnemo.config.files import FilesSettings
from mnemo.config.group import SettingsGroup
from mnemo.config.jobs import JobSettings
from mnemo.config.llm import LLMSettings
from mnemo.config.presets import PRESETS, PresetName
from mnemo.config.search import RetrievalSettings
from mnemo.config.server import ServerSettings
from mnemo.config.sources import layered
from mnemo.config.storage import StorageSettings
from mnemo.config.tiers import TierSettings
from mnemo.config.topics import TopicSettings
from mnemo.errors import ConfigError


class SourceSettings(SettingsGroup):
    """Which preset and which TOML file the other settings are layered from.

    Names in this group: ``preset``, ``config_file``.
    """

    preset: PresetName = Field(
        "default",
        description="Named bundle of defaults: default, llmplatform, llm-managed, agent-cli, "
        "tiered or topics (one per published design).",
    )
    config_file: str | None = Field(
        None,
        description="TOML file whose keys are settings (below the env vars); unset: "
        "`mnemo.toml` in the working directory, when there is one.",
    )


#: The groups in documentation order; ``Settings`` inherits from each (reversed, so that its
#: fields come in this order too).
GROUPS: tuple[type[SettingsGroup], ...] = (
    StorageSettings,
    SourceSettings,
    FilesSettings,
    EmbeddingSettings,
    LLMSettings,
    JobSettings,
    ServerSettings,
    RetrievalSettings,
    TierSettings,
    FactSettings,
    TopicSettings,
)


class Settings(
    TopicSettings,
    FactSettings,
    TierSettings,
    RetrievalSettings,
    ServerSettings,
    JobSettings,
    LLMSettings,
    EmbeddingSettings,
    FilesSettings,
    SourceSettings,
    StorageSettings,
):
    """All of mnemo's configuration, frozen once built.

    >>> Settings(embedder="hashing").embedder
    'hashing'
    """

    @model_validator(mode="before")
    @classmethod
    def _layer_sources(cls, data: Any) -> Any:
        """Merge defaults < preset < TOML < environment < constructor arguments."""
        return layered(data, os.environ, cls.model_fields)

    def __init__(self, **data: Any) -> None:
        """Layer the sources under ``data`` and validate; bad values raise ConfigError."""
        try:
            super().__init__(**data)
        except pydantic.ValidationError as exc:
            raise ConfigError(_describe(exc)) from None

    @property
    def files_root(self) -> str | None:
        """The folder of the Markdown file store, or None when it is off.

        ``files_enabled`` unset: ``files_dir`` (None: off). ``files_enabled`` false: off.
        ``files_enabled`` true: ``files_dir``, else ``<stem>-files`` in the folder of the
        SQLite file (``mnemo.db`` -> ``mnemo-files/``, the `agent-cli` preset's default);
        a store with no such folder (PostgreSQL, ``:memory:``) needs ``files_dir``.
        """
        if self.files_enabled is False:
            return None
        if self.files_dir is not None or not self.files_enabled:
            return self.files_dir
        if self.database_url or self.path == ":memory:" or self.path.startswith("file:"):
            return None
        db = Path(self.path)
        return str(db.with_name(f"{db.stem}-files"))

    def replace(self, **changes: Any) -> Settings:
        """A copy with ``changes`` applied and validated (the environment is not re-read)."""
        merged = self.model_dump()
        merged.update(changes)
        return Settings(**merged)


def _describe(exc: pydantic.ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"]) or "settings"
        parts.append(f"{loc}: {err['msg']}")
    return "invalid settings: " + "; ".join(parts)


__all__ = ["GROUPS", "PRESETS", "Settings", "SourceSettings"]
