"""Names people really use: speaker aliases learned from what the conversation itself says.

A speaker stored as "jdoe84" is "Jess" to the people she talks with, and questions name her so.
Nothing here comes from a list of names. Each turn is read for the cues of
:mod:`mnemo.text.vocatives`, which become evidence for or against "name n is speaker s":

* a **vocative** ("Hey Jess!" 1, "Jess, did you..." 1/2) is for the person spoken to, the
  other party of the exchange: the nearest turn of the same session by another named speaker,
  before it, else after it;
* a **self-introduction** ("call me Jess" 1, "I'm Jess," 1/2) is for the speaker;
* a **relational mention** ("my sister Anna", "your boss Tom") names a third party: 1 against
  the speaker and 1 against the addressee; and a speaker seldom says their own name, so a name
  capitalised inside one of their sentences counts 1/2 against them.

Evidence is summed over a user's turns. A name is an alias of speaker s when

    for(s) - against(s) >= 1  and  for(s) >= 3/4 x sum over speakers of for(.)

(consistent: mostly attributed to one speaker) and it is a proper noun in this user's text: it
shows capitalised inside a sentence more often than it shows in lower case (so "Wow, ..." or
"Honestly, ..." never qualify), or, in a chat written in lower case, at least half of its
lower-case uses are where names sit ("hey jess!", "jess, did you...") and it is no function
word ("thanks again!"). A speaker's own name, and the greetings themselves, are never anyone's
alias.

Aliases are learned per vector index (one user's, one generation: an erasure, update or
re-embed reloads the index and its aliases start over) and kept up to date incrementally: each
search reads only the cues of turns appended since the last one (:func:`learned`), as stored
with each turn when it was written (:mod:`mnemo.text.turn_rules`; a turn whose stored cues
are of older rules is read again).
"""

from __future__ import annotations

import re
import threading
import weakref
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from mnemo.index.vectors import VectorIndex
from mnemo.retrieval.lexical import STOPWORDS
from mnemo.storage.ports.search import SearchSource
from mnemo.text.turn_rules import load_cues
from mnemo.text.vocatives import GREETINGS, NameCues, name_cues

_TOKEN = re.compile(r"\w+")  # a word as queries match speaker names
#: The vocative grammar's own words are nobody's name ("Congrats!" opens many a turn).
_CUES = frozenset(w for g in GREETINGS for w in g.split("_"))
#: How far (in index positions) the other party of an exchange is looked for.
_REACH = 12
#: The share of a name's evidence its speaker must hold.
_CONSISTENCY = 0.75


def _weights() -> defaultdict[str, defaultdict[str, float]]:
    return defaultdict(lambda: defaultdict(float))


@dataclass
class Evidence:
    """Alias evidence summed over turns: for and against each (name, speaker), and how this
    user writes each word (capitalised inside a sentence, or as it is)."""

    pro: defaultdict[str, defaultdict[str, float]] = field(default_factory=_weights)
    con: defaultdict[str, defaultdict[str, float]] = field(default_factory=_weights)
    inner: Counter[str] = field(default_factory=Counter)
    lowered: Counter[str] = field(default_factory=Counter)
    words: Counter[str] = field(default_factory=Counter)

    def read(self, cues: NameCues, speaker: str, addressee: str | None) -> None:
        """Add what the cues of one turn by ``speaker`` say of its speaker and of third
        parties (``addressee``, when known, is not the third party a relational mention
        names); its vocatives :meth:`addressed` adds once the addressee is known."""
        words, seen = self.words, self.words.get  # .get: no __missing__ call per new word
        for word, count in cues.words:
            words[word] = seen(word, 0) + count
        self.inner.update(cues.inner)
        self.lowered.update(cues.lowered)
        self.lowered.update(cues.called)
        for name, weight in cues.own:
            self.pro[name][speaker] += weight
        for name in cues.inner - {n for n, _ in cues.own}:
            self.con[name][speaker] += 0.5  # people seldom say their own name
        for name in cues.others:
            for who in (speaker, addressee):
                if who is not None:
                    self.con[name][who] += 1.0

    def addressed(self, cues: NameCues, addressee: str) -> None:
        """Add the vocatives of one turn spoken to ``addressee``."""
        for name, weight in cues.addressed:
            self.pro[name][addressee] += weight

    def _proper(self, name: str) -> bool:
        """Whether ``name`` is used as a name: capitalised inside sentences more often than
        written in lower case, or, in lower case, at least half of its uses where names sit
        ("hey jess!", "jess, did you...", "how are you, jess?") and no function word."""
        lower = self.words[name]  # the lower-case uses (cues count words in lower case only)
        if self.inner[name] > lower:
            return True
        return 2 * self.lowered[name] >= lower > 0 and name not in STOPWORDS

    def aliases(self, speakers: set[str]) -> dict[str, str]:
        """Each alias the evidence supports -> its speaker (see the module docstring)."""
        out: dict[str, str] = {}
        taken = {w for s in speakers for w in _TOKEN.findall(s)} | _CUES
        for name, pro in self.pro.items():
            if name in taken or not self._proper(name):
                continue
            speaker, best = max(pro.items(), key=lambda kv: kv[1])
            net = best - self.con[name][speaker]
            if net >= 1.0 and best >= _CONSISTENCY * sum(pro.values()):
                out[name] = speaker
        return out


