"""The search page: a user's memories and turns for a query, with every stage's score.

Each hit shows what ``Memory.search(..., explain=True)`` returns in ``hit.scores``: the
lexical (BM25) and dense (cosine) scores and ranks, their fusion (``fused``), the
context priors that moved it, the ``recency`` term, and
``final = (1 - w) * fused + w * recency`` with ``w`` the recency weight; and first the hit's
``relevance``, the one number to read (see docs/scores.md).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from mnemo.schemas import Hit
from mnemo.search_query import MAX_LIMIT, SearchQuery
from mnemo.ui.deps import ViewerDep
from mnemo.ui.render import page

router = APIRouter(include_in_schema=False)
#: Score columns in pipeline order: the candidate scores (each cell also shows the hit's rank
#: in that list, ``<name>_rank``), then any prior a hit carries (``speaker_prior``,
#: ``date_prior``...), then the stages after them.
CANDIDATES = ("lexical", "dense")
LATER = ("rerank", "fused", "recency", "final")
Text = Annotated[str, Query(max_length=10_000)]


def stage_columns(hits: list[Hit]) -> list[str]:
    """The score names the hits carry, in pipeline order (priors by name)."""
    present = {name for h in hits for name in h.scores}
    ranks = {f"{c}_rank" for c in CANDIDATES}
    priors = sorted(present - set(CANDIDATES) - set(LATER) - ranks)
    return [
        *(c for c in CANDIDATES if c in present),
        *priors,
        *(c for c in LATER if c in present),
    ]


@router.get("/search")
def search_page(
    request: Request,
    who: ViewerDep,
    q: Text = "",
    user_id: Annotated[str, Query(max_length=256)] = "",
    session_id: Annotated[str, Query(max_length=256)] = "",
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 10,
    as_of: Annotated[str, Query(max_length=64)] = "",
) -> Response:
    """The search form, and with a query and a user, the hits and their scores; with
    ``as_of``, as they were known at that time (a bad or future time: a 422 page)."""
    mem = who.memory
    hits: list[Hit] = []
    searched = bool(q.strip() and user_id)
    if searched:
        query = SearchQuery.of(
            q, user_id=user_id, session_id=session_id or None, limit=limit, explain=True,
            as_of=as_of or None,
        )  # fmt: skip
        hits = mem.search(query)
    return page(
        request,
        "search.html",
        who,
        q=q,
        user_id=user_id,
        session_id=session_id,
        limit=limit,
        as_of=as_of,
        hits=hits,
        columns=stage_columns(hits),
        searched=searched,
        missing_user=bool(q.strip()) and not user_id,
        users=[u.user_id for u in mem.users(limit=200)],
        recency_weight=mem.settings.recency_weight,
        tau_days=mem.settings.recency_tau_days,
    )


__all__ = ["CANDIDATES", "LATER", "router", "stage_columns"]
