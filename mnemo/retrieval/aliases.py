"""Names people really use: speaker aliases learned from what the conversation itself says.

A speaker stored as "jdoe84" is "Jess" to the people she talks with, and questions name her so.
Nothing here comes from a list of names; each turn is read for three kinds of evidence:

* a **vocative** names the person spoken to, the other party of the exchange (the nearest turn
  of the same session by another named speaker, before, else after): a greeting or thanks
  before a name ("Hey Jess!", "Thanks, Sam") is strong evidence (weight 1); a name opening
  ("Jess, did you...") or a name closing a sentence after a comma ("..., Sam!") is weak
  (weight 1/2);
* a **self-introduction** names the speaker: "my name is Jess", "call me Jess" (1); "I'm
  Jess,", "this is Jess" (1/2);
* a **mention** says who a name is *not*: a relational mention ("my sister Anna", "your boss
  Tom") names a third party, neither the speaker nor the addressee (1 against each), and a
  speaker seldom says their own name (a plain capitalised mention counts 1/2 against them).

Evidence is summed over a user's turns. A name is an alias of speaker s when

    for(s) - against(s) >= 1  and  for(s) >= 3/4 x sum over speakers of for(.)

(consistent: mostly attributed to one speaker) and it is a proper noun in this user's text: it
shows capitalised inside a sentence more often than it shows in lower case (so "Wow, ..." or
"Honestly, ..." never qualify). A speaker's own name is never anyone's alias.

Aliases are learned per vector index (one user's, one generation: any edit reloads the index
and its aliases start over) and kept up to date incrementally: each search reads only the texts
of turns appended since the last one (:func:`learned`).
"""

from __future__ import annotations

import re
import threading
import weakref
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from mnemo.index.vectors import VectorIndex
from mnemo.storage.ports.search import SearchSource

#: A name: one word of letters, with inner hyphens ("Mary-Jo").
_NAME = r"([^\W\d_]+(?:-[^\W\d_]+)*)"
#: What may follow a vocative name: punctuation, the end, an emoticon.
_AFTER = r"(?=\s*(?:[,.!?;:…)(]|$|-\s|[:;]-?[()DPp]|<3))"
_GREETING = (
    r"hey|hi|hiya|hello|heya|yo|howdy|thanks|thank you|thx|ty|congrats|congratulations|bye"
    r"|goodbye|cheers|good morning|good night|good evening|good afternoon|morning|evening"
    r"|night|good luck|take care|see you|see ya|welcome|welcome back|sorry|miss you|love you"
    r"|happy birthday|dear"
)
#: The vocative grammar's own words are nobody's name ("Congrats!" opens many a turn).
_CUES = frozenset(w for cue in _GREETING.split("|") for w in cue.split())
_RELATION = (
    r"sister|brother|sis|bro|mom|mum|mother|dad|father|son|daughter|kid|kids|child|baby|wife"
    r"|husband|partner|spouse|boyfriend|girlfriend|fiance|fiancé|fiancee|fiancée|friend"
    r"|buddy|pal|bestie|cousin|aunt|uncle|niece|nephew|grandma|grandpa|grandmother"
    r"|grandfather|granddaughter|grandson|boss|manager|colleague|coworker|co-worker|roommate"
    r"|flatmate|neighbor|neighbour|teacher|coach|mentor|therapist|doctor|dog|cat|puppy|kitten"
)
_STRONG_VOCATIVE = re.compile(
    r"(?:^|(?<=[\s,.!?;:(]))(?i:" + _GREETING + r")\s*,?\s+" + _NAME + _AFTER, re.MULTILINE
)
_OPENING_VOCATIVE = re.compile(r"^\s*" + _NAME + r"\s*[,!]\s")
_CLOSING_VOCATIVE = re.compile(r",\s*" + _NAME + r"\s*(?:[.!?…]+(?=\s|$)|$)")
_STRONG_SELF = re.compile(r"(?i:\bmy name(?:'s|’s| is)|\bcall me|\bthe name(?:'s|’s))\s+" + _NAME)
_WEAK_SELF = re.compile(
    r"(?i:\bI'm|\bI’m|\bI am|\bthis is|\bit's|\bit’s)\s+" + _NAME + r"(?=\s*(?:[,.!]|$|here\b))"
)
_RELATIONAL = re.compile(
    r"(?i:\b(?:my|our|your|his|her|their)\s+(?:[^\W\d_]+\s+){0,2}?(?:best\s+)?(?:"
    + _RELATION
    + r")s?)\s*,?\s+"
    + _NAME
)
_CAPITALISED = re.compile(r"(?<=[\w,;:)] )" + _NAME)  # capitalised inside a sentence
_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")  # a word, contractions whole
_TOKEN = re.compile(r"\w+")

