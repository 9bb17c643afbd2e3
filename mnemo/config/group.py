"""The base of every settings group: a small frozen pydantic model of one component's fields.

A group is a slice of :class:`mnemo.config.settings.Settings`, which inherits from every group,
so a ``Settings`` instance *is* each group (``isinstance(settings, RetrievalSettings)``) and a
component can ask for its group's type only. Fields stay flat: ``settings.rrf_k``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class SettingsGroup(BaseModel):
    """Frozen, strict base model of one component's settings.

    >>> from mnemo.config.search import RetrievalSettings
    >>> RetrievalSettings().rrf_k
    60.0
    """

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)


__all__ = ["SettingsGroup"]
