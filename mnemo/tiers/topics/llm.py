"""LLM topic summaries: a ``topics.summary`` job rewrites a compaction's rule-based summary.

Compaction never waits for the LLM: it writes an extractive summary in its own transaction and,
when an LLM is configured, enqueues this job in that same transaction. The job asks the model
for the previous summary updated with the archived messages and stores it only if the topic has
not been compacted, restored or re-summarised since (else it is stale and does nothing, so
running it twice changes nothing). A transient LLM failure or unusable output keeps the rules
summary and records why in the topic's metadata (``summary_fallback``).
"""

from __future__ import annotations

import logging
from typing import Any

from mnemo.errors import LLMOutputError, LLMTransientError
from mnemo.llm import ChatModel, Usage, render_prompt
from mnemo.storage.ports.topics import TopicLoad
from mnemo.storage.ports.unions import TopicTierStore
from mnemo.storage.topic_records import Conversation, TopicEntry

log = logging.getLogger("mnemo.topics")

SUMMARY_JOB = "topics.summary"
MAX_PROMPT_CHARS = 12_000


def summary_payload(
    topic_id: str, version: int, rules: str, previous: str | None, entries: list[TopicEntry]
) -> dict[str, Any]:
    """The job payload of one compaction (message ids, not contents: rows are the truth)."""
    return {
        "topic_id": topic_id,
        "version": version,
        "rules_summary": rules,
        "previous": previous,
        "message_ids": [e.message_id for e in entries if e.message_id][-200:],
    }


def summary_prompt(previous: str | None, lines: list[str]) -> str:
    """The ``topic_summary`` prompt, keeping the newest lines within ``MAX_PROMPT_CHARS``."""
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        size += len(line) + 1
        if size > MAX_PROMPT_CHARS and kept:
            break
        kept.append(line)
    return render_prompt(
        "topic_summary", previous_summary=previous or "(none)", messages="\n".join(reversed(kept))
    )


class TopicSummaries:
    """Runs ``topics.summary`` jobs against a chat model (or records that none is set)."""

    def __init__(self, store: TopicTierStore, tenant: str, chat: ChatModel | None) -> None:
        self.store, self.tenant, self.chat = store, tenant, chat

    def handle(self, payload: dict[str, Any]) -> Usage:
        """Rewrite one compaction's summary with the LLM; returns the tokens it used."""
        row = self.store.topics.get_topic(self.tenant, str(payload["topic_id"]))
        if row is None or not self._current(row.compressed_count, row.summary, payload):
            return Usage()
        chat = self.chat
        if chat is None:
            self._record(row.user_id, row.session_id, payload, None, "no LLM configured")
            return Usage()
        lines = []
        for mid in payload["message_ids"]:
            msg = self.store.rows.get_message(self.tenant, str(mid))
            if msg is not None:
                lines.append(f"{msg.role}: {msg.content}")
        prompt = summary_prompt(payload.get("previous"), lines)
        try:
            result = chat.complete([{"role": "user", "content": prompt}], max_tokens=400)
        except (LLMTransientError, LLMOutputError) as exc:
            log.warning("topic summary of %s fell back to rules: %s", row.id, exc)
            self._record(row.user_id, row.session_id, payload, None, f"{type(exc).__name__}")
            return Usage()
        text = result.text.strip()
        if not text:
            self._record(row.user_id, row.session_id, payload, None, "empty LLM answer")
        else:
            self._record(row.user_id, row.session_id, payload, text, None)
        return result.usage

    @staticmethod
    def _current(version: int, summary: str | None, payload: dict[str, Any]) -> bool:
        return bool(version == payload["version"] and summary == payload["rules_summary"])

    def _record(
        self,
        user_id: str,
        session_id: str,
        payload: dict[str, Any],
        text: str | None,
        fallback: str | None,
    ) -> None:
        tid = str(payload["topic_id"])

        def change(conv: Conversation) -> None:
            t = conv.topics.get(tid)
            if t is None or not self._current(t.compressed_count, t.summary, payload):
                return
            if text is not None:
                t.summary, t.summary_actor = text, "llm"
                t.metadata.pop("summary_fallback", None)
            else:
                t.metadata = {**t.metadata, "summary_fallback": f"rules: {fallback}"}
            conv.touch(t)

        load = TopicLoad(self.tenant, user_id, session_id, also=tid)
        self.store.topics.apply_topics(load, change)


__all__ = ["SUMMARY_JOB", "TopicSummaries", "summary_payload", "summary_prompt"]
