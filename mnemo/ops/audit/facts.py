"""An audited item: a live fact or an active profile value, read once into what every
finding compares (its normal form, content words, subject, whose subject it is, and time)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from mnemo.ops.audit.names import about
from mnemo.ops.audit.words import content_words, normal
from mnemo.schemas import MemoryItem, ProfileFact

#: The fact subject (:func:`mnemo.text.fact_subjects.subject_key`) of a profile key: the
#: profile's location and a fact "User lives in ..." give a value to one state.
PROFILE_SUBJECTS = {
    "location": "home",
    "employer": "employer",
    "occupation": "job",
    "hometown": "origin",
    "studies": "studies",
}


@dataclass(frozen=True)
class Item:
    """One audited memory: a fact (``profile`` False) or an active profile value."""

    id: str
    text: str
    at: datetime
    agent_id: str | None
    profile: bool
    #: what state it gives a value to, and the value; None: no known subject
    subject: tuple[str, str] | None
    normal: str
    content: tuple[str, ...]
    #: whose subject it is: None the user's, else the person the fact names
    #: (:func:`mnemo.ops.audit.names.about`)
    owner: str | None = None

    @property
    def slot(self) -> tuple[str | None, str] | None:
        """Whose subject and which (two items with one slot give values to one state)."""
        return None if self.subject is None else (self.owner, self.subject[0])


def fact_item(m: MemoryItem, names: Collection[str] = ()) -> Item:
    """The audited form of a fact (its time is when it was said: ``created_at``); a fact
    that names the user by one of ``names`` (lower case) is about the user, as "User ..."
    is (:func:`mnemo.ops.audit.names.about`)."""
    read = about(m.content, names)
    owner, key = (None, None) if read is None else read
    return Item(
        id=m.id,
        text=m.content,
        at=m.created_at,
        agent_id=m.agent_id,
        profile=False,
        subject=key,
        normal=normal(m.content),
        content=tuple(content_words(m.content)),
        owner=owner,
    )


def profile_item(p: ProfileFact) -> Item:
    """The audited form of an active profile value, shown as ``key: value``; its subject is
    the fact subject of its key (:data:`PROFILE_SUBJECTS`), if any."""
    key = PROFILE_SUBJECTS.get(p.key)
    text = f"{p.key}: {p.value}"
    return Item(
        id=p.id,
        text=text,
        at=p.observed_at or p.created_at,
        agent_id=p.agent_id,
        profile=True,
        subject=None if key is None else (key, p.value),
        normal=normal(p.value),
        content=tuple(content_words(p.value)),
    )


def same_value(a: str, b: str) -> bool:
    """Whether two values of one subject say the same: the content words of one are all
    in the other ("Seattle" and "Seattle with my family")."""
    wa, wb = set(content_words(a)), set(content_words(b))
    if not wa or not wb:
        return normal(a) == normal(b)
    return wa <= wb or wb <= wa


__all__ = ["PROFILE_SUBJECTS", "Item", "fact_item", "profile_item", "same_value"]
