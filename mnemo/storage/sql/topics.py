"""Topic memory in SQL (``store.topics``): load a conversation's topics, let the tier change
them, write back; the port (:class:`~mnemo.storage.ports.topics.TopicStore`) documents every
method.

The statements are shared by both stores; a conversation loaded for writing is loaded under
its user's write lock (:func:`~mnemo.storage.sql.user_lock.lock_user`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields
from datetime import UTC, datetime
from typing import Any, TypeVar

import numpy as np

from mnemo.schemas import format_time, parse_time
from mnemo.storage.ports.topics import TopicLoad, TopicStore
from mnemo.storage.sql.role import SQLRole
from mnemo.storage.sql.transactional import auto
from mnemo.storage.sql.tx import Row, Tx
from mnemo.storage.sql.user_lock import lock_user
from mnemo.storage.topic_records import Conversation, PendingTurn, TopicEntry, TopicRow

T = TypeVar("T")

_WORKING = "evicted_at IS NULL AND merged_into IS NULL"


def _text(epoch: float | None) -> str | None:
    return None if epoch is None else format_time(datetime.fromtimestamp(epoch, UTC))


def _epoch(text: str | None) -> float | None:
    return None if text is None else parse_time(text).timestamp()


def _vector(blob: bytes | None) -> np.ndarray | None:
    return None if blob is None else np.frombuffer(blob, dtype=np.float32).copy()


def _blob(vector: np.ndarray | None) -> bytes | None:
    return None if vector is None else np.asarray(vector, np.float32).tobytes()


#: The columns of ``topics``: a TopicRow's fields but the messages loaded with it.
COLUMNS = tuple(f.name for f in fields(TopicRow) if f.name not in ("messages", "compacted"))


def _kept(value: Any) -> Any:
    return value


#: How a column is read into a TopicRow and written from one: (read, written); those not
#: named here are stored as the TopicRow holds them.
CONVERTED: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "session_id": (lambda v: v or "", _kept),
    "created_at": (_epoch, _text),
    "last_active_at": (_epoch, _text),
    "evicted_at": (_epoch, _text),
    "embedding": (_vector, _blob),
    "metadata": (json.loads, json.dumps),
}
_AS_HELD = (_kept, _kept)


def topic_row(r: Row) -> TopicRow:
    """A TopicRow (without messages) from a ``topics`` row."""
    return TopicRow(**{col: CONVERTED.get(col, _AS_HELD)[0](r[col]) for col in COLUMNS})


def _entries(c: Tx, topic_id: str, compacted: bool) -> list[TopicEntry]:
    """A topic's active (or compacted) messages in time order."""
    q = c.dialect.mark
    cur = c.execute(
        "SELECT m.role, m.content, tm.at, m.id, tm.seq FROM topic_messages tm"
        f" JOIN messages m ON m.id = tm.message_id WHERE tm.topic_id={q} AND tm.compacted={q}"
        " ORDER BY tm.at, tm.seq",
        (topic_id, int(compacted)),
    )
    return [TopicEntry(r[0], r[1], r[2], r[3], r[4]) for r in cur]


