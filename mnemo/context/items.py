"""Context items from what a :class:`~mnemo.context.source.ContextSource` holds: search hits,
profile facts, memories and turns, and the request they answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mnemo.context.options import ContextOptions
from mnemo.context.source import ContextSource
from mnemo.schemas import ContextItem, ContextSection, Hit, Message
from mnemo.search_query import SearchQuery
from mnemo.text.extractive import excerpt


@dataclass
class ContextRequest:
    """One context call as its layout reads it: the search (the source's query) and the
    layout options."""

    search: SearchQuery
    options: ContextOptions
    #: the layout's structured bundle, copied to ``ContextBundle.data`` (`llmplatform`)
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def query(self) -> str:
        """The text the prompt answers."""
        return self.search.query

    @property
    def user_id(self) -> str:
        """Whose context it is: the user, else the agent (its own memories)."""
        return self.search.user_id or self.search.agent_id or ""

    @property
    def session_id(self) -> str | None:
        """The conversation it answers, if one."""
        return self.search.session


def clip(text: str, limit: int | None) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis; unchanged when it fits or None."""
    if limit is None or len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + "…"


def search(
    source: ContextSource,
    req: ContextRequest,
    limit: int,
    kinds: Sequence[str] | None,
    query: str = "",
) -> list[Hit]:
    """The request's search with this text (default: the request's), limit and kinds,
    without the hits the floors leave out (:func:`above_floor`)."""
    hits = source.search(req.search.replace(query=query or req.query, limit=limit, kinds=kinds))
    s, o = source.settings, req.options
    floor = s.min_relevance if o.min_relevance is None else o.min_relevance
    expected = (
        s.min_expected_evidence if o.min_expected_evidence is None else o.min_expected_evidence
    )
    return above_floor(hits, floor, expected)


#: How many of the best hits :func:`expected_evidence` adds up.
EXPECTED_TOP = 5


def expected_evidence(hits: Sequence[Hit]) -> float | None:
    """E = the sum of the calibrated relevances of the first :data:`EXPECTED_TOP` hits: the
    expected number of evidence hits among them (None when none of them is calibrated)."""
    values = [h.relevance for h in hits[:EXPECTED_TOP] if h.calibrated and h.relevance is not None]
    return float(sum(values)) if values else None


#: The expected evidence at and above which the item floor is ``min_relevance`` itself.
SURE = 0.5


def above_floor(hits: Sequence[Hit], floor: float, expected: float = 0.0) -> list[Hit]:
    """The hits worth injecting, in their order.

    With E = :func:`expected_evidence` (the history's expected evidence among the best five
    hits): none when E < ``expected``; else those whose relevance r is at least
    ``floor`` * max(1, :data:`SURE` / max(E, ``expected``)). Once the best five are expected
    to hold half an evidence hit, an item needs ``floor``; below that the bar rises as the
    history has less to say about the query (twice ``floor`` at E = .25). A hit whose
    relevance is not calibrated (``hit.calibrated`` False: no probability to hold to a floor)
    counts as relevant, and without any calibrated hit there is no floor; 0 turns each floor
    off."""
    mass = expected_evidence(hits)
    if mass is None:
        return list(hits)
    if expected > 0 and mass < expected:
        return []
    if floor <= 0:
        return list(hits)
    bar = floor * max(1.0, SURE / max(mass, expected, 1e-12))
    return [h for h in hits if not (h.calibrated and h.relevance is not None and h.relevance < bar)]


def hit_item(hit: Hit, chars: int | None = None, terms: Sequence[str] | None = None) -> ContextItem:
    """A search hit as a context item, its content clipped to ``chars``; with the query's
    ``terms``, a longer text is cut to the sentences they are about
    (:func:`mnemo.text.extractive.excerpt`)."""
    if terms is not None and chars is not None:
        content = excerpt(hit.content, terms, chars)
    else:
        content = clip(hit.content, chars)
    return ContextItem(
        id=hit.id,
        kind=hit.kind,
        content=content,
        role=hit.role,
        name=hit.name,
        score=round(hit.score, 4),
        created_at=hit.created_at,
        session_id=hit.session_id,
        metadata=hit.metadata,
        relevance=hit.relevance,
        calibrated=hit.calibrated,
    )


def profile_items(source: ContextSource, limit: int | None = None) -> list[ContextItem]:
    """Stage 1: the user's active profile facts with importance >=
    ``settings.profile_context_min_importance`` (default 0.5), most important first."""
    floor = source.settings.profile_context_min_importance
    facts = sorted(source.profile(min_importance=floor), key=lambda f: -f.importance)
    return [
        ContextItem(
            id=getattr(f, "id", None),
            kind="profile",
            content=f"{f.key}: {f.value}",
            score=f.importance,
            created_at=f.created_at,
            updated_at=f.updated_at,
            metadata={"category": f.category, "key": f.key, "value": f.value,
                      "confidence": f.confidence, "importance": f.importance},
        )
        for f in facts[:limit]
    ]  # fmt: skip


def memory_items(
    source: ContextSource,
    kind: str | None,
    limit: int,
    chars: int | None = None,
) -> list[ContextItem]:
    """The newest ``limit`` live memories of a kind (any kind when None)."""
    return [
        ContextItem(
            id=m.id,
            kind=m.kind,
            content=clip(m.content, chars),
            created_at=m.created_at,
            updated_at=m.updated_at,
            session_id=m.session_id,
            metadata=m.metadata,
        )
        for m in source.memories(kind=kind, limit=limit)
    ]


def turn_items(
    source: ContextSource,
    session_id: str | None,
    limit: int,
    chars: int | None = None,
) -> list[ContextItem]:
    """The last ``limit`` turns (of a session, or of the user), in conversation order."""
    turns = reversed(source.recent_turns(session_id, limit))
    return [turn_item(t, chars) for t in turns]


def turn_item(turn: Message, chars: int | None = None) -> ContextItem:
    """A turn as a context item, its content clipped to ``chars``."""
    return ContextItem(
        id=turn.id,
        kind="message",
        content=clip(turn.content, chars),
        role=turn.role,
        name=turn.name,
        created_at=turn.created_at,
        session_id=turn.session_id,
        metadata=turn.metadata,
    )


def section(name: str, title: str, items: list[ContextItem]) -> ContextSection:
    """A named, titled section of items."""
    return ContextSection(name=name, title=title, items=items)
