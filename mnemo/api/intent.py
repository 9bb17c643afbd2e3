"""`llmplatform`'s intent detection: keywords first, then the nearest prototype by embedding."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from mnemo.embedders import Embedder

#: Keywords per intent, checked in this order (the first intent with a match wins).
KEYWORDS: dict[str, tuple[str, ...]] = {
    "memory_recall": (
        "remember", "recall", "did i", "have i", "my name", "what's my", "what is my",
        "who am i", "do you know", "last time", "we discussed", "we talked", "earlier",
        "told you", "i said", "mentioned",
    ),
    "writing": ("write", "draft", "compose", "rewrite", "summarize", "summarise", "poem", "email"),
    "greeting": ("hello", "hi", "hey", "good morning", "good evening", "thanks", "thank you"),
}  # fmt: skip

#: Example sentences per intent for the embedding-based fallback.
PROTOTYPES: dict[str, tuple[str, ...]] = {
    "memory_recall": (
        "what did I tell you about my family",
        "what do you know about me",
        "which places did I visit",
    ),
    "writing": ("write a short story for me", "draft a message to my colleague"),
    "greeting": ("hello there, how are you", "thanks a lot"),
    "question": ("what is the capital of France", "how does photosynthesis work"),
}

#: Intents that need the user's memory.
NEEDS_MEMORY = {"memory_recall", "writing", "question"}
MIN_SIMILARITY = 0.3


@dataclass
class Intent:
    """The detected intent, whether memory is needed and why."""

    name: str
    need_memory: bool
    reason: str


def keyword_intent(query: str) -> tuple[str, str] | None:
    """``(intent, keyword)`` of the first keyword found as whole words, or None."""
    text = " ".join(re.findall(r"[\w']+", query.lower()))
    padded = f" {text} "
    for intent, words in KEYWORDS.items():
        for word in words:
            if f" {word} " in padded:
                return intent, word
    return None


def embedding_intent(query: str, embedder: Embedder) -> tuple[str, float]:
    """The intent whose prototype is nearest to ``query`` by cosine, and that cosine."""
    names = [n for n, examples in PROTOTYPES.items() for _ in examples]
    texts = [t for examples in PROTOTYPES.values() for t in examples]
    vecs = embedder.embed([query, *texts])
    norms = np.linalg.norm(vecs, axis=1) + 1e-12
    sims = (vecs[1:] @ vecs[0]) / (norms[1:] * norms[0])
    best = int(np.argmax(sims))
    return names[best], float(sims[best])


def detect(query: str, embedder: Embedder, use_memory: bool = True) -> Intent:
    """Keyword intent, else embedding intent (>= 0.3 cosine), else ``question``/``chat``."""
    found = keyword_intent(query)
    if found is not None:
        name, reason = found[0], f"keyword {found[1]!r}"
    else:
        name, sim = embedding_intent(query, embedder)
        reason = f"embedding nearest to {name} ({sim:.2f})"
        if sim < MIN_SIMILARITY:
            name = "question" if query.rstrip().endswith("?") else "chat"
            reason = f"no keyword, no prototype above {MIN_SIMILARITY}"
    need = name in NEEDS_MEMORY
    if not use_memory:
        return Intent(name, False, "use_memory is false")
    why = "needs the user's memory" if need else "answered without memory"
    return Intent(name, need, f"{name}: {reason}; {why}")
