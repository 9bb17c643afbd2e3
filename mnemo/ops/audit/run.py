"""Running the audit over a store: read each user's live facts and active profile values,
find what is wrong (:mod:`~mnemo.ops.audit.junk`, :mod:`~mnemo.ops.audit.duplicates`,
:mod:`~mnemo.ops.audit.conflicts`, each a pure function over the rows read here), and apply
the fixes asked for, through history.

A fact that names the user by a name the store knows for them ("Jo lives in Leeds", with Jo
the profile's name, the name on the user's turns or the user id) is about the user, as "User
lives in Leeds" is; one that names someone else is about that person
(:mod:`mnemo.ops.audit.names`). A user the tenant holds nothing of is a NotFoundError.

Findings are computed per agent view: the facts shared by every agent of a user, and those
private to each agent, are audited apart (a merge never moves a fact between views). A junk
fact is left out of the duplicate and subject checks (its one finding is enough). Fixes apply
in the order junk, duplicate, stale, contradiction; a fix that would touch a memory an
earlier fix of the run already changed is skipped (the next run sees what is left).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from mnemo import validation as check
from mnemo.config.settings import Settings
from mnemo.errors import NotFoundError, ValidationError
from mnemo.ids import MEMORY_PREFIX, PROFILE_PREFIX, new_id
from mnemo.index.embed import Embedding
from mnemo.ops.audit.conflicts import conflicts
from mnemo.ops.audit.duplicates import duplicates
from mnemo.ops.audit.facts import Item, fact_item, profile_item
from mnemo.ops.audit.findings import (
    AUDIT_ACTOR,
    FINDING_KINDS,
    FINDING_PREFIX,
    AuditReport,
    Finding,
)
from mnemo.ops.audit.junk import junk
from mnemo.ops.audit.names import user_names
from mnemo.ops.steps import ProgressFactory, step_bar
from mnemo.schemas import MemoryItem, ProfileFact, format_time
from mnemo.storage.base import ListFilter, NewProfileFact
from mnemo.storage.ports.conversation import ProfileQuery
from mnemo.storage.ports.store import Store
from mnemo.storage.scope import ReadScope

#: Facts read from the store per query.
PAGE = 1000
#: The user's latest turns read for the name they go by (:func:`~mnemo.ops.audit.names.
#: user_names`).
NAME_TURNS = 100


@dataclass(frozen=True)
class AuditRequest:
    """One audit: of ``user_id`` (None: every user of the tenant), applying the safe fixes
    (``fix``) and the fixes of the findings named in ``apply`` (a person's choice)."""

    user_id: str | None = None
    fix: bool = False
    apply: tuple[str, ...] = ()

    @classmethod
    def of(cls, user_id: str | None, fix: bool, apply: Sequence[str] | None) -> AuditRequest:
        """The checked request (ValidationError for a bad user id or finding id)."""
        if user_id is not None:
            user_id = check.identifier(user_id, "user_id")
        if not isinstance(fix, bool):
            raise ValidationError("fix must be true or false")
        ids = tuple(apply or ())
        if isinstance(apply, str) or not all(
            isinstance(i, str) and i.startswith(FINDING_PREFIX) for i in ids
        ):
            raise ValidationError(f"apply must be a list of finding ids ({FINDING_PREFIX}...)")
        return cls(user_id, fix, ids)

    def wants(self, f: Finding) -> bool:
        """Whether this request applies ``f``'s fix."""
        return (self.fix and f.fix.safe) or f.id in self.apply


class Auditor:
    """The audit of one tenant's memories in ``store`` (``settings.tenant``); facts are
    compared by their stored vectors, read through ``embed`` (a text already stored is not
    embedded again)."""

    def __init__(self, store: Store, settings: Settings, embed: Embedding) -> None:
        self.store = store
        self.settings = settings
        self.tenant = settings.tenant
        self.embed = embed

    def run(self, q: AuditRequest, progress: ProgressFactory | None = None) -> AuditReport:
        """Audit the users ``q`` names, applying the fixes it asks for; NotFoundError for a
        user the tenant holds nothing of (no turn, no memory, deleted ones included)."""
        if q.user_id is not None and not self._holds(q.user_id):
            raise NotFoundError(f"no user {q.user_id!r} in tenant {self.tenant!r}")
        users = [q.user_id] if q.user_id is not None else self._users()
        report = AuditReport()
        with step_bar(progress, "audit", len(users)) as advance:
            for user_id in users:
                facts = self._facts(user_id)
                profile = self.store.conversation.profile_facts(ProfileQuery(self.tenant, user_id))
                found = self.findings(user_id, facts, profile, self._names(user_id, profile))
                self._apply(q, found, {f.id: f for f in facts}, {p.id: p for p in profile})
                report.users += 1
                report.facts += len(facts)
                report.profile_values += len(profile)
                report.add(found)
                advance(1)
        seen = {f.id for f in report.findings}
        report.not_found = [i for i in dict.fromkeys(q.apply) if i not in seen]
        return report

    def findings(
        self,
        user_id: str,
        facts: Sequence[MemoryItem],
        profile: Sequence[ProfileFact],
        names: Collection[str] = (),
    ) -> list[Finding]:
        """Every finding about one user's live ``facts`` and active ``profile`` values, in
        the order junk, duplicate, stale, contradiction; ``names`` (lower case) are those
        the user goes by, so a fact naming them is about them."""
        vectors = self.embed([f.content for f in facts])[1] if facts else np.zeros((0, 0))
        found = junk(user_id, facts)
        dropped = {i for f in found for i in f.memory_ids}
        views: dict[str | None, tuple[list[Item], list[int]]] = {}
        for i, fact in enumerate(facts):
            if fact.id not in dropped:
                items, rows = views.setdefault(fact.agent_id, ([], []))
                items.append(fact_item(fact, names))
                rows.append(i)
        for p in profile:
            views.setdefault(p.agent_id, ([], []))[0].append(profile_item(p))
        threshold = self.settings.fact_dedupe_threshold
        for items, rows in views.values():
            said = [it for it in items if not it.profile]
            found += duplicates(user_id, said, vectors[rows], threshold)
            found += conflicts(user_id, items)
        order = {k: n for n, k in enumerate(FINDING_KINDS)}
        order["junk"] = -1
        return sorted(found, key=lambda f: order[f.kind])

    def _holds(self, user_id: str) -> bool:
        """Whether the tenant holds a turn or a memory (deleted ones too) of ``user_id``."""
        rows = self.store.rows
        memories = ListFilter(ReadScope(self.tenant, user_id, deleted=True), limit=1)
        turns = ListFilter(ReadScope(self.tenant, user_id, kinds=("message",), evicted=True))
        return bool(rows.count_memories(memories) or rows.count_messages(turns))

    def _names(self, user_id: str, profile: Sequence[ProfileFact]) -> frozenset[str]:
        """The names ``user_id`` goes by: the profile's, those on their latest turns."""
        scope = ReadScope(self.tenant, user_id, kinds=("message",))
        turns = self.store.rows.recent_messages(ListFilter(scope, limit=NAME_TURNS))
        return user_names(user_id, profile, turns)

    def _users(self) -> list[str]:
        out: list[str] = []
        while page := self.store.rows.list_users(
            self.tenant, 1000, 0, after=out[-1] if out else None
        ):
            out += [u.user_id for u in page]
        return out

    def _facts(self, user_id: str) -> list[MemoryItem]:
        """The user's live facts (every agent's), oldest first."""
        scope = ReadScope(self.tenant, user_id, kinds=("fact",))
        out: list[MemoryItem] = []
        while True:
            page = self.store.rows.list_memories(ListFilter(scope, limit=PAGE, offset=len(out)))
            out += page
            if len(page) < PAGE:
                return out[::-1]

    def _apply(
        self,
        q: AuditRequest,
        found: list[Finding],
        facts: dict[str, MemoryItem],
        profile: dict[str, ProfileFact],
    ) -> None:
        touched: set[str] = set()
        for f in found:
            if not q.wants(f) or touched & set(f.memory_ids):
                continue
            try:
                for old in f.fix.remove:
                    if old.startswith(PROFILE_PREFIX):
                        kept = facts.get(f.fix.keep or "")
                        at = None if kept is None else format_time(kept.created_at)
                        self._supersede_profile(profile[old], f, at)
                    elif old.startswith(MEMORY_PREFIX):
                        self.store.rows.delete_memory(self.tenant, old, AUDIT_ACTOR)
            except NotFoundError:  # changed since it was read: the next run sees it
                continue
            touched.update(f.memory_ids)
            f.applied = True

    def _supersede_profile(self, old: ProfileFact, f: Finding, at: str | None) -> None:
        """Replace the active profile value ``old`` with the value ``f`` keeps, as the
        profile tier replaces one (``old`` inactive, superseded at ``at``, when the newer
        value was said (None: now), history UPDATE)."""
        if f.fix.value is None:
            raise ValidationError(f"finding {f.id} names no value for {old.id}")
        row = NewProfileFact(
            id=new_id(PROFILE_PREFIX),
            tenant=old.tenant,
            user_id=old.user_id,
            category=old.category,
            key=old.key,
            value=f.fix.value,
            confidence=old.confidence,
            importance=old.importance,
            source_message_ids=[],
            observed_at=at,
            note={"audit": f.id, "kept": f.fix.keep},
            agent_id=old.agent_id,
        )
        self.store.conversation.put_profile_fact(
            row, AUDIT_ACTOR, lambda cur, _: "UPDATE" if cur and cur.id == old.id else "NONE"
        )


__all__ = ["PAGE", "AuditRequest", "Auditor"]
