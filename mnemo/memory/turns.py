"""Writing turns: validated, embedded (with their keys), read by the turn rules (kind and name
cues, see mnemo.text.turn_rules) and stored with their follow-up jobs in one transaction."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from mnemo import validation as check
from mnemo.config.settings import Settings
from mnemo.errors import StorageError, ValidationError
from mnemo.ids import MESSAGE_PREFIX, new_id
from mnemo.index import keys
from mnemo.index.embed import Embedding
from mnemo.memory.expiry import Expiry, resolve
from mnemo.memory.idempotency import Keys
from mnemo.memory.tenant import TenantService
from mnemo.schemas import MessageIn, fill_times, format_time, utcnow
from mnemo.storage.agent_scope import write_scope
from mnemo.storage.base import NewJob, NewMessage
from mnemo.storage.ports.store import Store
from mnemo.text import turn_rules

Progress = Callable[[int], None]
#: A validated batch: user id, session id, its turns, the ids chosen for them (or None) and
#: the agent they are private to (or None: shared).
Checked = tuple[str, str, list[MessageIn], list[str] | None, str | None]


def embed_text(content: str, name: str | None = None) -> str:
    """The text embedded for a turn: its content alone.

    The speaker's name stays out of the vector: in a two-person conversation every turn
    carries one of two names, which then swamps the meaning (LoCoMo dev R@10 .734 -> .775 with
    names cut from both sides). Names are matched by the lexical index and the speaker prior.
    """
    del name
    return content


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


@dataclass(frozen=True)
class TurnBatch:
    """One session's turns for :meth:`TurnWriter.add_batches` (items as in ``add_messages``)."""

    messages: Sequence[dict[str, Any]]
    user_id: str | None
    session_id: str = "default"
    #: the agent the turns are private to (None: shared; see mnemo.storage.agent_scope)
    agent_id: str | None = None


