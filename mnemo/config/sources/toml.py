"""Source: a TOML file whose top-level keys, or the keys of its ``[mnemo]`` table, are
settings: the file named by the ``config_file`` setting / ``MNEMO_CONFIG_FILE``, else
``mnemo.toml`` in the working directory when there is one (:func:`config_path`)."""

from __future__ import annotations

import tomllib
from collections.abc import Collection
from pathlib import Path
from typing import Any

from mnemo.errors import ConfigError

#: The file read from the working directory when no ``config_file`` is named.
LOCAL_CONFIG = "mnemo.toml"


def config_path(named: str | None, cwd: Path | None = None) -> Path | None:
    """The TOML file to read: ``named`` (``config_file``) when given, whether or not it
    exists (a missing named file is an error in :func:`read_toml`); else ``mnemo.toml`` in
    ``cwd`` (the working directory) when it is a file; else None.

    >>> config_path("conf/mine.toml")
    PosixPath('conf/mine.toml')
    """
    if named:
        return Path(named)
    local = (cwd or Path.cwd()) / LOCAL_CONFIG
    return local if local.is_file() else None


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


__all__ = ["LOCAL_CONFIG", "config_path", "read_toml"]
