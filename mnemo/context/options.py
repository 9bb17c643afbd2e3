"""How one context call lays out its block, besides its search: :class:`ContextOptions`.

The search of a context call (its text, user or agent, session, ``as_of``, ``now``, filter,
recency weight, threshold and the texts left out) is a
:class:`~mnemo.search_query.SearchQuery`, held by the context source; these are the rest.
The bounds of ``budget_tokens`` and ``top_k`` are written once here, for the library, REST and
MCP alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from mnemo import validation as check
from mnemo.context.tokens import TokenCounter
from mnemo.errors import ValidationError
from mnemo.search_query import MAX_LIMIT

#: The smallest and largest token budget of a context block.
MIN_BUDGET, MAX_BUDGET = 50, 1_000_000

BudgetTokens = Annotated[
    int,
    Field(
        ge=MIN_BUDGET,
        le=MAX_BUDGET,
        description=f"Token budget of the block, {MIN_BUDGET}-{MAX_BUDGET}.",
    ),
]
TopK = Annotated[
    int,
    Field(
        ge=0,
        le=MAX_LIMIT,
        description="Hits each search of the layout takes (default: the layout's own number).",
    ),
]


@dataclass(frozen=True)
class ContextOptions:
    """A context call's layout options, checked when made (ValidationError).

    ``budget_tokens`` bounds the block; ``location`` is `llmplatform`'s location section;
    ``include_history`` adds the conversation's recent turns where the layout has them;
    ``top_k`` overrides the number of hits of the layout's searches; ``min_relevance`` and
    ``min_expected_evidence`` override the settings of those names for this call (the floors
    of :func:`mnemo.context.items.above_floor`: nothing is injected when the best five hits'
    relevances add up to less than the second, and no hit whose relevance is below the
    first, raised when that sum is small); ``counter`` counts tokens (default: the
    embedder's).
    """

    budget_tokens: int = 1500
    location: str | None = None
    include_history: bool = True
    top_k: int | None = None
    min_relevance: float | None = None
    min_expected_evidence: float | None = None
    counter: TokenCounter | None = None

    def __post_init__(self) -> None:
        budget = self.budget_tokens
        if (
            isinstance(budget, bool)
            or not isinstance(budget, int)
            or not (MIN_BUDGET <= budget <= MAX_BUDGET)
        ):
            raise ValidationError(
                f"budget_tokens must be an integer in [{MIN_BUDGET}, {MAX_BUDGET}]"
            )
        top_k = self.top_k
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int)):
            raise ValidationError("top_k must be an integer")
        if self.location is not None:
            check.text(self.location, "location")
        for name in ("min_relevance", "min_expected_evidence"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, check.unit_float(value, name))


__all__ = ["MAX_BUDGET", "MIN_BUDGET", "BudgetTokens", "ContextOptions", "TopK"]
