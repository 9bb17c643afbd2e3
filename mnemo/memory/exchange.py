"""One chat exchange, the way the proxy runs it: recall for the request, then store the turn.

The OpenAI-compatible proxy (``mnemo.api.proxy``) and the chat replay of ``mnemo eval``
(``mnemo.eval.replay``) both go through :class:`Exchange`, so what the benchmark measures is
what a live chat gets:

1. :meth:`Exchange.recall`: the context of the request's last user message, with every text
   of the request itself left out of the hits (the model reads them in the request, and a
   question asked again would otherwise recall its own earlier copies first); the history
   sections only when the request carries no conversation of its own;
2. the caller asks its model (an upstream server, or a scripted reply);
3. :meth:`Exchange.store`: the user turn and the reply, in one call and so one transaction and
   one job batch: the fact job of the exchange always sees the reply.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mnemo import validation as check
from mnemo.context.render import last_user_text, message_text
from mnemo.schemas import ContextBundle, Hit

if TYPE_CHECKING:
    from mnemo.memory.facade import Memory

#: The roles whose texts count as the request's own conversation.
TALK_ROLES = ("user", "assistant")


class Exchange:
    """A request's chat ``messages`` for one user and session, its recall and its storage.

    ``top_k``, ``recency_weight`` and ``score_threshold`` are the per-request memory options
    (see ``Memory.context``); ``budget_tokens`` defaults to ``context_budget_tokens``; ``now``
    is the reference time of recency (default: the user's newest turn).
    """

    def __init__(
        self,
        mem: Memory,
        messages: Sequence[dict[str, Any]],
        user_id: str = "default",
        session_id: str = "default",
        *,
        top_k: int | None = None,
        recency_weight: float | None = None,
        score_threshold: float | None = None,
        budget_tokens: int | None = None,
        now: datetime | float | str | None = None,
    ) -> None:
        self.mem = mem
        self.messages = list(messages)
        self.user_id = check.identifier(user_id, "user")
        self.session_id = check.identifier(session_id, "memory_id")
        self.query = last_user_text(self.messages)
        if self.query.strip():  # checked before any upstream is called (and paid for)
            check.content(self.query, mem.settings.max_content_chars, "the last user message")
        self.top_k, self.now = top_k, now
        self.recency_weight, self.score_threshold = recency_weight, score_threshold
        self.budget_tokens = budget_tokens or mem.settings.context_budget_tokens
        self.bundle: ContextBundle | None = None

    @property
    def request_texts(self) -> list[str]:
        """The texts of the request's user and assistant messages (the last one included)."""
        texts = (
            message_text(m.get("content")) for m in self.messages if m.get("role") in TALK_ROLES
        )
        return [t for t in texts if t.strip()]

    def recall(self) -> ContextBundle | None:
        """The context bundle of the last user message (None when it is empty, or when
        ``top_k`` is 0: the request then goes upstream as it came)."""
        if not self.query.strip() or self.top_k == 0:
            return None
        talk = [m for m in self.messages if m.get("role") != "system"]
        self.bundle = self.mem.context(
            self.query,
            self.user_id,
            self.session_id,
            self.budget_tokens,
            include_history=len(talk) <= 1,
            top_k=self.top_k,
            recency_weight=self.recency_weight,
            score_threshold=self.score_threshold,
            exclude=self.request_texts,
            now=self.now,
        )
        return self.bundle

    def search(self, limit: int) -> list[Hit]:
        """The ``limit`` best hits of the search :meth:`recall` runs (same query, scope,
        reference time and left-out texts), for measuring its ranking."""
        return self.mem.search(
            self.query,
            self.user_id,
            limit=limit,
            now=self.now,
            exclude=self.request_texts,
            current_session=self.session_id,  # the conversation answered, as context() has it
        )

    def store(
        self,
        reply: str | None,
        *,
        metadata: dict[str, Any] | None = None,
        incomplete: bool = False,
        at: datetime | float | str | None = None,
    ) -> list[str]:
        """Store the user turn and the reply (if any) in one call; returns their ids. A request
        with no user text (only a system message, or an empty last user message) stores
        nothing: a reply is never kept without the message it answers.

        ``incomplete`` marks a reply cut short (a stream the client left); ``at`` dates the
        user turn (default: now), and the reply follows it by a second. A reply longer than
        ``max_content_chars`` is stored cut to it, marked ``truncated`` with its
        ``original_chars``; a NUL or lone surrogate in the reply (which the model wrote, so it
        is not refused) is stored as U+FFFD, counted in ``replaced_chars``.
        """
        if not self.query.strip():
            return []
        meta = dict(metadata or {})
        turns: list[dict[str, Any]] = [{"role": "user", "content": self.query, "metadata": meta}]
        if reply and reply.strip():
            extra: dict[str, Any] = {"incomplete": True} if incomplete else {}
            reply, replaced = check.replace_unstorable(reply)
            if replaced:
                extra["replaced_chars"] = replaced
            limit = self.mem.settings.max_content_chars
            if len(reply) > limit:
                extra |= {"truncated": True, "original_chars": len(reply)}
                reply = reply[:limit]
            turns.append({"role": "assistant", "content": reply, "metadata": meta | extra})
        if at is not None:
            turns[0]["created_at"] = at
        return self.mem.add_messages(turns, user_id=self.user_id, session_id=self.session_id)

    def hits(self) -> list[dict[str, Any]]:
        """``memory_hits``: what was recalled, in the `agent-cli` shape."""
        if self.bundle is None:
            return []
        return [
            {
                "id": i.id,
                "kind": i.kind,
                "role": i.role,
                "content": i.content,
                "created_at": i.created_at.isoformat() if i.created_at else None,
                "score": i.score,
                "relevance": i.relevance,
                "calibrated": i.calibrated,
            }
            for i in self.bundle.hits()
        ]


__all__ = ["TALK_ROLES", "Exchange"]
