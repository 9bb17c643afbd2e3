"""The labelled set of changes of what is true now (issue 44): loader and validator.

Each line of ``bench/data/changes_dev.jsonl`` and ``bench/data/changes_fresh.jsonl`` is one
case: short dated user-assistant sessions in which a slot of the user (where they live, their
bank, their dog, ...) or of someone they name either changes (``kind: change``, with ``old``
and ``new``) or only seems to (``kind: non_change``, with the ``current`` value still true and
the ``distractor`` mentioned but not adopted: an addition, someone else's change, a plan, a
maybe, a hypothetical, a question, or a change undone or only remembered). ``evidence`` names
the turns, as ``[session index, turn index]``, that state each value; ``present_question``
asks what is true now, ``past_question`` (changes only) what was true before. ``features`` of
a change say how it is told: ``two_turn`` (the news and the value in two user turns of one
session), ``assistant_restates`` (an assistant turn of the evidence restates the new value),
``implied`` (the change is never said outright) and ``old_mentioned_later`` (the old value
comes up again, in passing, after the change). Every conversation was written for this set.

Rules are tuned on the dev file only; the fresh file is held out and not read while tuning.

    python bench/changes_data.py                      # validate both files, print counts
    python bench/changes_data.py bench/data/changes_dev.jsonl
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
DEV = DATA / "changes_dev.jsonl"
FRESH = DATA / "changes_fresh.jsonl"
KINDS = ("change", "non_change")
CHANGE_CATEGORIES = (
    "move",
    "job",
    "promotion",
    "retirement",
    "relationship",
    "household",
    "workplace",
    "pet",
    "replacement",
    "provider",
    "service",
    "commute",
    "study",
    "diet",
    "schedule",
    "reschedule",
    "hobby",
)
NON_CHANGE_CATEGORIES = (
    "addition",
    "other_person",
    "plan",
    "maybe",
    "hypothetical",
    "question",
    "undone",
)
FEATURES = ("two_turn", "assistant_restates", "implied", "old_mentioned_later")
ROLES = ("user", "assistant")
_COMMON = (
    "id",
    "kind",
    "category",
    "slot",
    "subject",
    "sessions",
    "evidence",
    "present_question",
    "answer_present",
    "features",
)
#: The fields of a line of each kind (no others are allowed).
FIELDS = {
    "change": (*_COMMON, "old", "new", "past_question", "answer_past"),
    "non_change": (*_COMMON, "current", "distractor"),
}
#: The evidence keys of each kind: the earlier value's turns first.
EVIDENCE_KEYS = {"change": ("old", "new"), "non_change": ("current", "distractor")}
_SLOT = re.compile(r"[a-z][a-z_]*")

Ref = tuple[int, int]


class CaseError(ValueError):
    """A line that is not a valid case; the message says why."""


@dataclass(frozen=True)
class Turn:
    """One message: ``role`` is ``user`` or ``assistant``."""

    role: str
    content: str


@dataclass(frozen=True)
class Session:
    """A dated conversation of one or more turns."""

    session_id: str
    date: datetime
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Case:
    """One labelled case; ``old``/``new`` are set for a change, ``current``/``distractor`` for a
    non-change, and ``evidence`` maps each of those names to the turns that state it."""

    id: str
    kind: str
    category: str
    slot: str
    subject: str
    sessions: tuple[Session, ...]
    evidence: dict[str, tuple[Ref, ...]]
    present_question: str
    answer_present: str
    features: tuple[str, ...]
    old: str | None = None
    new: str | None = None
    current: str | None = None
    distractor: str | None = None
    past_question: str | None = None
    answer_past: str | None = None

    @property
    def is_change(self) -> bool:
        """True for a change, False for a non-change."""
        return self.kind == "change"

    @property
    def value_now(self) -> str:
        """The value true after the last session (``new`` or ``current``)."""
        value = self.new if self.is_change else self.current
        assert value is not None
        return value

    def turn(self, ref: Ref) -> Turn:
        """The turn at ``[session index, turn index]``."""
        return self.sessions[ref[0]].turns[ref[1]]

    def date_of(self, ref: Ref) -> datetime:
        """The date of the session holding the turn at ``ref``."""
        return self.sessions[ref[0]].date


def _text(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CaseError(f"{key} must be a non-empty string")
    return value


def _sessions(raw: object) -> tuple[Session, ...]:
    if not isinstance(raw, list) or not raw:
        raise CaseError("sessions must be a non-empty list")
    out = []
    for n, s in enumerate(raw):
        if not isinstance(s, dict) or set(s) != {"session_id", "date", "turns"}:
            raise CaseError(f"session {n} must have exactly session_id, date, turns")
        try:
            date = datetime.fromisoformat(_text(s, "date"))
        except ValueError as exc:
            raise CaseError(f"session {n}: date is not ISO 8601: {s['date']!r}") from exc
        turns = s["turns"]
        if not isinstance(turns, list) or not turns:
            raise CaseError(f"session {n}: turns must be a non-empty list")
        parsed = []
        for m, t in enumerate(turns):
            if not isinstance(t, dict) or set(t) != {"role", "content"}:
                raise CaseError(f"session {n} turn {m} must have exactly role, content")
            if t["role"] not in ROLES:
                raise CaseError(f"session {n} turn {m}: role {t['role']!r} not in {ROLES}")
            parsed.append(Turn(t["role"], _text(t, "content")))
        out.append(Session(_text(s, "session_id"), date, tuple(parsed)))
    return tuple(out)


def _refs(raw: object, key: str, sessions: tuple[Session, ...]) -> tuple[Ref, ...]:
    if not isinstance(raw, list) or not raw:
        raise CaseError(f"evidence.{key} must be a non-empty list")
    out = []
    for ref in raw:
        ok = isinstance(ref, list) and len(ref) == 2 and all(type(x) is int for x in ref)
        if not ok:
            raise CaseError(f"evidence.{key}: {ref!r} is not [session, turn]")
        i, j = ref
        if not (0 <= i < len(sessions) and 0 <= j < len(sessions[i].turns)):
            raise CaseError(f"evidence.{key}: {ref!r} is out of range")
        out.append((i, j))
    if len(set(out)) != len(out):
        raise CaseError(f"evidence.{key} repeats a turn")
    return tuple(out)


def parse_case(obj: object) -> Case:
    """A :class:`Case` from one decoded line; raises :class:`CaseError` if a field is missing,
    unknown or of the wrong shape (the content checks are :func:`check_case`'s)."""
    if not isinstance(obj, dict):
        raise CaseError("a case must be a JSON object")
    kind = obj.get("kind")
    if kind not in KINDS:
        raise CaseError(f"kind {kind!r} not in {KINDS}")
    want = set(FIELDS[kind])
    if set(obj) != want:
        missing, extra = sorted(want - set(obj)), sorted(set(obj) - want)
        raise CaseError(f"fields: missing {missing}, unexpected {extra}")
    sessions = _sessions(obj["sessions"])
    evidence = obj["evidence"]
    keys = EVIDENCE_KEYS[kind]
    if not isinstance(evidence, dict) or set(evidence) != set(keys):
        raise CaseError(f"evidence must have exactly the keys {keys}")
    features = obj["features"]
    if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
        raise CaseError("features must be a list of strings")
    values = {k: _text(obj, k) for k in FIELDS[kind][len(_COMMON) :]}
    return Case(
        id=_text(obj, "id"),
        kind=kind,
        category=_text(obj, "category"),
        slot=_text(obj, "slot"),
        subject=_text(obj, "subject"),
        sessions=sessions,
        evidence={k: _refs(evidence[k], k, sessions) for k in keys},
        present_question=_text(obj, "present_question"),
        answer_present=_text(obj, "answer_present"),
        features=tuple(features),
        **values,
    )


def mentions(text: str, value: str) -> bool:
    """Whether ``value`` occurs in ``text``, case-insensitively, starting at a word's start
    (``"Tuesday"`` is in "tuesdays", ``"Chase"`` is not in "purchases").

    >>> mentions("moved to Bristol!", "bristol"), mentions("big purchases", "Chase")
    (True, False)
    """
    return re.search(r"(?<!\w)" + re.escape(value.casefold()), text.casefold()) is not None


def _said(case: Case, key: str, value: str) -> bool:
    """Whether ``value`` is mentioned in a turn of ``evidence[key]``."""
    return any(mentions(case.turn(r).content, value) for r in case.evidence[key])


def check_case(case: Case) -> list[str]:
    """What is wrong with a parsed case (empty when it is valid)."""
    problems = []
    categories = CHANGE_CATEGORIES if case.is_change else NON_CHANGE_CATEGORIES
    if case.category not in categories:
        problems.append(f"category {case.category!r} not one of {categories}")
    if not _SLOT.fullmatch(case.slot):
        problems.append(f"slot {case.slot!r} is not lower_snake_case")
    if len({s.session_id for s in case.sessions}) != len(case.sessions):
        problems.append("session ids repeat")
    dates = [s.date for s in case.sessions]
    if any(b <= a for a, b in itertools.pairwise(dates)):
        problems.append("session dates do not increase")
    questions = [case.present_question, case.past_question or "?"]
    if not all(q.rstrip().endswith("?") for q in questions):
        problems.append("a question does not end with '?'")
    earlier, later = EVIDENCE_KEYS[case.kind]
    first, second = case.evidence[earlier], case.evidence[later]
    if case.is_change:
        assert case.old and case.new and case.answer_past
        if case.old.casefold() == case.new.casefold():
            problems.append("old and new are the same")
        if max(map(case.date_of, first)) >= min(map(case.date_of, second)):
            problems.append("an old-value turn is not dated before every new-value turn")
        for value in dict.fromkeys((case.old, case.answer_past)):
            if not _said(case, "old", value):
                problems.append(f"{value!r} is in no evidence.old turn")
        for value in dict.fromkeys((case.new, case.answer_present)):
            if not _said(case, "new", value):
                problems.append(f"{value!r} is in no evidence.new turn")
        problems += _check_features(case)
    else:
        assert case.current and case.distractor
        if case.current.casefold() == case.distractor.casefold():
            problems.append("current and distractor are the same")
        if min(map(case.date_of, first)) >= max(map(case.date_of, second)):
            problems.append("the current value is not stated before the distractor's last turn")
        for value in dict.fromkeys((case.current, case.answer_present)):
            if not _said(case, "current", value):
                problems.append(f"{value!r} is in no evidence.current turn")
        if not _said(case, "distractor", case.distractor):
            problems.append(f"{case.distractor!r} is in no evidence.distractor turn")
        if case.features:
            problems.append("a non-change has features")
    return problems


def _check_features(case: Case) -> list[str]:
    """The claims of a change's ``features`` that its turns do not bear out."""
    problems = []
    unknown = set(case.features) - set(FEATURES)
    if unknown or len(set(case.features)) != len(case.features):
        problems.append(f"features must be distinct names from {FEATURES}")
    new = case.evidence["new"]
    if "two_turn" in case.features:
        users = [r for r in new if case.turn(r).role == "user"]
        if len(users) < 2 or len({i for i, _ in users}) != 1:
            problems.append("two_turn, but not two user turns of one session in evidence.new")
    if "assistant_restates" in case.features:
        said = [case.turn(r) for r in new if case.turn(r).role == "assistant"]
        if not any(mentions(t.content, case.answer_present) for t in said):
            problems.append("assistant_restates, but no evidence.new assistant turn has it")
    if "old_mentioned_later" in case.features:
        start, cited, past = min(new), {*new, *case.evidence["old"]}, case.answer_past or ""
        later = [
            t.content
            for i, s in enumerate(case.sessions)
            for j, t in enumerate(s.turns)
            if (i, j) > start and (i, j) not in cited
        ]
        if not any(mentions(text, past) for text in later):
            problems.append("old_mentioned_later, but no later uncited turn has answer_past")
    return problems


def _lines(path: Path) -> list[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]


def validate(path: str | Path) -> list[str]:
    """Every problem of the file at ``path``, one ``path:line: id: message`` string each (an
    empty list when every case is valid and the ids are distinct)."""
    path = Path(path)
    problems: list[str] = []
    seen: dict[str, int] = {}
    for n, line in _lines(path):
        where = f"{path}:{n}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{where}: not JSON: {exc}")
            continue
        try:
            case = parse_case(obj)
        except CaseError as exc:
            name = obj.get("id") if isinstance(obj, dict) else None
            problems.append(f"{where}: {name or '?'}: {exc}")
            continue
        if case.id in seen:
            problems.append(f"{where}: {case.id}: id also on line {seen[case.id]}")
        seen.setdefault(case.id, n)
        problems += [f"{where}: {case.id}: {p}" for p in check_case(case)]
    return problems


