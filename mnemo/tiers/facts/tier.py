"""The fact tier: distil turns into facts, dedupe them, reconcile them with existing facts.

Per unit of conversation (`agent-cli` "atomic": each user message; `llm-managed` "single": each user
message with the assistant reply that follows it):

1. extract candidate facts (LLM when configured, the clause reader :mod:`rule_facts` otherwise);
2. drop candidates with cosine >= ``fact_dedupe_threshold`` to an existing fact of the user,
   or already stated in an attached context document (:mod:`dedupe`);
3. reconcile the rest against their nearest existing facts: ADD / UPDATE / DELETE / NONE
   (:mod:`reconcile`; LLM when configured, rules otherwise; an LLM's ADD that changes or
   ends a single-valued state a shown fact states becomes its UPDATE, as the rules decide:
   :func:`settle_states`); with ``fact_reconcile`` off
   (`llm-managed`) each of them is an ADD, stored as it is;
4. apply the changes in one transaction with history (actor ``llm`` or ``rules``, the unit's
   message ids as sources) that also records the unit's turns as done.

A transient LLM failure (or an unusable answer) falls back to rules for the rest of the job
and is recorded in the facts' metadata and in ``fact_runs.note``. With ``fact_rule_fallback``
off (`llm-managed`: "if no model is available, extraction exits without doing anything"),
extraction without a working LLM finds nothing, and the note says so. Step 4 makes the job
idempotent and kill-safe: a re-run skips finished turns, and a turn whose transaction never
committed is simply done again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mnemo.config.settings import Settings
from mnemo.errors import LLMOutputError, LLMTransientError
from mnemo.ids import MEMORY_PREFIX, new_id
from mnemo.index.vectors import IndexCache
from mnemo.llm import ChatModel, Usage
from mnemo.redact import mask_credentials
from mnemo.schemas import Message, format_time
from mnemo.storage.agent_scope import derived_agent, exactly
from mnemo.storage.base import DocumentChunks, FactBatch, ListFilter, NewMemory, TurnRun
from mnemo.storage.ports.unions import FactTierStore
from mnemo.storage.scope import ReadScope
from mnemo.text import fact_subjects
from mnemo.tiers.facts import dedupe
from mnemo.tiers.facts import llm as fact_llm
from mnemo.tiers.facts.read_ahead import ReadAhead
from mnemo.tiers.facts.reconcile import (
    Add,
    Decision,
    Delete,
    Keep,
    Neighbour,
    Update,
    reconcile_by_rules,
    safeguard,
    settle_states,
    short_ids,
    unrelated_updates,
)
from mnemo.tiers.facts.rule_facts import rule_facts

log = logging.getLogger("mnemo.facts")

JOB_KIND = "turns.facts"
#: Newest facts of a user searched for one about the same state (:meth:`FactTier.same_subject`).
SUBJECT_SCAN = 1000
Embed = Callable[[list[str]], tuple[list[str], np.ndarray]]


@dataclass
class Unit:
    """The turns one extraction looks at: a user message and, in single mode, its reply."""

    user: Message
    reply: Message | None = None

    @property
    def ids(self) -> list[str]:
        """Message ids of the unit (the facts' provenance)."""
        return [self.user.id] + ([self.reply.id] if self.reply else [])

    @property
    def agent_id(self) -> str | None:
        """The agent its facts are private to: its turns' (None: shared; see
        :func:`~mnemo.storage.agent_scope.derived_agent`). Facts of a unit are reconciled
        only with facts of the same agent, so a private turn never changes a shared fact."""
        return derived_agent([self.user.agent_id, self.reply.agent_id if self.reply else None])


@dataclass
class JobState:
    """State of one job run: LLM health, turns awaiting their record, embeddings, rule facts."""

    user_id: str = ""
    llm_down: bool = False
    fallbacks: int = 0
    pending: list[TurnRun] = field(default_factory=list)
    vectors: dict[str, tuple[str, np.ndarray]] = field(default_factory=dict)
    parsed: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Run:
    """What happened to one unit: who decided, what was noted, tokens spent."""

    job: JobState
    actor: str = "llm"
    notes: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)

    @property
    def note(self) -> str | None:
        """The notes as one line (None when there are none)."""
        return "; ".join(self.notes)[:2000] or None

    def fall_back(self, stage: str, exc: Exception) -> None:
        """Record that ``stage`` fell back to rules after ``exc``."""
        self.actor = "rules"
        detail = mask_credentials(str(exc))[:200]
        self.notes.append(f"{stage}: LLM failed ({type(exc).__name__}: {detail}); rules")
        self.job.fallbacks += 1


