"""Exact cosine search over a user's vectors, held in memory and refreshed incrementally.

The store is the source of truth. An index remembers the :class:`VectorState` it was built
from; before each search it reads the current state (three indexed lookups). New inserts are
appended; any other change (update, delete, re-embed) bumps the user's generation and triggers
a full reload. This is correct across threads and processes sharing one SQLite file.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import numpy as np

from mnemo.index.keys import blend_keys
from mnemo.schemas import parse_time
from mnemo.storage.agent_scope import AgentView
from mnemo.storage.base import VectorRows, VectorState
from mnemo.storage.ports.search import SearchSource, VectorLoad
from mnemo.storage.scope import ReadScope
from mnemo.text.turn_kinds import TURN_KINDS

#: A turn kind's label (its place in TURN_KINDS); -1 for none.
_KIND_LABELS = {k: i for i, k in enumerate(TURN_KINDS)}


@cache
def _blas_controller() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextmanager
def single_blas_thread() -> Iterator[None]:
    """Run BLAS on one thread inside the block.

    A matrix-vector product is bound by memory speed, so extra BLAS threads gain nothing, and
    their busy-waiting afterwards steals the cores the query embedder needs next (measured:
    10k-message search p50 25 ms -> 16 ms, p95 105 ms -> 18 ms on 2 cores).
    """
    with _blas_controller().limit(limits=1, user_api="blas"):
        yield


class VectorIndex:
    """One (tenant, user)'s embedded rows: a growing float32 matrix plus row metadata."""

    def __init__(self) -> None:
        self.state: VectorState | None = None
        self.n = 0
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        self.tables = np.zeros(0, dtype=np.int8)
        self.rowids = np.zeros(0, dtype=np.int64)
        self.session_codes = np.zeros(0, dtype=np.int32)
        self.kind_codes = np.zeros(0, dtype=np.int8)
        self.times = np.zeros(0, dtype=np.float64)
        self.role_codes = np.zeros(0, dtype=np.int8)
        self.name_codes = np.zeros(0, dtype=np.int32)
        #: each row's agent (code 0: shared), see mnemo.storage.agent_scope
        self.agent_codes = np.zeros(0, dtype=np.int32)
        #: each row's turn kind as its place in TURN_KINDS: the kind stored with the turn
        #: (mnemo.text.turn_rules), else -1 until retrieval computes and caches it here (rows
        #: are never edited in place, a change reloads the index)
        self.labels = np.zeros(0, dtype=np.int8)
        #: epoch seconds each row expires at (inf: never), and how many rows do expire: the
        #: expiry mask is built only when some do (see :meth:`mask`)
        self.expires = np.zeros(0, dtype=np.float64)
        self.expiring = 0
        self.session_names: dict[str | None, int] = {}
        self.kind_names: dict[str, int] = {}
        self.role_names: dict[str | None, int] = {None: 0}
        self.speaker_names: dict[str | None, int] = {None: 0}
        self.agent_names: dict[str | None, int] = {None: 0}
        self.pos: dict[tuple[int, int], int] = {}
        # extra keys of long turns (see index.keys) and the row position owning each
        self.k = 0
        self.key_matrix = np.zeros((0, 0), dtype=np.float32)
        self.key_owners = np.zeros(0, dtype=np.int64)
        self.lock = threading.Lock()

    @classmethod
    def of(cls, *batches: VectorRows) -> VectorIndex:
        """A fixed index of ``batches``, in order, that no store state matches (so it is
        never refreshed): the past indexes of :mod:`mnemo.retrieval.asof`."""
        out = cls()
        for rows in batches:
            out._append(rows)
        out.state = VectorState(-2, 0, 0)
        return out

    def refresh(self, store: SearchSource, tenant: str, user_id: str, embedder: str) -> VectorIndex:
        """Bring the index in line with the store and return the index to search.

        New inserts are appended in place (the row count grows last, so a concurrent search
        sees a consistent prefix). A reload (update, delete, re-embed) builds a *new* index and
        returns it: searches already running on this one keep a consistent, older view.
        """
        with self.lock:
            current = store.vector_state(tenant, user_id)
            if current == self.state:
                return self
            if self.state is not None and current.generation != self.state.generation:
                fresh = VectorIndex()
                fresh._append(
                    store.load_vectors(VectorLoad(tenant, user_id, embedder, None, current))
                )
                fresh.state = current
                return fresh
            load = VectorLoad(tenant, user_id, embedder, self.state, current)
            self._append(store.load_vectors(load))
            self.state = current
            return self

    def _append(self, rows: VectorRows) -> None:
        m = len(rows.rowids)
        if m == 0:
            return
        dim = rows.vectors.shape[1]
        if self.n + m > len(self.tables) or self.matrix.shape[1] != dim:
            self._grow(max(2 * (self.n + m), 256), dim)
        sl = slice(self.n, self.n + m)
        self.matrix[sl] = rows.vectors
        self.tables[sl] = rows.tables
        self.rowids[sl] = rows.rowids
        self.times[sl] = rows.times
        kinds = rows.turn_kinds or [None] * m
        self.labels[sl] = [-1 if k is None else _KIND_LABELS[k] for k in kinds]
        self.expires[sl] = rows.expires if len(rows.expires) else np.inf
        self.session_codes[sl] = [
            self.session_names.setdefault(s, len(self.session_names)) for s in rows.sessions
        ]
        self.kind_codes[sl] = [
            self.kind_names.setdefault(k, len(self.kind_names)) for k in rows.kinds
        ]
        roles = rows.roles or [None] * m
        names = rows.names or [None] * m
        self.role_codes[sl] = [self.role_names.setdefault(r, len(self.role_names)) for r in roles]
        self.name_codes[sl] = [
            self.speaker_names.setdefault(n.strip().lower() if n else None, len(self.speaker_names))
            for n in names
        ]
        agents = rows.agents or [None] * m
        self.agent_codes[sl] = [
            self.agent_names.setdefault(a, len(self.agent_names)) for a in agents
        ]
        for i, (t, r) in enumerate(zip(rows.tables.tolist(), rows.rowids.tolist(), strict=True)):
            self.pos[(t, r)] = self.n + i
        self._append_keys(rows, dim)
        self.expiring += int(np.isfinite(rows.expires).sum())
        self.n += m

    def _append_keys(self, rows: VectorRows, dim: int) -> None:
        """Append a batch's keys (before its rows count: a search never sees a key whose
        row it cannot see, see :meth:`search`)."""
        k = len(rows.key_owners)
        if k == 0 or rows.key_vectors.shape[1] != dim:
            return
        if self.k + k > len(self.key_owners) or self.key_matrix.shape[1] != dim:
            capacity = max(2 * (self.k + k), 64)
            matrix = np.zeros((capacity, dim), np.float32)
            owners = np.zeros(capacity, np.int64)
            if self.k and self.key_matrix.shape[1] == dim:
                matrix[: self.k] = self.key_matrix[: self.k]
                owners[: self.k] = self.key_owners[: self.k]
            self.key_matrix, self.key_owners = matrix, owners
        self.key_matrix[self.k : self.k + k] = rows.key_vectors
        self.key_owners[self.k : self.k + k] = rows.key_owners + self.n
        self.k += k

    def _grow(self, capacity: int, dim: int) -> None:
        def grow(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
            out = np.zeros(shape, dtype=a.dtype)
            if self.n and a.shape[1:] == shape[1:]:
                out[: self.n] = a[: self.n]
            return out

        self.matrix = grow(self.matrix, (capacity, dim))
        self.tables = grow(self.tables, (capacity,))
        self.rowids = grow(self.rowids, (capacity,))
        self.session_codes = grow(self.session_codes, (capacity,))
        self.kind_codes = grow(self.kind_codes, (capacity,))
        self.times = grow(self.times, (capacity,))
        self.role_codes = grow(self.role_codes, (capacity,))
        self.name_codes = grow(self.name_codes, (capacity,))
        self.agent_codes = grow(self.agent_codes, (capacity,))
        self.labels = grow(self.labels, (capacity,))
        self.expires = grow(self.expires, (capacity,))

    def mask(self, scope: ReadScope) -> np.ndarray | None:
        """Boolean row mask of the rows of ``scope`` (this index holds one user's live
        rows): its session, its kinds, the rows its agent view sees, and not expired at its
        ``live_at`` (a single integer test when no row expires); None means every row. The
        scope's filter is the store's to apply (its ``matching_rowids``, see :meth:`matching`)."""
        n = self.n  # read once: another thread may append rows meanwhile
        live_at = None if scope.live_at is None else parse_time(scope.live_at).timestamp()
        mask = self.live(n, live_at)
        if scope.session_id is not None:
            code = self.session_names.get(scope.session_id, -1)
            smask = self.session_codes[:n] == code
            mask = smask if mask is None else mask & smask
        if scope.kinds is not None:
            names = self.kind_names  # one dict even if another thread resets the index
            codes = [names[k] for k in scope.kinds if k in names]
            kmask = np.isin(self.kind_codes[:n], codes)
            mask = kmask if mask is None else mask & kmask
        if scope.agents is not None:
            amask = self._seen_by(scope.agents, n)
            mask = amask if mask is None else mask & amask
        return mask

    def live(self, n: int, live_at: float | None) -> np.ndarray | None:
        """Rows of the first ``n`` not expired at ``live_at``; None when none can be (no time
        given, or no row expires)."""
        if live_at is None or not self.expiring:
            return None
        return np.asarray(self.expires[:n] > live_at)

    def _seen_by(self, view: AgentView, n: int) -> np.ndarray:
        """The first ``n`` rows that ``view`` sees: its rule (``AgentView.sees``) asked once
        per distinct agent of the index, not per row (shared rows have code 0)."""
        names = dict(self.agent_names)  # a copy: another thread may add agents meanwhile
        codes = [code for agent, code in names.items() if view.sees(agent)]
        return np.isin(self.agent_codes[:n], codes)

    def matching(self, rowids: dict[int, np.ndarray]) -> np.ndarray:
        """Boolean row mask of the rows whose rowid is in ``rowids`` of their table (a
        filter's matching rows, from the store's ``matching_rowids``)."""
        n = self.n
        out = np.zeros(n, dtype=bool)
        for table, ids in rowids.items():
            here = self.tables[:n] == table
            out |= here & np.isin(self.rowids[:n], ids, assume_unique=False)
        return out

    def most_recent(self, mask: np.ndarray | None, count: int) -> np.ndarray:
        """``mask`` narrowed to its ``count`` rows of latest time (ties: the later written).

        `llmplatform`'s candidate window: a query compares only the most recent vectors.
        """
        n = self.n if mask is None else min(self.n, len(mask))  # one consistent prefix
        allowed = np.ones(n, dtype=bool) if mask is None else np.asarray(mask[:n], dtype=bool)
        held = np.flatnonzero(allowed)
        if len(held) <= count:
            return allowed
        # stable sort by time: among equal times the later position (written later) wins
        order = np.argsort(self.times[held], kind="stable")
        out = np.zeros(n, dtype=bool)
        out[held[order[-count:]]] = True
        return out

    def search(
        self,
        query: np.ndarray,
        limit: int,
        mask: np.ndarray | None = None,
        key_weight: float = 0.0,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Positions and cosines of the ``limit`` rows most similar to the unit ``query``;
        with ``key_weight`` > 0 a keyed row's cosine is blended with its best key's
        (see index.keys.blend_keys)."""
        # Rows only grow between resets; a mask built before rows were appended by another
        # thread covers fewer rows, so search the rows it covers.
        n = self.n if mask is None else min(self.n, len(mask))
        k = self.k  # read after n: keys of rows appended meanwhile are cut below
        if n == 0 or limit <= 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        q = query.astype(np.float32)
        with single_blas_thread():
            sims = self.matrix[:n] @ q
            if key_weight > 0 and k:
                owners = self.key_owners[:k]
                seen = owners < n
                key_sims = self.key_matrix[:k] @ q
                sims = blend_keys(sims, key_sims[seen], owners[seen], key_weight)
        if mask is not None:
            sims = np.where(mask[:n], sims, -np.inf)
            limit = min(limit, int(mask[:n].sum()))
        limit = min(limit, n)
        if limit <= 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        top = np.argpartition(-sims, limit - 1)[:limit]
        top = top[np.argsort(-sims[top], kind="stable")]
        return top, sims[top]

    def neighbors(
        self, position: int, span: int = 1, *, agents: AgentView | None = None
    ) -> list[int]:
        """Positions within ``span`` of ``position`` that hold turns of the same session
        (that the agent view ``agents`` sees, when given).

        Turns of a session are written in order, so index order is conversation order.
        """
        code = self.session_codes[position]
        lo, hi = max(position - span, 0), min(position + span + 1, self.n)
        near = [
            p
            for p in range(lo, hi)
            if p != position and self.session_codes[p] == code and self.tables[p] == 0
        ]
        if agents is None:
            return near
        seen = self._seen_by(agents, hi)
        return [p for p in near if seen[p]]

    def same_speaker(self, a: int, b: int) -> bool:
        """True when the rows at positions ``a`` and ``b`` have the same role and name."""
        return bool(
            self.role_codes[a] == self.role_codes[b] and self.name_codes[a] == self.name_codes[b]
        )

    def newest_turn(self, *, agents: AgentView | None = None) -> float | None:
        """Epoch seconds of the newest turn (memories left out; with ``agents``, of the turns
        that view sees), or None without turns."""
        n = self.n
        turns = self.tables[:n] == 0
        if agents is not None:
            turns &= self._seen_by(agents, n)
        return float(self.times[:n][turns].max()) if turns.any() else None

    def names(self) -> list[str]:
        """The distinct speaker names of this user's turns, lower-cased."""
        return [n for n in list(self.speaker_names) if n]  # a copy: appends may run meanwhile

    def spoken_by(self, names: frozenset[str], role: str | None) -> np.ndarray:
        """Rows said by one of ``names`` (lower-cased) when given, else by ``role``.

        Memories count as the user's: they are distilled from what the user said.
        """
        n = self.n  # read once: another thread may append meanwhile
        if names:
            codes = [c for name, c in list(self.speaker_names.items()) if name in names]
            return np.isin(self.name_codes[:n], codes)
        code = self.role_names.get(role, -1) if role is not None else -1
        spoken = self.role_codes[:n] == code
        if role == "user":
            spoken |= self.tables[:n] == 1
        return np.asarray(spoken)

    def ref(self, position: int) -> tuple[int, int]:
        """The (table, rowid) ref held at a position."""
        return int(self.tables[position]), int(self.rowids[position])

    def positions(self, refs: list[tuple[int, int]]) -> dict[tuple[int, int], int]:
        """Map refs to their row positions in this index (refs not held are left out)."""
        pos = self.pos  # one dict even if another thread resets the index meanwhile
        return {ref: pos[ref] for ref in refs if ref in pos}


class IndexCache:
    """Vector indexes of the most recently searched users (LRU-bounded)."""

    def __init__(self, max_users: int = 64) -> None:
        self.max_users = max_users
        self._indexes: OrderedDict[tuple[str, str], VectorIndex] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, store: SearchSource, tenant: str, user_id: str, embedder: str) -> VectorIndex:
        """The refreshed index of a user."""
        key = (tenant, user_id)
        with self._lock:
            index = self._indexes.get(key)
            if index is None:
                index = self._indexes[key] = VectorIndex()
            self._indexes.move_to_end(key)
            while len(self._indexes) > self.max_users:
                self._indexes.popitem(last=False)
        fresh = index.refresh(store, tenant, user_id, embedder)
        if fresh is not index:
            with self._lock:
                if self._indexes.get(key) is index:
                    self._indexes[key] = fresh
        return fresh

    def drop(self, tenant: str, user_id: str) -> None:
        """Forget a user's index."""
        with self._lock:
            self._indexes.pop((tenant, user_id), None)