def load(path: str | Path) -> list[Case]:
    """The cases of the file at ``path``; raises :class:`CaseError` if any is invalid."""
    problems = validate(path)
    if problems:
        raise CaseError("\n".join(problems))
    return [parse_case(json.loads(line)) for _, line in _lines(Path(path))]


def _overlap(sets: list[list[Case]]) -> list[str]:
    """Ids or user turns that occur in more than one file (the held-out file must share none)."""
    problems = []
    for a in range(len(sets)):
        for b in range(a + 1, len(sets)):
            ids = {c.id for c in sets[a]} & {c.id for c in sets[b]}
            problems += [f"id {i} is in two files" for i in sorted(ids)]
            texts = [
                {t.content for c in cases for s in c.sessions for t in s.turns if t.role == "user"}
                for cases in (sets[a], sets[b])
            ]
            problems += [f"user turn in two files: {t!r}" for t in sorted(texts[0] & texts[1])]
    return problems


def counts(cases: list[Case]) -> dict[str, Counter[str]]:
    """Cases per kind, category, slot and feature."""
    return {
        "kind": Counter(c.kind for c in cases),
        "category": Counter(f"{c.kind}/{c.category}" for c in cases),
        "slot": Counter(f"{c.kind}/{c.slot}" for c in cases),
        "feature": Counter(f for c in cases for f in c.features),
        "subject": Counter("user" if c.subject == "user" else "someone named" for c in cases),
    }


def _print_counts(name: str, cases: list[Case]) -> None:
    turns = sum(len(s.turns) for c in cases for s in c.sessions)
    sessions = sum(len(c.sessions) for c in cases)
    print(f"== {name}: {len(cases)} cases, {sessions} sessions, {turns} turns")
    for axis, counter in counts(cases).items():
        row = ", ".join(f"{k} {v}" for k, v in sorted(counter.items()))
        print(f"  {axis}: {row}")


def main(argv: list[str] | None = None) -> int:
    """Validate the files, print their counts; 1 if any case is invalid."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*", default=[str(DEV), str(FRESH)], help="JSONL case files")
    args = ap.parse_args(argv)
    problems: list[str] = []
    loaded = []
    for path in args.paths:
        found = validate(path)
        problems += found
        if not found:
            loaded.append((path, load(path)))
    problems += _overlap([cases for _, cases in loaded])
    for path, cases in loaded:
        _print_counts(Path(path).name, cases)
    if len(loaded) > 1:
        _print_counts("all", [c for _, cases in loaded for c in cases])
    for p in problems:
        print(f"INVALID {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
