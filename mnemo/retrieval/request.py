"""What a search asks for: the validated request, and the scopes it looks in."""

from __future__ import annotations

from dataclasses import dataclass

from mnemo.filters.nodes import Filter
from mnemo.storage.agent_scope import AgentView


@dataclass(frozen=True)
class Scope:
    """Where to look: one user, optionally one session of theirs."""

    user_id: str
    session_id: str | None = None


@dataclass
class RetrievalRequest:
    """A validated query.

    ``recency_weight`` and ``score_threshold``, when set, override the settings of the same
    name for this one search (a per-call option of context assembly). ``now`` is the reference
    time of recency and relative dates (None: the user's newest turn, else the clock);
    ``exclude`` holds the text keys (``retrieval.duplicates.text_key``) of the request's own
    turns, which are left out of the hits; ``as_of``, when set, is the time the search answers
    as of (:mod:`mnemo.retrieval.asof`). ``agents`` narrows every scope to the rows that
    agent view sees (None: every row; see :mod:`mnemo.storage.agent_scope`). ``filter``, when
    set, is the parsed filter (:mod:`mnemo.filters`) every candidate must match, applied by
    the store before each retriever takes its top k.
    """

    query: str
    tenant: str
    user_id: str
    session_id: str | None
    limit: int
    kinds: tuple[str, ...] | None
    now: float | None = None
    recency_weight: float | None = None
    score_threshold: float | None = None
    exclude: frozenset[str] = frozenset()
    #: answer as of this time (epoch seconds, and its stored form): see retrieval.asof
    as_of: float | None = None
    as_of_text: str | None = None
    agents: AgentView | None = None
    filter: Filter | None = None


__all__ = ["RetrievalRequest", "Scope"]
