"""Source: a TOML file (named by the ``config_file`` setting / ``MNEMO_CONFIG_FILE``) whose
top-level keys, or the keys of its ``[mnemo]`` table, are settings."""

from __future__ import annotations

import tomllib
from collections.abc import Collection
from pathlib import Path
from typing import Any

from mnemo.errors import ConfigError


def read_toml(path: str | Path, fields: Collection[str]) -> dict[str, Any]:
    """Settings from the TOML file at ``path``: top-level keys, or a ``[mnemo]`` table.

    Raises :class:`~mnemo.errors.ConfigError` when the file is missing, is not valid TOML, or
    holds a key that is not one of ``fields``.
    """
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {p}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {p} is not valid TOML: {exc}") from None
    table = data.get("mnemo", data)
    unknown = sorted(set(table) - set(fields))
    if unknown:
        raise ConfigError(f"config file {p}: unknown settings {unknown}")
    return dict(table)


__all__ = ["read_toml"]
