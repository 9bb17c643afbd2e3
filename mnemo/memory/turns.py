"""Writing turns: validated, embedded (with their keys) and stored with their follow-up jobs
in one transaction."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from mnemo import validation as check
from mnemo.config.settings import Settings
from mnemo.ids import MESSAGE_PREFIX, new_id
from mnemo.index import keys
from mnemo.index.embed import Embedding
from mnemo.schemas import format_time, utcnow
from mnemo.storage.base import NewJob, NewMessage
from mnemo.storage.ports.store import Store

Progress = Callable[[int], None]


def embed_text(content: str, name: str | None = None) -> str:
    """The text embedded for a turn: its content alone.

    The speaker's name stays out of the vector: in a two-person conversation every turn
    carries one of two names, which then swamps the meaning (LoCoMo dev R@10 .734 -> .775 with
    names cut from both sides). Names are matched by the lexical index and the speaker prior.
    """
    del name
    return content


#: The time between an undated turn and its dated neighbour in one batch.
TIME_STEP = timedelta(seconds=1)


def fill_times(
    times: Sequence[datetime | None], now: datetime, step: timedelta = TIME_STEP
) -> list[datetime]:
    """The time of every turn of a batch: its own, else its neighbour's plus a small step.

    An undated turn after a dated one takes the previous turn's time + ``step``; undated turns
    before the first dated one count back from it (its time - k x ``step``). A batch with no
    dated turn is stamped ``now``. So a reply sent without a time stays next to the dated
    question it answers instead of jumping to the present.
    """
    first = next((i for i, t in enumerate(times) if t is not None), None)
    if first is None:
        return [now] * len(times)
    anchor = times[first]
    assert anchor is not None
    out = [anchor - (first - i) * step for i in range(first)]
    for t in times[first:]:
        out.append(t if t is not None else out[-1] + step)
    return out


def followups(rows: Sequence[NewMessage], kinds: Sequence[str], tenant: str) -> list[NewJob]:
    """Jobs enqueued with a batch of turns: one per job kind starting with ``turns.``."""
    turn_kinds = [k for k in kinds if k.startswith("turns.")]
    if not turn_kinds or not rows:
        return []
    payload = {
        "message_ids": [r.id for r in rows],
        "user_id": rows[0].user_id,
        "session_id": rows[0].session_id,
        "tenant": tenant,
    }
    return [
        NewJob(kind=k, payload=payload, tenant=tenant, user_id=rows[0].user_id) for k in turn_kinds
    ]


class TurnWriter:
    """Stores one tenant's turns; ``handlers`` (the job handler map, read at each write) says
    which follow-up jobs a batch enqueues."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        embed: Embedding,
        handlers: Mapping[str, Any],
    ) -> None:
        self.store = store
        self.settings = settings
        self.tenant = settings.tenant
        self.embed = embed
        self.handlers = handlers

    def add_messages(
        self,
        messages: Sequence[dict[str, Any]],
        user_id: str,
        session_id: str = "default",
        progress: Progress | None = None,
    ) -> list[str]:
        """Store turns with their embeddings in one transaction; returns their ids.

        Each turn is ``{"role", "content", "name"?, "created_at"?, "metadata"?}``; a turn
        without ``created_at`` takes its dated neighbour's time plus a second (see
        :func:`fill_times`), or now when no turn of the batch is dated. A turn is
        searchable as soon as this returns. Invalid input raises ValidationError and writes
        nothing.
        """
        user_id = check.identifier(user_id, "user_id")
        session_id = check.identifier(session_id, "session_id")
        turns = check.messages(messages, self.settings.max_content_chars)
        texts = [embed_text(t.content, t.name) for t in turns]
        hashes, vectors = self.embed(texts, progress)
        key_vectors = keys.embed_keys(
            self.embed.embedder,
            self.store,
            [(t.role, t.content) for t in turns],
            hashes,
            keys.KeySpec.from_settings(self.settings),
        )
        times = fill_times([t.created_at for t in turns], utcnow())
        rows = [
            NewMessage(
                id=new_id(MESSAGE_PREFIX),
                tenant=self.tenant,
                user_id=user_id,
                session_id=session_id,
                role=t.role,
                name=t.name,
                content=t.content,
                created_at=format_time(at),
                metadata=t.metadata,
                content_hash=h,
                embedder=self.embed.id,
                embedding=v,
                key_vectors=kv,
            )
            for t, at, h, v, kv in zip(turns, times, hashes, vectors, key_vectors, strict=True)
        ]
        stored = self.store.add_messages(rows, followups(rows, list(self.handlers), self.tenant))
        return [m.id for m in stored]
