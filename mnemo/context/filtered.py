"""A filtered context: which profile facts stay when ``context(..., filters=...)`` is given.

The searches a layout runs take the filter themselves (it travels on the request's
overrides, down to the store). Profile facts are not rows a store-side filter reads, so a
filtered context keeps a profile fact only when the filter accepts it as a row of kind
``profile`` (its time, and its ``category``, ``key``, ``value``, ``confidence`` and
``importance`` as metadata): ``{"kind": "fact"}`` leaves the profile out,
``{"kind": {"in": ["fact", "profile"]}}`` keeps it.
"""

from __future__ import annotations

from mnemo.filters import Filter, matches
from mnemo.schemas import ContextItem, ContextSection


def allowed(item: ContextItem, where: Filter) -> bool:
    """Whether a context item stays under ``where`` (only profile facts are decided here:
    everything else came from a filtered search or is no memory)."""
    if item.kind != "profile":
        return True
    row = {
        "kind": "profile",
        "created_at": item.created_at,
        "updated_at": item.updated_at,
        "metadata": item.metadata,
    }
    return matches(where, row)


def narrowed(sections: list[ContextSection], where: Filter | None) -> list[ContextSection]:
    """``sections`` with the profile facts ``where`` does not accept taken out (in place)."""
    if where is not None:
        for section in sections:
            section.items = [item for item in section.items if allowed(item, where)]
    return sections


__all__ = ["allowed", "narrowed"]
