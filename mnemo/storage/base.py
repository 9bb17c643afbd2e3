"""The records a store exchanges with its callers, dialect-free.

A store holds the data model of DESIGN.md. SQLite (``storage.sqlite``) is the default; a
PostgreSQL store (``storage.postgres``) implements the same ports (``storage.ports``). Rows
cross that boundary as the records below and as the public schemas; SQL never leaves the store.

A *ref* names a searchable row: ``(MESSAGE, rowid)`` or ``(MEMORY, rowid)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from mnemo.schemas import (
    ProfileFact,
)
from mnemo.storage.scope import ReadScope
from mnemo.text.turn_kinds import TurnKind
from mnemo.text.turn_rules import TurnRules

MESSAGE = 0
MEMORY = 1
Ref = tuple[int, int]


@dataclass
class NewMessage:
    """A validated turn ready to be written (the store assigns ``seq``)."""

    id: str
    tenant: str
    user_id: str
    session_id: str
    role: str
    name: str | None
    content: str
    created_at: str
    metadata: dict[str, Any]
    content_hash: str
    embedder: str | None
    embedding: np.ndarray | None
    #: Extra index keys (k, dim) of a long user turn (see mnemo.index.keys); (0, dim) for none,
    #: None when not computed.
    key_vectors: np.ndarray | None = None
    #: when the turn expires (stored time text) and the ttl it was given, if any
    expires_at: str | None = None
    ttl_seconds: int | None = None
    #: The agent the turn is private to (None: shared by the user's agents).
    agent_id: str | None = None
    #: Its kind and name cues (see mnemo.text.turn_rules); None: not computed (the store
    #: computes them when it next opens).
    rules: TurnRules | None = None


@dataclass
class NewMemory:
    """A validated memory ready to be written: the fields of :data:`mnemo.memory_fields.
    FIELDS` an insert takes from the row (``insert="row"``; ``tests/test_memory_fields.py``
    checks they agree), and its embedded content."""

    id: str
    tenant: str
    user_id: str
    session_id: str | None
    kind: str
    content: str
    tags: list[str]
    metadata: dict[str, Any]
    importance: float
    confidence: float
    source_message_ids: list[str]
    created_at: str
    content_hash: str
    embedder: str | None
    embedding: np.ndarray | None
    #: when the memory expires (stored time text) and the ttl it was given, if any
    expires_at: str | None = None
    ttl_seconds: int | None = None
    #: The agent the memory is private to (None: shared by the user's agents).
    agent_id: str | None = None


@dataclass
class NewProfileFact:
    """A validated profile fact candidate; ``observed_*`` place its statement in time."""

    id: str
    tenant: str
    user_id: str
    category: str
    key: str
    value: str
    confidence: float
    importance: float
    source_message_ids: list[str]
    observed_at: str | None = None
    observed_seq: int = 0
    note: dict[str, Any] | None = None  # recorded with the history entry (e.g. a fallback)
    agent_id: str | None = None  # the agent of its source turn (None: shared)


ProfileDecision = Literal["ADD", "UPDATE", "REFRESH", "END", "NONE"]
#: Decides what a candidate does to the current active fact (None when there is none), given
#: the current fact and its observed_seq; see ``mnemo.tiers.conversation.profile.decide`` (and
#: ``decide_end`` for a statement that ends the state: END marks the fact inactive, superseded
#: at the statement's time, with a DELETE in its history, and inserts nothing).
ProfileDecide = Callable[[ProfileFact | None, int], ProfileDecision]


@dataclass
class NewJob:
    """Follow-up work to enqueue in the same transaction as the rows that caused it."""

    kind: str
    payload: dict[str, Any]
    tenant: str = "default"
    user_id: str = ""


@dataclass
class NewDocument:
    """A validated context document and its embedded chunks, ready to be written."""

    id: str
    tenant: str
    user_id: str
    session_id: str | None
    title: str | None
    content: str
    metadata: dict[str, Any]
    created_at: str
    chunks: list[str]
    embedder: str | None
    embeddings: np.ndarray | None  # float32 (len(chunks), dim)


@dataclass
class DocumentChunks:
    """The chunks of a user's documents: texts, the document each belongs to, vectors."""

    texts: list[str]
    document_ids: list[str]
    vectors: np.ndarray  # float32 (n, dim); rows made by another embedder are zero