@dataclass
class _Learned:
    """One index's evidence, how far it has read, and turns whose addressee is not yet known."""

    evidence: Evidence = field(default_factory=Evidence)
    upto: int = 0
    waiting: list[tuple[int, NameCues]] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


_STATES: weakref.WeakKeyDictionary[VectorIndex, _Learned] = weakref.WeakKeyDictionary()
_STATES_LOCK = threading.Lock()


def addressee(index: VectorIndex, position: int, n: int) -> int | None:
    """The speaker code of the other party of the turn at ``position``: the nearest turn of
    its session by another named speaker, before it, else after it (among the first ``n``
    rows); None when there is none within reach."""
    session, own = index.session_codes[position], index.name_codes[position]
    before = range(position - 1, max(position - _REACH, 0) - 1, -1)
    after = range(position + 1, min(position + _REACH + 1, n))
    for steps in (before, after):
        for q in steps:
            code = int(index.name_codes[q])
            if index.tables[q] == 0 and index.session_codes[q] == session and code not in (0, own):
                return code
    return None


def learned(index: VectorIndex, store: SearchSource) -> dict[str, str]:
    """The aliases learned from the turns of ``index`` (lower-cased alias -> lower-cased
    speaker name), after reading the texts of turns appended since the last call.

    A turn near the newest rows whose addressee is not known yet (a session's opening "Hey
    Jess!") waits for the reply that names it.
    """
    with _STATES_LOCK:
        state = _STATES.setdefault(index, _Learned())
    with state.lock:
        n = index.n
        if state.upto >= n:
            return state.aliases
        names = {code: name for name, code in list(index.speaker_names.items()) if name}
        fresh = [
            p for p in range(state.upto, n) if index.tables[p] == 0 and index.name_codes[p] in names
        ]
        rows = store.fetch([index.ref(p) for p in fresh]) if fresh else {}
        waiting, state.waiting, state.upto = state.waiting, [], n
        read: list[tuple[int, NameCues]] = []
        for p in fresh:
            if (row := rows.get(index.ref(p))) is not None:
                to = names.get(addressee(index, p, n) or 0)
                speaker = names[int(index.name_codes[p])]
                stored = row.get("name_cues")
                cues = name_cues(row["content"]) if stored is None else load_cues(stored)
                state.evidence.read(cues, speaker, to)
                read.append((p, cues))
        for p, cues in waiting + read:
            if not cues.addressed:
                continue
            if (to_code := addressee(index, p, n)) is not None:
                if (to_name := names.get(to_code)) is not None:
                    state.evidence.addressed(cues, to_name)
            elif p + _REACH >= n:
                state.waiting.append((p, cues))  # its reply may still come
        state.aliases = state.evidence.aliases(set(names.values()))
        return state.aliases


__all__ = ["Evidence", "addressee", "learned"]
