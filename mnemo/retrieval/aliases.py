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
are of older rules is read again). Only the cues about names are parsed; a turn's lower-case
word counts are kept in their stored text, and a name's lower-case uses are counted in it only
when the name could be an alias by its evidence for and against (once over the turns read
before, then over each batch of new ones).
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
from mnemo.text.turn_rules import NO_CUES, dump_cues, split_cues, word_count
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
    user writes each word (capitalised inside a sentence, or as it is: the turns' word counts,
    in their stored text, :func:`mnemo.text.turn_rules.word_text`)."""

    pro: defaultdict[str, defaultdict[str, float]] = field(default_factory=_weights)
    con: defaultdict[str, defaultdict[str, float]] = field(default_factory=_weights)
    inner: Counter[str] = field(default_factory=Counter)
    lowered: Counter[str] = field(default_factory=Counter)
    #: the word counts of the turns read, one text per batch, and those of the batch being read
    words: list[str] = field(default_factory=list)
    fresh: list[str] = field(default_factory=list)
    #: the lower-case uses of each name looked up so far, over the texts of ``words``
    lower: dict[str, int] = field(default_factory=dict)

    def read(self, cues: NameCues, words: str, speaker: str, addressee: str | None) -> None:
        """Add what the cues of one turn by ``speaker`` say of its speaker and of third
        parties (``addressee``, when known, is not the third party a relational mention
        names), and its word counts (``words``, as stored); its vocatives :meth:`addressed`
        adds once the addressee is known."""
        self.fresh.append(words)
        if cues is NO_CUES:  # most turns: nothing more to add
            return
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

    def _lower(self, name: str) -> int:
        """How often ``name`` is written in lower case (the word counts hold lower-case words
        only), over all turns read."""
        if self.fresh:  # the counts of names looked up before, carried over the new turns
            batch = "".join(self.fresh)
            self.fresh.clear()
            self.words.append(batch)
            for known in self.lower:
                self.lower[known] += word_count(batch, known)
        if name not in self.lower:
            self.lower[name] = sum(word_count(text, name) for text in self.words)
        return self.lower[name]

    def _proper(self, name: str) -> bool:
        """Whether ``name`` is used as a name: capitalised inside sentences more often than
        written in lower case, or, in lower case, at least half of its uses where names sit
        ("hey jess!", "jess, did you...", "how are you, jess?") and no function word."""
        inner, lowered = self.inner[name], self.lowered[name]
        if not inner and not lowered:
            return False  # neither test can hold, whatever its lower-case uses
        lower = self._lower(name)
        if inner > lower:
            return True
        return 2 * lowered >= lower > 0 and name not in STOPWORDS

    def aliases(self, speakers: set[str]) -> dict[str, str]:
        """Each alias the evidence supports -> its speaker (see the module docstring); how a
        name is written is looked up only for the names the evidence supports."""
        out: dict[str, str] = {}
        taken = {w for s in speakers for w in _TOKEN.findall(s)} | _CUES
        for name, pro in self.pro.items():
            if name in taken:
                continue
            speaker, best = max(pro.items(), key=lambda kv: kv[1])
            net = best - self.con[name][speaker]
            if net >= 1.0 and best >= _CONSISTENCY * sum(pro.values()) and self._proper(name):
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
        turns = store.turn_cues([index.ref(p)[1] for p in fresh]) if fresh else {}
        waiting, state.waiting, state.upto = state.waiting, [], n
        read: list[tuple[int, NameCues]] = []
        for p in fresh:
            if (turn := turns.get(index.ref(p)[1])) is not None:
                to = names.get(addressee(index, p, n) or 0)
                speaker = names[int(index.name_codes[p])]
                stored, content = turn
                if stored is None:  # not computed by the current rules yet
                    stored = dump_cues(name_cues(content))
                cues, words = split_cues(stored)
                state.evidence.read(cues, words, speaker, to)
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
