"""Eviction (`agent-cli`): at most ``max_entries`` turns and facts per conversation in the
working set.

When a conversation holds more, the oldest turns and facts (by ``created_at``) leave the
working set until ``max_entries`` remain: a turn is flagged ``evicted_at`` and leaves search
but stays in the event log (``Memory.messages``, ``Memory.get``); a fact is soft-deleted with
a DELETE in its history. Summaries and episodes are exempt, as in the seed. Running the job
twice changes nothing.
"""

from __future__ import annotations

from typing import Any

from mnemo.storage.ports.conversation import Eviction
from mnemo.tiers.conversation.base import TierContext

EVICTED_KINDS = ("fact",)


def run(ctx: TierContext, payload: dict[str, Any]) -> dict[str, int]:
    """Job ``turns.evict``: evict the conversation's overflow; returns how many left."""
    limit = ctx.settings.max_entries
    if limit is None:
        return {"evicted": 0}
    n = ctx.store.conversation.evict_oldest(
        Eviction(
            ctx.tenant, payload["user_id"], payload["session_id"], limit, EVICTED_KINDS, "rules"
        )
    )
    return {"evicted": n}


__all__ = ["EVICTED_KINDS", "run"]