class TurnWriter(TenantService):
    """Stores one tenant's turns; ``handlers`` (the job handler map, read at each write) says
    which follow-up jobs a batch enqueues."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        embed: Embedding,
        handlers: Mapping[str, Any],
    ) -> None:
        super().__init__(store, settings, embed)
        self.handlers = handlers

    def add_messages(
        self,
        messages: Sequence[dict[str, Any]],
        user_id: str | None = None,
        session_id: str = "default",
        progress: Progress | None = None,
        *,
        ids: Sequence[str] | None = None,
        idempotency_key: str | None = None,
        expires_at: Any = None,
        ttl_seconds: int | None = None,
        agent_id: str | None = None,
    ) -> list[str]:
        """Store turns with their embeddings in one transaction; returns their ids.

        Each turn is ``{"role", "content", "name"?, "created_at"?, "metadata"?}``; a turn
        without ``created_at`` takes its dated neighbour's time plus a second (see
        :func:`fill_times`), or now when no turn of the batch is dated. A turn is
        searchable as soon as this returns. Invalid input raises ValidationError and writes
        nothing. ``ids`` (one ``msg_...`` per turn) stores the turns under ids the caller
        chose, e.g. ids derived from an import file, so a re-run can tell which turns are in
        already; an id that is already stored makes the whole call fail (StorageError).

        With ``idempotency_key``, a retry of the same call within ``idempotency_ttl_s``
        writes nothing and returns the first call's ids; the same key with other turns is a
        ValidationError (see :mod:`mnemo.memory.idempotency`).

        ``expires_at`` (a time) or ``ttl_seconds`` (from now) makes the turns expire (out of
        every read from then on, removed by ``sweep``); a turn's own ``expires_at`` or
        ``ttl_seconds`` key wins over them; with none, ``default_ttl_seconds`` applies (see
        :mod:`mnemo.memory.expiry`).

        ``agent_id`` makes the turns private to that agent (within ``user_id``; without a
        user, the agent's own); what the tiers derive from them is private to it too (see
        :mod:`mnemo.storage.agent_scope`).
        """
        user_id, agent_id = write_scope(user_id, agent_id)
        session_id = check.identifier(session_id, "session_id")
        s = self.settings
        turns = check.messages(messages, s.max_content_chars, s.max_metadata_bytes)
        call = resolve(expires_at, ttl_seconds, self.store.clock(), s.default_ttl_seconds)
        chosen = _chosen_ids(ids, len(turns))
        if idempotency_key is not None:
            if chosen is not None:
                raise ValidationError("give ids or idempotency_key, not both")
            request = {
                "op": "add_messages",
                "user_id": user_id,
                "session_id": session_id,
                "turns": [t.model_dump(mode="json") for t in turns],
                **({} if expires_at is None else {"expires_at": call.expires_at}),
                **({} if ttl_seconds is None else {"ttl_seconds": call.ttl_seconds}),
            }
            if agent_id is not None:
                request["agent_id"] = agent_id
            reserved = Keys(self.store.idempotency, self.settings)
            chosen = reserved.reserve(idempotency_key, user_id, request, len(turns), MESSAGE_PREFIX)
            if self.store.rows.get_message(self.tenant, chosen[0]) is not None:
                return chosen  # the first call's turns: nothing is written again
        try:
            checked: list[Checked] = [(user_id, session_id, turns, chosen, agent_id)]
            return self._write(checked, progress, call)[0]
        except StorageError:
            if idempotency_key is None or chosen is None:
                raise
            if self.store.rows.get_message(self.tenant, chosen[0]) is None:
                raise
            return chosen  # a concurrent call with the same key stored them first

    def add_batches(
        self, batches: Sequence[TurnBatch], progress: Progress | None = None
    ) -> list[list[str]]:
        """Store several sessions' turns; returns each batch's ids.

        The turns of all batches are embedded together (one embedder call for the turns, one
        for their keys), so a bulk import of many short sessions fills the embedder's batches;
        then each batch is written in its own transaction, as ``add_messages`` would. Every
        batch is validated before anything is embedded or written.
        """
        s = self.settings
        checked: list[Checked] = []
        for b in batches:
            user_id, agent_id = write_scope(b.user_id, b.agent_id)
            session_id = check.identifier(b.session_id, "session_id")
            turns = check.messages(b.messages, s.max_content_chars, s.max_metadata_bytes)
            checked.append((user_id, session_id, turns, None, agent_id))
        return self._write(checked, progress)

    def _write(
        self, checked: Sequence[Checked], progress: Progress | None, call: Expiry | None = None
    ) -> list[list[str]]:
        """Embed the turns of every validated batch together, then write each batch (under
        its chosen ids, if any) in its own transaction; each turn expires as it says, else
        as ``call`` (else by the default ttl)."""
        turns = [t for _, _, batch_turns, _, _ in checked for t in batch_turns]
        clock, default = self.store.clock(), self.settings.default_ttl_seconds
        call = call or resolve(None, None, clock, default)
        expiries = [
            call
            if t.expires_at is None and t.ttl_seconds is None
            else resolve(t.expires_at, t.ttl_seconds, clock, None, f"messages[{i}].")
            for i, t in enumerate(turns)
        ]
        expiry_of = iter(expiries)
        texts = [embed_text(t.content, t.name) for t in turns]
        hashes, vectors = self.embed(texts, progress)
        key_vectors = keys.embed_keys(
            self.embed.embedder,
            self.store.search,
            self.tenant,
            [(t.role, t.content) for t in turns],
            hashes,
            keys.KeySpec.from_settings(self.settings),
        )
        now = utcnow()
        vectors_of = iter(zip(turns, hashes, vectors, key_vectors, strict=True))
        out: list[list[str]] = []
        for user_id, session_id, batch_turns, chosen, agent_id in checked:
            times = fill_times([t.created_at for t in batch_turns], now)
            rows = [
                NewMessage(
                    id=chosen[i] if chosen else new_id(MESSAGE_PREFIX),
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
                    **vars(next(expiry_of)),
                    agent_id=agent_id,
                    rules=turn_rules.derive(t.role, t.content),
                )
                for i, ((t, h, v, kv), at) in enumerate(
                    zip(islice(vectors_of, len(batch_turns)), times, strict=True)
                )
            ]
            stored = self.store.rows.add_messages(
                rows, followups(rows, list(self.handlers), self.tenant)
            )
            out.append([m.id for m in stored])
        return out


def _chosen_ids(ids: Sequence[str] | None, n: int) -> list[str] | None:
    """Caller-chosen turn ids, checked: one distinct ``msg_`` id per turn."""
    if ids is None:
        return None
    if isinstance(ids, str) or len(ids) != n:
        raise ValidationError(f"ids must be a list of {n} message ids, one per turn")
    out = [check.identifier(i, f"ids[{k}]") for k, i in enumerate(ids)]
    if not all(i.startswith(MESSAGE_PREFIX) for i in out) or len(set(out)) != n:
        raise ValidationError(f"ids must be distinct ids starting with {MESSAGE_PREFIX!r}")
    return out
