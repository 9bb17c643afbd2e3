"""The conversation tiers' job handlers, chosen by the settings (and so by the preset).

============================  ==========================  =================================
job kind                      setting                     seed
============================  ==========================  =================================
``turns.profile``             ``profile_enabled``         003 structured facts
``turns.episodes``            ``episodes_enabled``        003 window compressed to episodes
``turns.summary``             ``session_summary_enabled``  000 summary every 10 pairs
``turns.rolling_summary``     ``rolling_summary_enabled``  002 rolling summary
``turns.evict``               ``max_entries``             002 per-conversation eviction
============================  ==========================  =================================

Kinds starting with ``turns.`` are enqueued with every ``add_messages`` batch, in this order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mnemo.config.settings import Settings
from mnemo.embedders import Embedder
from mnemo.llm import ChatModel, create_chat_model
from mnemo.schemas import Message
from mnemo.storage.ports.unions import ConversationTierStore
from mnemo.tiers.conversation import episodes, eviction, profile, summaries
from mnemo.tiers.conversation.base import TierContext

#: A job handler; it returns its token usage and counts (the job runner may store them).
JobHandler = Callable[[dict[str, Any]], Any]


class ConversationTiers:
    """Profile, episodes, summaries and eviction over one store, with their job handlers.

    ``chat`` defaults to the model the settings configure (None: rules only).
    """

    def __init__(
        self,
        store: ConversationTierStore,
        embedder: Embedder,
        settings: Settings,
        chat: ChatModel | None = None,
    ) -> None:
        self._owns_chat = chat is None
        chat = chat if chat is not None else create_chat_model(settings)
        self.ctx = TierContext(store, embedder, settings, settings.tenant, chat)

    def handlers(self) -> dict[str, JobHandler]:
        """The enabled tiers' handlers by job kind, in the order they should run."""
        s, out = self.ctx.settings, {}
        table: list[tuple[bool, str, Callable[[TierContext, dict[str, Any]], dict[str, int]]]] = [
            (s.profile_enabled, "turns.profile", profile.run),
            (s.episodes_enabled, "turns.episodes", episodes.run),
            (s.session_summary_enabled, "turns.summary", summaries.run_session),
            (s.rolling_summary_enabled, "turns.rolling_summary", summaries.run_rolling),
            (s.max_entries is not None, "turns.evict", eviction.run),
        ]
        for enabled, kind, run in table:
            if enabled:
                out[kind] = self._bind(run)
        return out

    def window(self, user_id: str, session_id: str) -> list[Message]:
        """The session's short-term window (`tiered`): its turns after the last episode."""
        return episodes.window(self.ctx, user_id, session_id)

    def _bind(self, run: Callable[[TierContext, dict[str, Any]], dict[str, int]]) -> JobHandler:
        def handler(payload: dict[str, Any]) -> dict[str, int]:
            return run(self.ctx, payload)

        handler.__name__ = f"{run.__module__}.{run.__name__}"
        return handler

    def close(self) -> None:
        """Close the chat model this object created."""
        close = getattr(self.ctx.chat, "close", None)
        if self._owns_chat and callable(close):
            close()


__all__ = ["ConversationTiers"]
