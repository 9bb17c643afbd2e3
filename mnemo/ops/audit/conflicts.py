"""Contradictions and stale values: two live values for one single-valued subject.

A subject is what :func:`mnemo.text.fact_subjects.subject_key` reads a fact as giving a
value to (the rule the fact tier reconciles by), or a profile key of
:data:`mnemo.ops.audit.facts.PROFILE_SUBJECTS`. Only single-valued subjects count:

* :data:`CHANGING` subjects change with time (where one lives, works, ...; a count, a
  favourite, an age): of two values, the newer one holds and the older is **stale**, its fix
  supersedes it (a fact is deleted with history; a profile value is replaced by the newer
  value, as the profile tier replaces one). The fix is safe (``fix=True`` applies it) between
  two facts of a :data:`TIME_DECIDES` subject of the user said at different times: what the
  fact tier does itself when the two meet at write time. The others wait for a person;
* :data:`FIXED` subjects do not (where one is from, a name, a birthday): two values
  **contradict**, as do two values of a changing subject said at the same time. A person
  decides; the fix offered keeps the newer.

Possessive subjects ("User's sister is ...") are single-valued only when their noun names
one thing (a name, a birthday, a favourite): "User's sister is a nurse" and "User's sister
is funny" are both true.

A subject is a person's: the user's ("User lives in Leeds", or the user by their own name:
"Jo lives in Leeds"), or that of the person a fact names ("Raj lives in Leeds"); see
:mod:`mnemo.ops.audit.names`. Only values of one person's subject are compared.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mnemo.ops.audit.facts import Item, same_value
from mnemo.ops.audit.findings import Finding, FindingKind, Fix, finding
from mnemo.ops.audit.names import label

#: Subjects whose value changes with time (a newer value supersedes an older one).
CHANGING = frozenset(["home", "employer", "job", "studies", "partner"])
#: Changing subjects whose rule reads one state unambiguously: time alone decides.
TIME_DECIDES = frozenset(["home", "employer", "studies", "partner"])
#: Subjects whose one value does not change.
FIXED = frozenset(["origin"])
_CHANGING_NP = re.compile(r"^(?:favou?rite .+|age|address|job|employer|phone number)$")
_FIXED_NP = re.compile(r"^(?:.*\bname|birthday|date of birth|hometown|nationality)$")


def kind_of(subject: str) -> str | None:
    """``changing``, ``fixed`` or None (not single-valued) for a subject key."""
    if subject in CHANGING or subject.startswith("has "):
        return "changing"
    if subject in FIXED:
        return "fixed"
    if subject.startswith("'s "):
        np = subject[3:]
        if _CHANGING_NP.match(np):
            return "changing"
        if _FIXED_NP.match(np):
            return "fixed"
    return None


def _finding(user_id: str, old: Item, new: Item, stale: bool) -> Finding:
    """A stale or contradiction finding between an older and a newer value of one subject
    (safe to fix only for the user's own subject: two people named alike may be two)."""
    assert old.subject is not None and new.subject is not None  # both grouped by subject
    subject = new.subject[0]
    facts = not (old.profile or new.profile)
    safe = stale and subject in TIME_DECIDES and facts and new.owner is None
    value = new.subject[1] if old.profile else None
    fix = Fix(
        action="supersede",
        keep=new.id,
        remove=[old.id],
        value=value,
        safe=safe,
        reason=(
            f"{new.id} replaces {old.id}"
            + (" (the profile value takes the newer one)" if old.profile else "")
            + ("" if stale else "; a person decides which is true")
        ),
    )
    detail = f"{label(new.owner, subject)}: {old.subject[1]} -> {new.subject[1]}"
    kind: FindingKind = "stale" if stale else "contradiction"
    return finding(kind, user_id, [(old.id, old.text), (new.id, new.text)], detail, fix)


def conflicts(user_id: str, items: Sequence[Item]) -> list[Finding]:
    """The stale and contradicting values among ``items`` (one agent view's live facts and
    active profile values): per single-valued subject, each older value the newest one
    differs from (a pair said at the same time, or of a fixed subject, contradicts); the
    user's subjects first, then each named person's."""
    by_slot: dict[tuple[str, str], list[Item]] = {}
    for it in items:
        if it.slot is not None and kind_of(it.slot[1]) is not None:
            by_slot.setdefault((it.slot[0] or "", it.slot[1]), []).append(it)
    out = []
    for (_, subject), group in sorted(by_slot.items()):
        group.sort(key=lambda it: (it.at, not it.profile, it.id))  # a fact last on ties
        newest = group[-1]
        assert newest.subject is not None
        for old in group[:-1]:
            assert old.subject is not None
            if same_value(old.subject[1], newest.subject[1]):
                continue
            stale = kind_of(subject) == "changing" and old.at < newest.at
            out.append(_finding(user_id, old, newest, stale))
    return out


__all__ = ["CHANGING", "FIXED", "TIME_DECIDES", "conflicts", "kind_of"]