#: How far (in index positions) the other party of an exchange is looked for.
_REACH = 12
#: The share of a name's evidence its speaker must hold.
_CONSISTENCY = 0.75


def _is_name(word: str) -> bool:
    """A capitalised word of two letters or more that is not all capitals ("OK", "I")."""
    return len(word) >= 2 and word[0].isupper() and not word.isupper()


def _weights() -> defaultdict[str, defaultdict[str, float]]:
    return defaultdict(lambda: defaultdict(float))


@dataclass
class Evidence:
    """Alias evidence summed over turns: for and against each (name, speaker), and how this
    user writes each word (capitalised inside a sentence, or in lower case)."""

    pro: defaultdict[str, defaultdict[str, float]] = field(default_factory=_weights)
    con: defaultdict[str, defaultdict[str, float]] = field(default_factory=_weights)
    inner: Counter[str] = field(default_factory=Counter)
    lower: Counter[str] = field(default_factory=Counter)

    def read(self, text: str, speaker: str, addressee: str | None) -> None:
        """Add what one turn by ``speaker`` says of its speaker and of third parties
        (``addressee``, when known, is not the third party a relational mention names)."""
        for w in _WORD.findall(text):
            if w.islower():
                self.lower[w] += 1
        inner = {w.lower() for w in _CAPITALISED.findall(text) if _is_name(w)}
        for w in inner:
            self.inner[w] += 1
        selves = set()
        for pattern, weight in ((_STRONG_SELF, 1.0), (_WEAK_SELF, 0.5)):
            for name in pattern.findall(text):
                if _is_name(name):
                    self.pro[name.lower()][speaker] += weight
                    selves.add(name.lower())
        for name in inner - selves:
            self.con[name][speaker] += 0.5  # people seldom say their own name
        for name in _RELATIONAL.findall(text):
            if _is_name(name):
                for who in (speaker, addressee):
                    if who is not None:
                        self.con[name.lower()][who] += 1.0

    def addressed(self, text: str, addressee: str) -> None:
        """Add the vocatives of one turn spoken to ``addressee``."""
        for name in _STRONG_VOCATIVE.findall(text):
            if _is_name(name):
                self.pro[name.lower()][addressee] += 1.0
        for pattern in (_OPENING_VOCATIVE, _CLOSING_VOCATIVE):
            for name in pattern.findall(text):
                if _is_name(name):
                    self.pro[name.lower()][addressee] += 0.5

    def aliases(self, speakers: set[str]) -> dict[str, str]:
        """Each alias the evidence supports -> its speaker (see the module docstring)."""
        out: dict[str, str] = {}
        taken = {w for s in speakers for w in _TOKEN.findall(s)} | _CUES  # as queries match
        for name, pro in self.pro.items():
            if name in taken or self.inner[name] <= self.lower[name]:
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
    waiting: list[tuple[int, str]] = field(default_factory=list)
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
        fresh = [p for p in range(state.upto, n) if index.tables[p] == 0 and index.name_codes[p]]
        rows = store.fetch([index.ref(p) for p in fresh])
        texts = [(p, rows[index.ref(p)]["content"]) for p in fresh if index.ref(p) in rows]
        waiting, state.waiting, state.upto = state.waiting, [], n
        for p, text in texts:
            to = addressee(index, p, n)
            state.evidence.read(text, names[int(index.name_codes[p])], names.get(to or 0))
        for p, text in waiting + texts:
            to = addressee(index, p, n)
            if to is not None:
                state.evidence.addressed(text, names[to])
            elif p + _REACH >= n:
                state.waiting.append((p, text))
        state.aliases = state.evidence.aliases(set(names.values()))
        return state.aliases


__all__ = ["Evidence", "addressee", "learned"]
