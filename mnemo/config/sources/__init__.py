"""The sources of settings, one module each, and :func:`layered`, the one place that orders
them: field defaults < preset (:mod:`.preset`) < TOML file (:mod:`.toml`: ``config_file``,
else ``./mnemo.toml``) < ``MNEMO_*`` environment (:mod:`.env`) < constructor arguments
(:mod:`.arguments`).

The defaults are the fields' own (the group modules of :mod:`mnemo.config`); pydantic fills in
whatever :func:`layered` leaves out.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from mnemo.config.location import location_settings
from mnemo.config.sources.arguments import read_arguments
from mnemo.config.sources.env import ENV_PREFIX, read_env, warn_unknown
from mnemo.config.sources.preset import read_preset
from mnemo.config.sources.toml import LOCAL_CONFIG, config_path, read_toml


def layered(data: Any, environ: Mapping[str, str], fields: Collection[str]) -> dict[str, Any]:
    """Merge the sources, lowest first: preset < TOML < environment < constructor ``data``.

    The TOML file is the ``config_file`` of the arguments, else of the environment, else
    ``./mnemo.toml`` when the working directory has one (:func:`~.toml.config_path`); the preset
    is the ``preset`` of the highest source that names one, else ``default``. A ``MNEMO_*``
    variable that names no field is logged once (:func:`~.env.warn_unknown`).

    >>> layered({"rrf_k": 30}, {"MNEMO_RRF_K": "10", "MNEMO_POOL_FACTOR": "4"}, {"rrf_k",
    ...     "pool_factor", "preset"})
    {'rrf_k': 30, 'pool_factor': '4'}
    """
    explicit = location_settings(read_arguments(data))
    env = location_settings(read_env(environ, fields))
    warn_unknown(environ, fields)
    toml = config_path(explicit.get("config_file") or env.get("config_file"))
    merged = location_settings(read_toml(toml, fields)) if toml else {}
    merged.update(env)
    merged.update(explicit)
    return {**read_preset(merged.get("preset", "default")), **merged}


__all__ = [
    "ENV_PREFIX",
    "LOCAL_CONFIG",
    "config_path",
    "layered",
    "read_arguments",
    "read_env",
    "read_preset",
    "read_toml",
    "warn_unknown",
]