@dataclass(frozen=True)
class TurnRun:
    """A turn the fact tier has finished with: who decided and what was noted."""

    message_id: str
    actor: str
    note: str | None = None


@dataclass
class FactBatch:
    """What the fact tier decided for some turns, applied in one transaction.

    ``updates`` map a memory id to its changes (as ``update_memory`` takes them); history
    rows carry ``actor`` and ``source_message_ids``. The ``turns`` are recorded as done in the
    same transaction, so a job that is run again skips them; a batch any of whose turns is
    already recorded is not applied at all.
    """

    tenant: str
    user_id: str
    actor: str
    source_message_ids: list[str]
    turns: list[TurnRun]
    adds: list[NewMemory] = field(default_factory=list)
    updates: dict[str, dict[str, Any]] = field(default_factory=dict)
    deletes: list[str] = field(default_factory=list)


@dataclass
class VectorRows:
    """Embedded rows of one user, as loaded for the in-process vector index."""

    tables: np.ndarray  # int8: MESSAGE or MEMORY
    rowids: np.ndarray  # int64
    sessions: list[str | None]
    kinds: list[str]  # "message" or the memory kind
    times: np.ndarray  # float64 epoch seconds of created_at
    vectors: np.ndarray  # float32 (n, dim)
    roles: list[str | None] = field(default_factory=list)  # a message's role; None for memories
    names: list[str | None] = field(default_factory=list)  # a message's speaker name, if any
    #: Extra index keys (see mnemo.index.keys): float32 (k, dim), and the row each belongs to.
    key_vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    key_owners: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: float64 epoch seconds each row expires at (inf: never); empty when no row expires
    expires: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float64))
    #: Each row's agent (None: shared); empty when not loaded (every row shared).
    agents: list[str | None] = field(default_factory=list)
    #: Each turn's stored kind (see mnemo.text.turn_rules; None: a memory, or not made by the
    #: current rules); empty when not loaded.
    turn_kinds: list[TurnKind | None] = field(default_factory=list)


@dataclass(frozen=True)
class MemoryVersion:
    """A memory as it stood at T, when that differs from its live row: its live ``rowid``
    (the ref a search knows it by) and the fields of a search hit."""

    rowid: int
    fields: dict[str, Any]


@dataclass(frozen=True)
class VectorState:
    """What a cached vector index must match to still be valid."""

    generation: int
    max_message_rowid: int
    max_memory_rowid: int


@dataclass(frozen=True)
class Keyset:
    """Where a page cursor resumes a listing: the rows after ``key`` (the sort key of the last
    row of the page before, in the listing's order); ``position`` is how many rows came before
    (the offset the page reports)."""

    key: tuple[Any, ...]
    position: int = 0


@dataclass
class ListFilter:
    """A listing of the rows of ``scope`` (:class:`~mnemo.storage.scope.ReadScope`): with a
    tag (memories), created in [since, until), one window of them (``limit``, ``offset``,
    or the rows after a page cursor's keyset). A listing's scope reads "now" by the store's
    clock unless it names its own ``live_at``."""

    scope: ReadScope
    tag: str | None = None
    since: str | None = None
    until: str | None = None
    #: refresh the expiry of listed rows that carry a ttl (``refresh_on_read``)
    refresh: bool = False
    limit: int = 50
    offset: int = 0
    #: Only the rows after this keyset position (a page cursor's); ``offset`` then counts from it.
    after: Keyset | None = None