class FactTier:
    """The ``turns.facts`` job handler over one store."""

    def __init__(
        self,
        store: FactTierStore,
        tenant: str,
        embedder_id: str,
        embed: Embed,
        indexes: IndexCache,
        settings: Settings,
        chat: ChatModel | None,
    ) -> None:
        self.store, self.tenant, self.settings = store, tenant, settings
        self.embedder_id, self.embed, self.indexes = embedder_id, embed, indexes
        self.chat = chat
        self.limits = (settings.fact_min_chars, settings.fact_max_chars)
        self.rules_on = settings.fact_rule_fallback
        self.reading = ReadAhead(store, tenant, settings, JOB_KIND)

    def handlers(self) -> dict[str, Callable[[dict[str, Any]], Any]]:
        """This tier's job handlers by kind: ``turns.facts`` (this object)."""
        return {JOB_KIND: self}

    # ---- the job --------------------------------------------------------------------------
    def __call__(self, payload: dict[str, Any]) -> dict[str, int]:
        """Process the turns of a ``turns.*`` payload; returns the LLM tokens spent and how
        many times the LLM failed and rules decided instead (``fallbacks``)."""
        ids = [i for i in payload.get("message_ids", []) if isinstance(i, str)]
        done = self.store.rows.facts_processed(self.tenant, ids)
        found = [self.store.rows.get_message(self.tenant, i) for i in ids if i not in done]
        messages = [m for m in found if m is not None]  # erased users leave nothing to do
        total, job = Usage(), JobState()
        units = self.units(messages)
        if self.chat is None and self.settings.fact_rule_fallback:
            job.parsed = self.reading.facts([u.user for u in units])
        for unit in units:
            job.user_id = unit.user.user_id
            total += self.process(unit, job)
        if job.pending:  # turns that changed nothing: recorded together, one transaction
            self.store.rows.apply_facts(
                FactBatch(self.tenant, job.user_id, "rules", [], job.pending)
            )
        return {**total.as_dict(), "fallbacks": job.fallbacks}

    def vectors(self, texts: list[str], job: JobState) -> tuple[list[str], np.ndarray]:
        """Content hashes and unit vectors of ``texts``, each embedded once per job."""
        todo = [t for t in dict.fromkeys(texts) if t not in job.vectors]
        if todo:
            hashes, vecs = self.embed(todo)
            job.vectors.update(zip(todo, zip(hashes, vecs, strict=True), strict=True))
        if not texts:
            return [], np.zeros((0, 0), np.float32)
        return [job.vectors[t][0] for t in texts], np.stack([job.vectors[t][1] for t in texts])

    def units(self, messages: list[Message]) -> list[Unit]:
        """The user messages of a batch, each with its reply in single mode."""
        out = []
        for m in messages:
            if m.role != "user":
                continue
            reply = self.reply_to(m) if self.settings.fact_extraction == "single" else None
            out.append(Unit(m, reply))
        return out

    def reply_to(self, m: Message) -> Message | None:
        """The assistant turn right after ``m`` in its session, if stored yet."""
        scope = ReadScope(self.tenant, m.user_id, m.session_id)
        flt = ListFilter(scope, since=format_time(m.created_at), limit=20)
        for later in self.store.rows.list_messages(flt):
            if later.seq == m.seq + 1:
                private = {a for a in (m.agent_id, later.agent_id) if a is not None}
                return later if later.role == "assistant" and len(private) < 2 else None
        return None

    def process(self, unit: Unit, job: JobState) -> Usage:
        """Extract, dedupe, reconcile and apply the facts of one unit.

        A unit that changes nothing and spent no LLM call is only recorded as done with the
        next unit that commits (or at the end of the job): rules are cheap to redo after a
        kill, a commit is not free. Units that asked the LLM commit at once.
        """
        run = Run(job, actor="rules" if self.chat is None or job.llm_down else "llm")
        facts = self.extract(unit, run)
        decisions: list[Decision] = []
        if facts:
            _, vectors = self.vectors(facts, job)
            chunks = self.store.documents.document_chunks(
                self.tenant, unit.user.user_id, self.embedder_id
            )
            facts, neighbours = self.screen(unit, facts, vectors, chunks, run)
            if facts:
                decisions = self.decide(facts, neighbours, run)
                decisions = self.screen_decisions(unit, decisions, chunks, run)
        job.pending += [TurnRun(i, run.actor, run.note) for i in unit.ids]
        changes: list[Decision] = [d for d in decisions if not isinstance(d, Keep)]
        if changes or run.usage.total_tokens or run.actor == "llm":
            batch = self.batch(unit, changes, run)
            if self.store.rows.apply_facts(batch) is None:
                log.info("facts for %s were already applied by another run", unit.ids)
            job.pending = []
        log.debug("facts for %s: %s by %s", unit.ids, decisions, run.actor)
        return run.usage

    # ---- 1. extraction --------------------------------------------------------------------
    def extract(self, unit: Unit, run: Run) -> list[str]:
        """Candidate facts of a unit: from the LLM, or by rules (after a failure or no fact)."""
        if self.chat is not None and run.actor == "llm":
            try:
                facts, usage = self._extract_llm(self.chat, unit, run.job)
                run.usage += usage
                if facts or self.settings.fact_extraction != "atomic" or not self.rules_on:
                    return facts
                log.info("the LLM found no fact in %s; the rules read it", unit.ids)
                run.actor, run.notes = "rules", [*run.notes, "extraction: LLM found none; rules"]
            except (LLMTransientError, LLMOutputError) as exc:
                run.job.llm_down = isinstance(exc, LLMTransientError)
                if not self.settings.fact_rule_fallback:
                    log.warning("fact extraction failed, nothing extracted: %s", exc)
                    run.notes.append(f"extraction: LLM failed ({type(exc).__name__}); nothing")
                    return []
                log.warning("fact extraction fell back to rules: %s", exc)
                run.fall_back("extraction", exc)
        s = self.settings
        if not s.fact_rule_fallback:
            why = "no LLM" if self.chat is None else "the LLM failed earlier in this job"
            run.notes.append(f"extraction: {why} and fact_rule_fallback off; nothing")
            return []
        found = run.job.parsed.get(unit.user.id)  # None: an LLM job fell back, this unit alone
        return rule_facts([unit.user], s)[unit.user.id] if found is None else found

    def _extract_llm(self, chat: ChatModel, unit: Unit, job: JobState) -> tuple[list[str], Usage]:
        s, user = self.settings, unit.user
        if s.fact_extraction == "atomic":
            when = format_time(user.created_at)
            return fact_llm.extract_atomic(
                chat, user.content, when, s.fact_max_per_turn, self.limits
            )
        _, vec = self.vectors([user.content], job)
        near = self.nearest(user.user_id, vec[0], s.fact_context_k, unit.agent_id)
        existing = [n.text for n, _ in near if n.similarity >= s.min_similarity]
        docs = self.store.documents.list_documents(self.tenant, user.user_id, user.session_id)
        context = "\n\n".join(d.content for d in docs)[: s.max_content_chars]
        reply = unit.reply.content if unit.reply else ""
        return fact_llm.extract_single(chat, user.content, reply, existing, context, self.limits)

    # ---- 2. dedupe ------------------------------------------------------------------------
    def nearest(
        self, user_id: str, vector: np.ndarray, k: int, agent_id: str | None = None
    ) -> list[tuple[Neighbour, np.ndarray]]:
        """The user's ``k`` live facts of ``agent_id`` (None: the shared ones) nearest to
        ``vector``, with their vectors."""
        if k <= 0:
            return []
        index = self.indexes.get(self.store.search, self.tenant, user_id, self.embedder_id)
        if index.n == 0 or index.matrix.shape[1] != len(vector):
            return []
        scope = ReadScope(self.tenant, user_id, kinds=("fact",), agents=exactly(agent_id))
        mask = index.mask(scope)
        pos, sims = index.search(vector, k, mask)
        refs = [index.ref(int(p)) for p in pos]
        rows = self.store.search.fetch(refs)
        out = []
        for p, sim, ref in zip(pos, sims, refs, strict=True):
            row = rows.get(ref)
            if row is not None:
                out.append((Neighbour(row["id"], row["content"], float(sim)), index.matrix[p]))
        return out

    def screen(
        self,
        unit: Unit,
        facts: list[str],
        vectors: np.ndarray,
        chunks: DocumentChunks,
        run: Run,
    ) -> tuple[list[str], dict[str, list[Neighbour]]]:
        """Candidates that are not duplicates, each with its nearest existing facts."""
        threshold = self.settings.fact_dedupe_threshold
        kept: dict[str, list[Neighbour]] = {}
        user_id, agent_id = unit.user.user_id, unit.agent_id
        for i in dedupe.first_of_near_copies(vectors, threshold):
            fact, vec = facts[i], vectors[i]
            near = self.nearest(user_id, vec, self.settings.fact_reconcile_k, agent_id)
            if near and near[0][0].similarity >= threshold:
                run.notes.append(f"duplicate of {near[0][0].memory_id}: {fact[:80]}")
                continue
            doc = dedupe.in_documents(fact, vec, chunks, threshold)
            if doc is not None:
                run.notes.append(f"already in document {doc}: {fact[:80]}")
                continue
            shown = [n for n, _ in near]
            seen = {n.memory_id for n in shown}
            same = self.same_subject(user_id, fact, agent_id)
            shown += [n for n in same if n.memory_id not in seen]
            kept[fact] = shown
        return list(kept), kept

    def same_subject(self, user_id: str, fact: str, agent_id: str | None = None) -> list[Neighbour]:
        """The user's live facts about the state ``fact`` sets or ends (where they live,
        who they work for...; :func:`fact_subjects.subject_key`), newest first, however far
        their vectors are: a move must find the old home even when it is not among the
        nearest facts. Only facts of ``agent_id`` (None: the shared ones). Empty for a fact
        about no such state."""
        wanted = fact_subjects.state_keys(fact)
        if not wanted:
            return []
        scope = ReadScope(self.tenant, user_id, kinds=("fact",), agents=exactly(agent_id))
        flt = ListFilter(scope, limit=SUBJECT_SCAN)
        return [
            Neighbour(m.id, m.content, 0.0)
            for m in self.store.rows.list_memories(flt)
            if wanted & fact_subjects.state_keys(m.content)
        ]

    # ---- 3. reconciliation ----------------------------------------------------------------
    def decide(
        self, facts: list[str], neighbours: dict[str, list[Neighbour]], run: Run
    ) -> list[Decision]:
        """ADD/UPDATE/DELETE/NONE for the screened facts (LLM, or rules), safeguarded."""
        shown = _union(neighbours)
        if not shown or not self.settings.fact_reconcile:  # every new fact is an ADD
            return [Add(f) for f in facts]
        if self.chat is not None and run.actor == "llm":
            ids = short_ids(shown)
            try:
                decisions, rejected, usage = fact_llm.reconcile(self.chat, facts, shown, ids)
                run.usage += usage
                run.notes += [f"rejected: {r}" for r in rejected]
                decisions, notes = unrelated_updates(decisions, shown)
                run.notes += notes
                none_adds = self.settings.fact_reconcile_none_adds
                decisions, settled = settle_states(decisions, shown)
                decisions, notes = safeguard(decisions, facts, len(shown), none_adds)
                run.notes += settled + notes
                return decisions
            except (LLMTransientError, LLMOutputError) as exc:
                log.warning("fact reconciliation fell back to rules: %s", exc)
                run.job.llm_down = isinstance(exc, LLMTransientError)
                run.fall_back("reconciliation", exc)
        return reconcile_by_rules(facts, neighbours)

    def screen_decisions(
        self, unit: Unit, decisions: list[Decision], chunks: DocumentChunks, run: Run
    ) -> list[Decision]:
        """Drop ADDs and UPDATEs whose text is out of bounds, ADDs that repeat an existing
        fact, a document or an earlier ADD (the LLM may reword a new fact into a copy)."""
        lo, hi = self.limits
        out: list[Decision] = []
        added: list[np.ndarray] = []
        threshold = self.settings.fact_dedupe_threshold
        for d in decisions:
            if isinstance(d, Add | Update) and not lo <= len(d.text) <= hi:
                run.notes.append(f"dropped {type(d).__name__} of length {len(d.text)}")
                continue
            if isinstance(d, Add):
                _, vec = self.vectors([d.text], run.job)
                near = self.nearest(unit.user.user_id, vec[0], 1, unit.agent_id)
                dup_fact = bool(near) and near[0][0].similarity >= threshold
                dup_add = any(float(v @ vec[0]) >= threshold for v in added)
                if dup_fact or dup_add or dedupe.in_documents(d.text, vec[0], chunks, threshold):
                    run.notes.append(f"dropped ADD repeating what is stored: {d.text[:80]}")
                    continue
                added.append(vec[0])
            out.append(d)
        return out

    # ---- 4. the batch ---------------------------------------------------------------------
    def batch(self, unit: Unit, decisions: list[Decision], run: Run) -> FactBatch:
        """The store changes of a unit's decisions, with provenance and notes."""
        user, note = unit.user, run.note
        batch = FactBatch(self.tenant, user.user_id, run.actor, unit.ids, list(run.job.pending))
        adds = [d.text for d in decisions if isinstance(d, Add)]
        updates = [d for d in decisions if isinstance(d, Update)]
        hashes, vectors = self.vectors(adds + [u.text for u in updates], run.job)
        meta: dict[str, Any] = {"extracted_by": run.actor, "mode": self.settings.fact_extraction}
        if any(n.startswith(("extraction:", "reconciliation:")) for n in run.notes):
            meta["fallback"] = note
        for text, h, v in zip(adds, hashes, vectors, strict=False):
            batch.adds.append(self._new_fact(unit, text, h, v, meta))
        for u, h, v in zip(updates, hashes[len(adds) :], vectors[len(adds) :], strict=True):
            batch.updates[u.memory_id] = {
                "content": u.text,
                "embedding": v,
                "embedder": self.embedder_id,
                "content_hash": h,
            }
        batch.deletes = [d.memory_id for d in decisions if isinstance(d, Delete)]
        return batch

    def _new_fact(
        self, unit: Unit, text: str, digest: str, vector: np.ndarray, meta: dict[str, Any]
    ) -> NewMemory:
        return NewMemory(
            id=new_id(MEMORY_PREFIX),
            tenant=self.tenant,
            user_id=unit.user.user_id,
            session_id=unit.user.session_id,
            kind="fact",
            content=text,
            tags=[],
            metadata=dict(meta),
            importance=0.5,
            confidence=1.0,
            source_message_ids=unit.ids,
            created_at=format_time(unit.user.created_at),
            content_hash=digest,
            embedder=self.embedder_id,
            embedding=vector,
            agent_id=unit.agent_id,
        )


def _union(neighbours: dict[str, list[Neighbour]]) -> list[Neighbour]:
    """Every neighbour once, most similar first."""
    best: dict[str, Neighbour] = {}
    for near in neighbours.values():
        for n in near:
            if n.memory_id not in best or n.similarity > best[n.memory_id].similarity:
                best[n.memory_id] = n
    return sorted(best.values(), key=lambda n: -n.similarity)
