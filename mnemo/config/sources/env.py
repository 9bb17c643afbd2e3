"""Source: the environment. ``MNEMO_FOO_BAR`` sets field ``foo_bar``. Read when a ``Settings``
is built, never at import time.

A ``MNEMO_*`` variable that names no setting (a typo such as ``MNEMO_DATABSE_URL``) is not
silently dropped: :func:`warn_unknown` logs one warning line per such variable and process,
naming the closest setting's variable (logger ``mnemo.config``; without logging configured
Python prints it on stderr). It stays a warning, not an error, so that a ``MNEMO_*`` variable
of another tool does not stop mnemo; :data:`OTHER_VARIABLES` lists mnemo's own variables that
are not settings.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Collection, Mapping

#: The prefix of every settings variable: ``MNEMO_`` + the field name in upper case.
ENV_PREFIX = "MNEMO_"
#: Variables mnemo reads that are not settings (``mnemo chat``'s key, the tests' database and
#: browser).
OTHER_VARIABLES = frozenset({"MNEMO_API_KEY", "MNEMO_TEST_DATABASE_URL", "MNEMO_TEST_CHROMIUM"})

log = logging.getLogger("mnemo.config")
_warned: set[str] = set()


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


def unknown_env(environ: Mapping[str, str], fields: Collection[str]) -> dict[str, str | None]:
    """Each ``MNEMO_*`` variable of ``environ`` that names no setting, mapped to the variable of
    the closest setting (``difflib`` ratio at least 0.6), or None when nothing is close.

    >>> unknown_env({"MNEMO_RRF_KK": "3", "MNEMO_RRF_K": "3", "MNEMO_ZZZ": "1"}, {"rrf_k"})
    {'MNEMO_RRF_KK': 'MNEMO_RRF_K', 'MNEMO_ZZZ': None}
    """
    out: dict[str, str | None] = {}
    for key in sorted(environ):
        if not key.startswith(ENV_PREFIX) or key in OTHER_VARIABLES:
            continue
        name = key[len(ENV_PREFIX) :].lower()
        if name in fields:
            continue
        close = difflib.get_close_matches(name, list(fields), n=1, cutoff=0.6)
        out[key] = ENV_PREFIX + close[0].upper() if close else None
    return out


def warn_unknown(environ: Mapping[str, str], fields: Collection[str]) -> list[str]:
    """Log one warning line for each unknown ``MNEMO_*`` variable not warned about before in
    this process; returns the lines logged."""
    lines = []
    for key, close in unknown_env(environ, fields).items():
        if key in _warned:
            continue
        _warned.add(key)
        hint = f"did you mean {close}?" if close else "see docs/configuration.md"
        lines.append(f"mnemo: ignoring {key}: not a mnemo setting ({hint})")
        log.warning(lines[-1])
    return lines


__all__ = ["ENV_PREFIX", "OTHER_VARIABLES", "read_env", "unknown_env", "warn_unknown"]
