"""What a mem0 caller said, kept as mnemo turns, and the memory standing for each.

Messages added through :class:`mnemo.compat.mem0.Memory` are conversation turns (mnemo's
event log: their time, speaker and session, so search applies every turn signal), whatever
``infer`` says. Turns are never edited or deleted one by one, so each turn also gets a
*stand-in*: a ``note`` memory with the turn's text and the caller's metadata, whose
``metadata["mem0_turn"]`` is the turn's id (``mem0_inferred`` too for a turn of an inferred
add). The stand-in's id is what mem0's API returns for the turn, so ``get``, ``update``,
``delete`` and ``history`` work on it as on any memory.

A search reads the turns and the facts (:data:`SEARCH_KINDS`: the turns carry every turn
signal, which a copy of their text would not) and shows a turn hit as its stand-in while the
stand-in is live and still stands for it. Once the caller has deleted the stand-in, the turn
no longer speaks for anything; once the caller has rewritten it, it is a note of its own
(``mem0_rewritten`` instead of ``mem0_turn``, see :func:`freed`), which a second search over
such notes finds by its new text (:data:`FREE_NOTES`; only run when the scope has one).
Turns without a stand-in (written through mnemo's own API) and hits of another user
(mnemo's shared ``global`` user) are left out: mem0's filters select exactly the caller's
scope.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mnemo.compat.mem0_shapes import INFERRED, REWRITTEN, TURN, item
from mnemo.errors import NotFoundError
from mnemo.memory.facade import Memory as Mnemo
from mnemo.schemas import Hit, MemoryItem

#: The actor of the changes this layer makes.
ACTOR = "mem0-compat"
#: The hit kinds a mem0 search reads: the turns (shown as their stand-ins) and the facts.
SEARCH_KINDS = ("message", "fact")
#: The notes a mem0 search reads besides: those that stand for no turn (rewritten stand-ins).
FREE_NOTES = {"AND": [{"kind": "note"}, {"NOT": {f"metadata.{TURN}": {"exists": True}}}]}
#: The largest listing one call reads (mnemo's listing window).
MAX_ROWS = 10_000


def write_turns(
    mnemo: Mnemo,
    rows: Sequence[Mapping[str, Any]],
    user: str | None,
    agent: str | None,
    session: str,
    metadata: Mapping[str, Any] | None,
    inferred: bool,
) -> list[MemoryItem]:
    """Store ``rows`` as turns of ``session`` (with the caller's ``metadata``) and a stand-in
    for each; returns the stand-ins, in order."""
    given = dict(metadata or {})
    turns = [{**r, "metadata": given} if given else dict(r) for r in rows]
    ids = mnemo.add_messages(turns, user, session, agent_id=agent)
    engine: dict[str, Any] = {INFERRED: True} if inferred else {}
    return [
        mnemo.add(
            str(r.get("content", "")),
            user,
            kind="note",
            session_id=session,
            metadata={**given, **engine, TURN: turn_id},
            source_message_ids=[turn_id],
            created_at=r.get("created_at"),
            agent_id=agent,
            actor=ACTOR,
        )
        for r, turn_id in zip(rows, ids, strict=True)
    ]


def freed(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The metadata of a stand-in whose text the caller rewrote: it stands for its turn no
    more (``mem0_turn`` becomes ``mem0_rewritten``); any other memory's is unchanged."""
    out = dict(metadata)
    if TURN in out:
        out[REWRITTEN] = out.pop(TURN)
    return out


def stand_ins(mnemo: Mnemo, turn_ids: Sequence[str]) -> dict[str, MemoryItem]:
    """The live stand-ins of these turns, by turn id."""
    if not turn_ids:
        return {}
    found = mnemo.list(filters={f"metadata.{TURN}": {"in": list(turn_ids)}}, limit=MAX_ROWS)
    return {str(m.metadata[TURN]): m for m in found}


def score_of(hit: Hit) -> float:
    """mem0's ``score`` of a hit: its calibrated relevance in [0, 1] (the ranking score for
    an embedder without calibration)."""
    return hit.relevance if hit.relevance is not None else hit.score


def results(
    mnemo: Mnemo, hits: Sequence[Hit], owner: str, threshold: float | None
) -> list[dict[str, Any]]:
    """mem0's search results of ``hits`` (of user key ``owner``), in their order: a turn as
    its stand-in, each memory once, none scoring below ``threshold``."""
    standing = stand_ins(mnemo, [h.id for h in hits if h.kind == "message"])
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for hit in hits:
        score = score_of(hit)
        if hit.user_id != owner or (threshold is not None and score < threshold):
            continue
        found = standing.get(hit.id) if hit.kind == "message" else _live(mnemo, hit.id)
        if found is None or found.id in seen:
            continue
        seen.add(found.id)
        out.append(item(found, score, with_score=True))
    return out


def _live(mnemo: Mnemo, memory_id: str) -> MemoryItem | None:
    try:
        return mnemo.get_memory(memory_id)
    except NotFoundError:
        return None  # gone meanwhile, or not a memory (a profile fact)


__all__ = [
    "ACTOR",
    "FREE_NOTES",
    "MAX_ROWS",
    "SEARCH_KINDS",
    "freed",
    "results",
    "score_of",
    "stand_ins",
    "write_turns",
]
