"""mnemo's configuration: one frozen :class:`Settings` for users, built from component groups.

``Settings`` inherits every group, so its fields are flat (``settings.rrf_k``) and an instance
is each group type; a component can depend on its slice only::

    def pool_size(cfg: RetrievalSettings, limit: int) -> int:
        return max(cfg.min_pool, limit * cfg.pool_factor)

    pool_size(Settings(), 10)

The sources (preset, TOML file, environment, constructor) live in :mod:`mnemo.config.sources`;
the kinds of bounded numbers (``share``, ``cosine``, ...) in :mod:`mnemo.config.bounds`;
the presets in :mod:`mnemo.config.presets`.
"""

from __future__ import annotations

from mnemo.config.embedding import EmbeddingSettings
from mnemo.config.facts import FactSettings
from mnemo.config.files import FilesSettings
from mnemo.config.group import SettingsGroup
from mnemo.config.jobs import JobSettings
from mnemo.config.llm import LLMSettings
from mnemo.config.presets import PRESETS, PresetName
from mnemo.config.search import RetrievalSettings
from mnemo.config.server import ServerSettings
from mnemo.config.settings import GROUPS, Settings, SourceSettings
from mnemo.config.storage import StorageSettings
from mnemo.config.tiers import TierSettings
from mnemo.config.topics import TopicSettings

__all__ = [
    "GROUPS",
    "PRESETS",
    "EmbeddingSettings",
    "FactSettings",
    "FilesSettings",
    "JobSettings",
    "LLMSettings",
    "PresetName",
    "RetrievalSettings",
    "ServerSettings",
    "Settings",
    "SettingsGroup",
    "SourceSettings",
    "StorageSettings",
    "TierSettings",
    "TopicSettings",
]
