"""Extractive summaries: the rule-based fallback of every summarising tier (no LLM).

A summary is made of sentences taken verbatim from the turns, chosen by
:func:`sentence_score`, kept in conversation order and labelled with their speaker:

* :func:`session_summary` (`llmplatform`'s rule-based summary): Q&A pairs plus key points;
* :func:`episode_summary` (`tiered`'s compressed turns): the key points as one paragraph;
* :func:`rolling_summary` (`agent-cli`'s per-conversation summary): the previous key points plus
  the new batch's, the oldest dropped beyond a cap;
* :func:`excerpt`: the part of one long turn that a query is about (context bundles).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from mnemo.schemas import Message
from mnemo.text.profile_rules import PATTERNS
from mnemo.text.sentences import sentences

_CUES = re.compile(
    r"\b(?:decided|decide|plan|plans|planned|planning|going to|will|prefer|want|wants|need|"
    r"needs|must|"
    r"should|deadline|because|started|finished|bought|moved|adopted|visited|joined|won|lost|"
    r"love|loved|favorite|favourite|important|remember|always|never|agreed|chose|booked)\b",
    re.IGNORECASE,
)
_CAPITALISED = re.compile(r"(?<=\s)[A-Z][a-zA-Z'\-]+")
_DIGIT = re.compile(r"\d")
QA_CHARS = 120
POINT_CHARS = 200


def sentence_score(sentence: str) -> float:
    """How much a sentence is worth keeping in an extractive summary::

    score = 2.0 * [a first-person profile pattern matches]
          + 1.0 * [contains a digit]
          + 0.5 * min(capitalised words after the first, 4)
          + 1.0 * [contains a plan/decision/preference cue word]
          + 0.25 * min(words / 10, 2)
          - 2.0 * [fewer than 4 words]
          - 1.0 * [is a question]
    """
    words = sentence.split()
    score = 2.0 * any(p.regex.search(sentence) for p in PATTERNS)
    score += 1.0 * bool(_DIGIT.search(sentence))
    score += 0.5 * min(len(_CAPITALISED.findall(sentence)), 4)
    score += 1.0 * bool(_CUES.search(sentence))
    score += 0.25 * min(len(words) / 10, 2.0)
    score -= 2.0 * (len(words) < 4)
    score -= 1.0 * sentence.rstrip().endswith("?")
    return score


def speaker(message: Message) -> str:
    """The label of a turn in a summary: its name, else its role."""
    return message.name or message.role


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def key_points(messages: Sequence[Message], limit: int, min_score: float = 0.5) -> list[str]:
    """The ``limit`` best-scoring sentences (score >= ``min_score``) as ``speaker: sentence``,
    in conversation order; ties go to the later sentence."""
    scored = []
    for i, m in enumerate(messages):
        for j, s in enumerate(sentences(m.content)):
            scored.append((sentence_score(s), (i, j), f"{speaker(m)}: {_cut(s, POINT_CHARS)}"))
    best = sorted(scored, key=lambda x: (-x[0], -x[1][0], -x[1][1]))[:limit]
    return [text for score, _, text in sorted(best, key=lambda x: x[1]) if score >= min_score]


def qa_pairs(messages: Sequence[Message], limit: int = 3) -> list[tuple[str, str]]:
    """Up to ``limit`` (question, answer) pairs: a user turn and the assistant turn after it,
    the most recent kept; questions ("?") preferred. Each side is its first sentence (the
    first question for the user side), shortened."""
    pairs = []
    for prev, nxt in itertools.pairwise(messages):
        if prev.role == "user" and nxt.role == "assistant":
            asked = [s for s in sentences(prev.content) if s.endswith("?")]
            q = (asked or sentences(prev.content) or [prev.content])[0]
            a = (sentences(nxt.content) or [nxt.content])[0]
            pairs.append((bool(asked), _cut(q, QA_CHARS), _cut(a, QA_CHARS)))
    chosen = [p for p in pairs if p[0]][-limit:] or pairs[-limit:]
    return [(q, a) for _, q, a in chosen]


def session_summary(messages: Sequence[Message], points: int = 4) -> str:
    """`llmplatform`'s rule-based summary: Q&A pairs and key points, as bullet lines."""
    lines = [f"- Q: {q} A: {a}" for q, a in qa_pairs(messages)]
    lines += [f"- {p}" for p in key_points(messages, points)]
    if not lines:
        lines = [f"- {speaker(m)}: {_cut(m.content, POINT_CHARS)}" for m in messages[-2:]]
    return "\n".join(lines)


def episode_summary(messages: Sequence[Message], points: int = 4, max_chars: int = 800) -> str:
    """`tiered`'s compressed turns without an LLM: the key points as one paragraph."""
    chosen = key_points(messages, points) or [
        f"{speaker(m)}: {_cut(m.content, POINT_CHARS)}" for m in messages[:2]
    ]
    text = " ".join(p if p.endswith((".", "!", "?", "…")) else p + "." for p in chosen)
    return _cut(text, max_chars)


def rolling_summary(prior: str | None, messages: Sequence[Message], max_points: int) -> str:
    """`agent-cli`'s summary without an LLM: the previous bullet points plus up to three new key
    points of ``messages`` (no repeats), keeping the newest ``max_points``."""
    old = [line[2:] for line in (prior or "").splitlines() if line.startswith("- ")]
    seen = set(old)
    new = [p for p in key_points(messages, 3) if p not in seen]
    return "\n".join(f"- {p}" for p in [*old, *new][-max_points:])


_TERM = re.compile(r"[^\W_]+", re.UNICODE)
#: Characters of a query term that must match the start of a word (a crude stem: "paint"
#: matches "painting" and "painted").
STEM_CHARS = 5


def _stems(text: str) -> set[str]:
    return {w[:STEM_CHARS] for w in _TERM.findall(text.lower())}


def excerpt(text: str, terms: Sequence[str], chars: int) -> str:
    """The sentences of ``text`` a query is about, within about ``chars`` characters.

    A text that fits is returned whole. Otherwise the sentence sharing the most query
    ``terms`` (compared on their first :data:`STEM_CHARS` letters; the first sentence on a
    tie or when none shares any) is kept with its neighbours, the next one first, while they
    fit; ``…`` marks what was cut at either end. A single sentence longer than ``chars`` is
    cut at ``chars``.
    """
    text = " ".join(text.split())
    if len(text) <= chars:
        return text
    parts = sentences(text)
    if len(parts) <= 1:
        return _cut(text, chars)
    wanted = {t.lower()[:STEM_CHARS] for t in terms}
    overlap = [len(_stems(p) & wanted) for p in parts]
    best = max(range(len(parts)), key=lambda i: (overlap[i], -i))
    lo = hi = best
    size = len(parts[best])
    while True:
        grown = False
        for j in (hi + 1, lo - 1):
            if 0 <= j < len(parts) and size + 1 + len(parts[j]) <= chars:
                size += 1 + len(parts[j])
                lo, hi = min(lo, j), max(hi, j)
                grown = True
                break
        if not grown:
            break
    body = _cut(" ".join(parts[lo : hi + 1]), chars)
    return ("… " if lo > 0 else "") + body + (" …" if hi < len(parts) - 1 else "")


__all__ = [
    "episode_summary",
    "excerpt",
    "key_points",
    "qa_pairs",
    "rolling_summary",
    "sentence_score",
    "session_summary",
]
