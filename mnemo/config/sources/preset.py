"""Source: the chosen preset, one published design's numbers over the field defaults (the presets
themselves are in :mod:`mnemo.config.presets`)."""

from __future__ import annotations

from typing import Any

from mnemo.config.presets import PRESETS
from mnemo.errors import ConfigError


def read_preset(name: str) -> dict[str, Any]:
    """The settings preset ``name`` changes; :class:`~mnemo.errors.ConfigError` if unknown.

    >>> read_preset("llmplatform")["search_limit"]
    8
    """
    if name not in PRESETS:
        raise ConfigError(f"unknown preset {name!r}; choose one of {sorted(PRESETS)}")
    return dict(PRESETS[name])


__all__ = ["read_preset"]
