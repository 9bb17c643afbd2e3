"""Source: the environment. ``MNEMO_FOO_BAR`` sets field ``foo_bar``; other variables are
ignored. Read when a ``Settings`` is built, never at import time."""

from __future__ import annotations

from collections.abc import Collection, Mapping

#: The prefix of every settings variable: ``MNEMO_`` + the field name in upper case.
ENV_PREFIX = "MNEMO_"


def read_env(environ: Mapping[str, str], fields: Collection[str]) -> dict[str, str]:
    """The ``MNEMO_*`` variables of ``environ`` that name one of ``fields``, keyed by field name.

    >>> read_env({"MNEMO_RRF_K": "30", "MNEMO_NOPE": "1", "HOME": "/"}, {"rrf_k"})
    {'rrf_k': '30'}
    """
    out: dict[str, str] = {}
    for key, value in environ.items():
        if key.startswith(ENV_PREFIX):
            name = key[len(ENV_PREFIX) :].lower()
            if name in fields:
                out[name] = value
    return out


__all__ = ["ENV_PREFIX", "read_env"]
