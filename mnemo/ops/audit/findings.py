"""What an audit reports: its findings, the fix each offers, and the report of one run.

A finding names the memories it is about (``memory_ids``, their texts in ``contents``) and
one :class:`Fix`. Its id is made from its kind and those ids, so the same finding has the
same id in every run until the memories change: a person can read a report and later ask
for one finding's fix by id (``Memory.audit(apply=[...])``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

FindingKind = Literal["duplicate", "contradiction", "stale", "junk"]
#: Every kind of finding, in the order a report counts them.
FINDING_KINDS: tuple[FindingKind, ...] = ("duplicate", "contradiction", "stale", "junk")
FixAction = Literal["merge", "supersede", "delete"]
#: The actor recorded in history for a change an audit fix makes.
AUDIT_ACTOR = "audit"
#: The prefix of a finding's id.
FINDING_PREFIX = "aud_"


class Fix(BaseModel):
    """The change that resolves a finding, made through history (nothing is erased).

    ``merge``: keep ``keep``, delete ``remove`` (copies of it). ``supersede``: the newer
    ``keep`` replaces the older ``remove``: a fact is deleted, a profile value is replaced by
    ``value`` (the fact's). ``delete``: delete ``remove``. ``safe`` fixes are those
    ``fix=True`` applies on its own; the others wait for a person (``apply=[finding id]``).
    """

    action: FixAction
    keep: str | None = None
    remove: list[str] = Field(default_factory=list)
    value: str | None = None
    safe: bool = False
    reason: str


class Finding(BaseModel):
    """One thing wrong with a user's memories: what kind, which memories, why, its fix."""

    id: str
    kind: FindingKind
    user_id: str
    memory_ids: list[str]
    contents: list[str]
    detail: str
    fix: Fix
    #: whether this run applied the fix
    applied: bool = False


class AuditReport(BaseModel):
    """What one audit found: the findings of every user audited, their counts by kind
    (every kind, zeros too), how many users and facts were read, how many fixes applied,
    and the finding ids asked for that it did not find."""

    users: int = 0
    facts: int = 0
    profile_values: int = 0
    counts: dict[str, int] = Field(default_factory=lambda: {str(k): 0 for k in FINDING_KINDS})
    applied: int = 0
    findings: list[Finding] = Field(default_factory=list)
    #: finding ids asked for (``apply``) that this audit did not find: their memories changed
    not_found: list[str] = Field(default_factory=list)

    def add(self, found: Sequence[Finding]) -> None:
        """Take ``found`` into the report and its counts."""
        for f in found:
            self.findings.append(f)
            self.counts[f.kind] += 1
            self.applied += int(f.applied)


def finding_id(kind: str, memory_ids: Sequence[str]) -> str:
    """The id of a finding of ``kind`` about ``memory_ids`` (order does not matter)."""
    digest = hashlib.sha256("\n".join([kind, *sorted(memory_ids)]).encode()).hexdigest()
    return FINDING_PREFIX + digest[:16]


def finding(
    kind: FindingKind,
    user_id: str,
    members: Sequence[tuple[str, str]],
    detail: str,
    fix: Fix,
) -> Finding:
    """A finding of ``kind`` about ``members`` ((id, text) pairs, in the order shown)."""
    ids = [m[0] for m in members]
    return Finding(
        id=finding_id(kind, ids),
        kind=kind,
        user_id=user_id,
        memory_ids=ids,
        contents=[m[1] for m in members],
        detail=detail,
        fix=fix,
    )


__all__ = [
    "AUDIT_ACTOR",
    "FINDING_KINDS",
    "FINDING_PREFIX",
    "AuditReport",
    "Finding",
    "FindingKind",
    "Fix",
    "FixAction",
    "finding",
    "finding_id",
]
