"""Source: the arguments given to the constructor (``Settings(rrf_k=30)``,
``Memory(path, search_limit=5)``, ``Settings.replace(...)``)."""

from __future__ import annotations

from typing import Any


def read_arguments(data: Any) -> dict[str, Any]:
    """The explicit constructor arguments as a new dict; anything but a mapping gives none.

    >>> read_arguments({"rrf_k": 30})
    {'rrf_k': 30}
    """
    return dict(data) if isinstance(data, dict) else {}


__all__ = ["read_arguments"]
