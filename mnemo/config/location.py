"""Where the store is: the one reading of a database location, for ``--db``, ``path``,
``database_url`` (``MNEMO_PATH``, ``MNEMO_DATABASE_URL``, the config file) and ``Memory(path)``
/ ``Memory(url=...)``.

A location is one of:

* a plain file path (``mnemo.db``, ``/data/m.db``, ``:memory:``): SQLite;
* a SQLite URL: ``sqlite:///abs/path.db`` (the URL's path, so ``/abs/path.db``),
  ``sqlite:relative.db``, ``sqlite://`` or ``sqlite:///:memory:`` (in memory); or a ``file:``
  URI (``file:///abs/path.db``, ``file:relative.db``, host ``localhost`` allowed);
  percent-escapes are decoded;
* a PostgreSQL URL, ``postgresql://`` or ``postgres://``, kept as it is.

Anything else that looks like a URL (``scheme://...``: ``mysql://``, ``postgresql+psycopg://``)
is a :class:`~mnemo.errors.ConfigError`, as is a SQLite URL with a host, a query or a fragment:
it is never taken for a file name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from mnemo.errors import ConfigError
from mnemo.redact import mask_credentials

#: URL schemes of PostgreSQL.
POSTGRES_SCHEMES = ("postgresql", "postgres")
#: URL schemes read as a SQLite file.
SQLITE_SCHEMES = ("sqlite", "file")
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_SQLITE_PREFIX = re.compile(r"^(sqlite|file):", re.IGNORECASE)


@dataclass(frozen=True)
class Location:
    """A parsed store location: a SQLite ``path`` or a PostgreSQL ``url``."""

    backend: Literal["sqlite", "postgres"]
    target: str

    def settings(self) -> dict[str, Any]:
        """The settings that select this store: ``path`` for SQLite, ``database_url`` for
        PostgreSQL.

        >>> parse_location("sqlite:///tmp/m.db").settings()
        {'path': '/tmp/m.db'}
        """
        if self.backend == "postgres":
            return {"database_url": self.target}
        return {"path": self.target}


def parse_location(text: str, what: str = "database location") -> Location:
    """The store ``text`` names (see the module docstring); ConfigError naming ``what`` for a
    scheme mnemo cannot open.

    >>> parse_location("mnemo.db")
    Location(backend='sqlite', target='mnemo.db')
    >>> parse_location("postgres://u@h/db").backend
    'postgres'
    >>> parse_location("mysql://bob:pw@localhost/x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mnemo.errors.ConfigError: database location mysql://bob:***@localhost/x: unsupported ...
    """
    shown = f"{what} {mask_credentials(text)}"
    scheme = _URL.match(text)
    name = scheme.group(1).lower() if scheme else ""
    if name in POSTGRES_SCHEMES:
        return Location("postgres", text)
    if _SQLITE_PREFIX.match(text):
        return Location("sqlite", _sqlite_path(text, shown))
    if scheme:
        raise ConfigError(
            f"{shown}: unsupported scheme {name!r} (give a SQLite file path, "
            "sqlite:///path or postgresql://...)"
        )
    return Location("sqlite", text)


def _sqlite_path(text: str, shown: str) -> str:
    parts = urlsplit(text)
    if parts.query or parts.fragment or text.rstrip().endswith(("?", "#")):
        raise ConfigError(f"{shown}: a SQLite URL takes no query or fragment")
    if parts.netloc not in ("", "localhost"):
        raise ConfigError(
            f"{shown}: a SQLite URL names no host (sqlite:///abs/path.db is /abs/path.db)"
        )
    path = unquote(parts.path)
    if path in ("", "/:memory:"):
        if path == "" and "//" not in text:
            raise ConfigError(f"{shown}: the URL names no file")
        return ":memory:"
    return path


def new_sqlite_file(path: str, database_url: str | None) -> Path | None:
    """The SQLite file of the settings ``path`` and ``database_url`` when it does not exist
    yet (opening the store would create it); None for an existing file, PostgreSQL (a
    ``database_url``) and ``:memory:``.

    >>> new_sqlite_file(":memory:", None) is None
    True
    """
    if database_url or path == ":memory:":
        return None
    file = Path(path).expanduser()
    return None if file.exists() else file


def location_settings(values: dict[str, Any]) -> dict[str, Any]:
    """One source's settings (the constructor's, the environment's or the config file's) with
    its ``database_url`` and ``path`` read by :func:`parse_location`: a SQLite URL in
    ``database_url`` becomes that source's ``path`` (and clears the URL), a PostgreSQL URL in
    ``path`` becomes its ``database_url``. The other keys are kept.

    >>> location_settings({"database_url": "sqlite:///tmp/m.db", "rrf_k": 3})
    {'rrf_k': 3, 'path': '/tmp/m.db', 'database_url': None}
    >>> location_settings({"path": "postgresql://h/db"})
    {'database_url': 'postgresql://h/db'}
    """
    out = dict(values)
    url, path = out.get("database_url"), out.get("path")
    if isinstance(url, str) and url:
        out.pop("database_url")
        out.update(parse_location(url, "database_url").settings())
        out.setdefault("database_url", None)
    elif isinstance(path, str):
        out.pop("path")
        out.update(parse_location(path, "path").settings())
    return out


__all__ = [
    "POSTGRES_SCHEMES",
    "SQLITE_SCHEMES",
    "Location",
    "location_settings",
    "new_sqlite_file",
    "parse_location",
]
