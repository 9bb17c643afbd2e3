"""The aliases a search learns from the stored cues (their word counts left in their stored
text, counted only for the names the evidence supports) are exactly those of reading every
turn's raw text with :func:`mnemo.text.vocatives.name_cues` and summing all its word counts,
as aliases were learned before the word counts were stored apart; over real conversations
(LoCoMo and LongMemEval dev turns, when ``../shared/data`` is at hand, and a made-up chat in
lower case), appended a few turns at a time, on both backends."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mnemo import Memory
from mnemo.index.vectors import VectorIndex
from mnemo.retrieval import aliases
from mnemo.retrieval.lexical import STOPWORDS
from mnemo.storage.ports.search import SearchSource
from mnemo.text.vocatives import NameCues, name_cues

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
#: How many turns each append adds, in turn (then the rest): single turns leave vocatives
#: waiting for their reply, larger batches read many turns at once.
STEPS = [1, 1, 5, 2, 40, 1, 13, 120, 3]


class Reference:
    """Aliases as learned before the word counts were stored apart: every turn's cues from
    its raw text, every lower-case word counted (the pre-change ``Evidence`` and
    ``learned``, kept as the oracle)."""

    def __init__(self) -> None:
        self.pro: dict[str, dict[str, float]] = {}
        self.con: dict[str, dict[str, float]] = {}
        self.inner: Counter[str] = Counter()
        self.lowered: Counter[str] = Counter()
        self.words: Counter[str] = Counter()
        self.upto = 0
        self.waiting: list[tuple[int, NameCues]] = []

    @staticmethod
    def _add(table: dict[str, dict[str, float]], name: str, who: str, w: float) -> None:
        weights = table.setdefault(name, {})
        weights[who] = weights.get(who, 0.0) + w

    def learned(self, index: VectorIndex, store: SearchSource) -> dict[str, str]:
        n = index.n
        names = {code: name for name, code in index.speaker_names.items() if name}
        fresh = [
            p for p in range(self.upto, n) if index.tables[p] == 0 and index.name_codes[p] in names
        ]
        rows = store.fetch([index.ref(p) for p in fresh]) if fresh else {}
        waiting, self.waiting, self.upto = self.waiting, [], n
        read = []
        for p in fresh:
            if (row := rows.get(index.ref(p))) is None:
                continue
            to = names.get(aliases.addressee(index, p, n) or 0)
            speaker = names[int(index.name_codes[p])]
            cues = name_cues(row["content"])
            self.words.update(dict(cues.words))
            self.inner.update(cues.inner)
            self.lowered.update(cues.lowered)
            self.lowered.update(cues.called)
            for name, weight in cues.own:
                self._add(self.pro, name, speaker, weight)
            for name in cues.inner - {x for x, _ in cues.own}:
                self._add(self.con, name, speaker, 0.5)
            for name in cues.others:
                for who in (speaker, to):
                    if who is not None:
                        self._add(self.con, name, who, 1.0)
            read.append((p, cues))
        for p, cues in waiting + read:
            if not cues.addressed:
                continue
            if (to_code := aliases.addressee(index, p, n)) is not None:
                if (to_name := names.get(to_code)) is not None:
                    for name, weight in cues.addressed:
                        self._add(self.pro, name, to_name, weight)
            elif p + 12 >= n:
                self.waiting.append((p, cues))
        taken = {w for s in names.values() for w in aliases._TOKEN.findall(s)} | aliases._CUES
        out = {}
        for name, pro in self.pro.items():
            lower = self.words[name]
            proper = self.inner[name] > lower or (
                2 * self.lowered[name] >= lower > 0 and name not in STOPWORDS
            )
            if name in taken or not proper:
                continue
            speaker, best = max(pro.items(), key=lambda kv: kv[1])
            net = best - self.con.get(name, {}).get(speaker, 0.0)
            if net >= 1.0 and best >= 0.75 * sum(pro.values()):
                out[name] = speaker
        return out


def locomo(limit: int) -> list[list[dict[str, Any]]]:
    """LoCoMo conversations, their speakers stored under handles (so the names the turns use
    are aliases to learn)."""
    path = DATA / "locomo-dev.json"
    if not path.exists():
        return []
    out = []
    for sample in json.loads(path.read_text())[:2]:
        conv = sample["conversation"]
        handle = {conv["speaker_a"]: "user_a1", conv["speaker_b"]: "pal_b2"}
        keys = [k for k in conv if k.startswith("session_") and isinstance(conv[k], list)]
        turns = [
            {
                "role": "user" if t["speaker"] == conv["speaker_a"] else "assistant",
                "name": handle[t["speaker"]],
                "content": t["text"],
                "session": k,
            }
            for k in sorted(keys, key=lambda k: int(k.split("_")[1]))
            for t in conv[k]
        ]
        out.append(turns[:limit])
    return out


def longmemeval(limit: int) -> list[list[dict[str, Any]]]:
    """LongMemEval haystacks (long turns), the user and the assistant named."""
    path = DATA / "longmemeval-s-dev.json"
    if not path.exists():
        return []
    out = []
    for q in json.loads(path.read_text())[:1]:
        turns = [
            {
                "role": t["role"],
                "name": "alex_k" if t["role"] == "user" else "sam_bot",
                "content": t["content"],
                "session": sid,
            }
            for sid, session in zip(q["haystack_session_ids"], q["haystack_sessions"], strict=True)
            for t in session
        ]
        out.append(turns[:limit])
    return out


LOWER_CASE_CHAT = [
    {"role": r, "name": n, "content": c, "session": f"s{i // 3}"}  # three turns a session
    for i, (r, n, c) in enumerate(
        [
            ("user", "mkt_sam", "hey jess! how was the trip?"),
            ("assistant", "jdoe84", "amazing, thanks man! no more night shifts?"),
            ("user", "mkt_sam", "jess, did you go with the gym crowd? jess said so."),
            ("assistant", "jdoe84", "yes. thanks sam. Sam, my sister Anna says hi."),
            ("user", "mkt_sam", "no more night shifts? that's great, jess."),
            ("assistant", "jdoe84", "Hey Sam! Call me Jessie, everyone does."),
            ("user", "mkt_sam", "Thanks Jessie! Anna, you too. sam here, jessie."),
            ("assistant", "jdoe84", "Bye Sam!"),
        ]
    )
]


def conversations() -> list[list[dict[str, Any]]]:
    """The conversations the test replays."""
    return [LOWER_CASE_CHAT, *locomo(260), *longmemeval(150)]


def test_stored_cues_learn_the_aliases_raw_texts_learn(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem()
    learned_any = set()
    for i, turns in enumerate(conversations()):
        user, reference, at, steps = f"u{i}", Reference(), 0, iter(STEPS)
        while at < len(turns):
            batch = turns[at : at + next(steps, len(turns))]
            at += len(batch)
            for session in dict.fromkeys(t["session"] for t in batch):
                said = [
                    {k: v for k, v in t.items() if k != "session"}
                    for t in batch
                    if t["session"] == session
                ]
                mem.add_messages(said, user_id=user, session_id=str(session))
            index = mem.pipeline.indexes.get(mem.store.search, mem.tenant, user, mem.embedder.id)
            got = aliases.learned(index, mem.store.search)
            assert got == reference.learned(index, mem.store.search), (user, at)
            learned_any.update(got)
    assert {"jess", "jessie", "sam"} <= learned_any  # the made-up chat teaches these at least


@pytest.mark.parametrize(
    "text",
    [
        "Jess met jess, JESS and jess's dog. jess-marie? jess2 jess_x Łukasz łukasz",
        "hey jess! jess, jess. L'été à Montréal, l'été",
        "",
    ],
)
def test_a_names_lower_case_uses_are_counted_as_the_rules_count_them(text: str) -> None:
    from mnemo.text.turn_rules import dump_cues, split_cues, word_count

    cues = name_cues(text)
    _, words = split_cues(dump_cues(cues))
    counts = dict(cues.words)
    for word in {*counts, "jess", "jess-marie", "łukasz", "l'été", "ess", "je", "jess's"}:
        assert word_count(words + words, word) == 2 * counts.get(word, 0), word
