"""The fact job's read-ahead: the clause reader parses queued jobs' turns with its own.

A chat application writes one exchange at a time, so each ``turns.facts`` job holds one user
turn, and spaCy parses one sentence per call at about twice the cost per turn of a batch
(docs/facts.md measures it). When jobs are queued behind the one running, the job parses the
user turns of the next :data:`JOBS` fact jobs (at most :data:`TURNS` turns) together with its
own, in one batch, and keeps their facts for those jobs; the queue lists them in claim order
without claiming them (:meth:`mnemo.storage.ports.jobs.JobQueue.upcoming_jobs`).

Reading ahead changes no fact: the reader reads each turn on its own, so a turn gives the same
facts in any batch; a queued job another worker runs first just leaves its entry unused, and
an entry is used only for the very turn it was read from (same text and time).
"""

from __future__ import annotations

from typing import Any

from mnemo.config.settings import Settings
from mnemo.schemas import Message
from mnemo.storage.ports.unions import FactTierStore
from mnemo.tiers.facts.rule_facts import rule_facts

#: Queued fact jobs whose user turns are read with a job's own.
JOBS = 64
#: The most turns read ahead.
TURNS = 128


def _read_key(m: Message) -> tuple[str, Any]:
    """What the clause reader reads of a turn: its text and its time."""
    return (m.content, m.created_at)


class ReadAhead:
    """Rule facts of a job's turns, and of the next queued jobs' turns, read in one batch."""

    def __init__(self, store: FactTierStore, tenant: str, settings: Settings, kind: str) -> None:
        self.store, self.tenant, self.settings, self.kind = store, tenant, settings, kind
        #: rule facts read ahead: message id -> (what was read, its facts)
        self.held: dict[str, tuple[tuple[str, Any], list[str]]] = {}

    def facts(self, turns: list[Message]) -> dict[str, list[str]]:
        """The rule facts of ``turns`` by message id: held from an earlier read when that read
        these very turns, else read now in one batch with the next queued jobs' turns, which
        are then held for those jobs."""
        held = self.held
        if all(m.id in held and held[m.id][0] == _read_key(m) for m in turns):
            return {m.id: held[m.id][1] for m in turns}
        more = self.upcoming({m.id for m in turns})
        found = rule_facts(turns + more, self.settings)
        self.held = {m.id: (_read_key(m), found[m.id]) for m in more}
        return {m.id: found[m.id] for m in turns}

    def upcoming(self, skip: set[str]) -> list[Message]:
        """The unprocessed user turns of the next queued jobs (at most :data:`TURNS`), not in
        ``skip``."""
        ids: list[str] = []
        for queued in self.store.jobs.upcoming_jobs((self.kind,), tenant=self.tenant, limit=JOBS):
            ids += [i for i in queued.payload.get("message_ids", []) if isinstance(i, str)]
        ids = [i for i in dict.fromkeys(ids) if i not in skip]
        done = self.store.rows.facts_processed(self.tenant, ids)
        out: list[Message] = []
        for i in ids:
            if len(out) >= TURNS:
                break
            m = None if i in done else self.store.rows.get_message(self.tenant, i)
            if m is not None and m.role == "user":
                out.append(m)
        return out


__all__ = ["JOBS", "TURNS", "ReadAhead"]