class SQLTopics(SQLRole, TopicStore):
    """:class:`~mnemo.storage.ports.topics.TopicStore` over the store's core."""

    def apply_topics(self, load: TopicLoad, fn: Callable[[Conversation], T]) -> T:
        if not load.write:
            with self.core.tx.read() as c:
                return fn(self._conversation(c, load))
        with self.core.tx.write() as c:
            lock_user(c, load.tenant, load.user_id)
            conv = self._conversation(c, load)
            result = fn(conv)
            self._save(c, conv)
        return result

    @auto
    def list_topics(
        self, c: Tx, tenant: str, user_id: str, session_id: str | None, include_inactive: bool
    ) -> list[TopicRow]:
        q = c.dialect.mark
        sql = f"SELECT * FROM topics WHERE tenant={q} AND user_id={q}"
        args = [tenant, user_id]
        if session_id is not None:
            sql += f" AND session_id={q}"
            args.append(session_id)
        if not include_inactive:
            sql += f" AND {_WORKING}"
        cur = c.execute(sql + " ORDER BY last_active_at DESC, rowid DESC", args)
        return [topic_row(r) for r in cur]

    @auto
    def get_topic(self, c: Tx, tenant: str, topic_id: str) -> TopicRow | None:
        q = c.dialect.mark
        sql = f"SELECT * FROM topics WHERE tenant={q} AND id={q}"
        r = c.execute(sql, (tenant, topic_id)).fetchone()
        return None if r is None else topic_row(r)

    # ---- loading ---------------------------------------------------------------------------
    def _conversation(self, c: Tx, load: TopicLoad) -> Conversation:
        """The conversation of ``load``, with its pending turns when it is loaded to write."""
        scope = tenant, user_id, session_id = load.tenant, load.user_id, load.session_id
        q = c.dialect.mark
        cur = c.execute(
            "SELECT active_topic_id, applied_seq FROM topic_conversations"
            f" WHERE tenant={q} AND user_id={q} AND session_id={q}",
            scope,
        ).fetchone()
        topics = {
            r["id"]: topic_row(r)
            for r in c.execute(
                f"SELECT * FROM topics WHERE tenant={q} AND user_id={q} AND session_id={q}"
                f" AND ({_WORKING} OR id={q}) ORDER BY rowid",
                (*scope, load.also),
            )
        }
        self._load_members(c, topics)
        conv = Conversation(
            tenant, user_id, session_id, cur[0] if cur else None, cur[1] if cur else 0, topics
        )
        conv.loader = lambda tid: _entries(c, tid, compacted=True)
        if load.write:
            conv.pending = self._pending(c, conv)
        return conv

    @staticmethod
    def _load_members(c: Tx, topics: dict[str, TopicRow]) -> None:
        for tid, topic in topics.items():
            topic.messages = _entries(c, tid, compacted=False)

    @staticmethod
    def _pending(c: Tx, conv: Conversation) -> list[PendingTurn]:
        q = c.dialect.mark
        cur = c.execute(
            "SELECT id, seq, role, content, created_at, embedder, embedding, metadata FROM messages"
            f" WHERE tenant={q} AND user_id={q} AND session_id={q} AND seq>{q} ORDER BY seq",
            (conv.tenant, conv.user_id, conv.session_id, conv.applied_seq),
        )
        return [
            PendingTurn(
                message_id=r[0],
                seq=r[1],
                role=r[2],
                content=r[3],
                timestamp=parse_time(r[4]).timestamp(),
                embedder=r[5],
                embedding=None if r[6] is None else np.frombuffer(r[6], dtype=np.float32),
                metadata=json.loads(r[7]),
            )
            for r in cur
        ]

    # ---- saving ----------------------------------------------------------------------------
    def _save(self, c: Tx, conv: Conversation) -> None:
        d = c.dialect
        q = d.mark
        for tid in sorted(conv.dirty):
            self._upsert_topic(c, conv.topics[tid])
        for loser, survivor in conv.moved.items():
            c.execute(
                f"UPDATE topic_messages SET topic_id={q} WHERE topic_id={q}", (survivor, loser)
            )
            c.execute(f"UPDATE messages SET topic_id={q} WHERE topic_id={q}", (survivor, loser))
        c.executemany(
            "INSERT INTO topic_messages (message_id, topic_id, tenant, user_id, at, seq, compacted)"
            f" VALUES ({d.marks(7)}) ON CONFLICT (message_id) DO UPDATE"
            " SET topic_id=excluded.topic_id, compacted=excluded.compacted",
            [
                (mid, tid, conv.tenant, conv.user_id, at, seq, int(done))
                for mid, (tid, done, at, seq) in conv.links.items()
            ],
        )
        c.executemany(
            f"UPDATE messages SET topic_id={q} WHERE id={q}",
            [(tid, mid) for mid, (tid, *_rest) in conv.links.items()],
        )
        now = self.core.now()
        c.executemany(
            "INSERT INTO jobs (tenant, user_id, kind, payload, run_after, created_at, updated_at)"
            f" VALUES ({d.marks(7)})",
            [(conv.tenant, conv.user_id, k, json.dumps(p), now, now, now) for k, p in conv.jobs],
        )
        c.execute(
            "INSERT INTO topic_conversations (tenant, user_id, session_id, active_topic_id,"
            f" applied_seq) VALUES ({d.marks(5)}) ON CONFLICT (tenant, user_id, session_id)"
            " DO UPDATE SET active_topic_id=excluded.active_topic_id,"
            " applied_seq=excluded.applied_seq",
            (conv.tenant, conv.user_id, conv.session_id, conv.active_topic_id, conv.applied_seq),
        )

    @staticmethod
    def _upsert_topic(c: Tx, t: TopicRow) -> None:
        values = [CONVERTED.get(col, _AS_HELD)[1](getattr(t, col)) for col in COLUMNS]
        updates = ", ".join(f"{k}=excluded.{k}" for k in COLUMNS if k != "id")
        c.execute(
            f"INSERT INTO topics ({', '.join(COLUMNS)}) VALUES ({c.dialect.marks(len(COLUMNS))})"
            f" ON CONFLICT (id) DO UPDATE SET {updates}",
            values,
        )


__all__ = ["SQLTopics", "topic_row"]
