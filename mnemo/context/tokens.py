"""Token counting with no network call.

``tiktoken`` cannot fetch its files offline, so mnemo counts tokens with the local embedder's
word-piece tokenizer when it is ready (always for the ONNX ``local`` embedder, once the model is
loaded for ``sentence-transformers``), and otherwise with a calibrated estimate
(:func:`estimate_tokens`). Either way a count is an approximation of what the chat model sees;
budgets leave the difference as headroom.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

TokenCounter = Callable[[str], int]

_WORD = re.compile(r"\w+|[^\w\s]", re.UNICODE)

#: Tokens per word or punctuation mark, and per character, fitted on the 2,760 LoCoMo dev turns
#: against the all-MiniLM-L6-v2 word-piece tokenizer: total 1.02x the true count, mean
#: absolute error 4.3% per turn, 0.7% of turns undercounted by more than 10%.
TOKENS_PER_WORD = 1.02
TOKENS_PER_CHAR = 0.2


def estimate_tokens(text: str) -> int:
    """Calibrated token estimate: ``ceil(max(1.02 x pieces, 0.2 x chars))``.

    ``pieces`` counts words and punctuation marks; the character term covers text without
    spaces (URLs, code, CJK), where word counts undershoot.

    >>> estimate_tokens("I adopted a cat named Luna.")
    8
    >>> estimate_tokens("")
    0
    """
    if not text:
        return 0
    pieces = len(_WORD.findall(text))
    return math.ceil(max(TOKENS_PER_WORD * pieces, TOKENS_PER_CHAR * len(text)))


def loaded_tokenizer(embedder: Any) -> TokenCounter | None:
    """The embedder's ``count_tokens`` when its tokenizer is ready (``tokenizer_loaded``).

    The ONNX ``local`` embedder's tokenizer is built from a vendored vocabulary and is always
    ready; a sentence-transformers model is ready only once loaded -- loading a model just to
    count tokens would cost seconds.
    """
    counter: Callable[[str], int] | None = getattr(embedder, "count_tokens", None)
    if counter is None or not getattr(embedder, "tokenizer_loaded", False):
        return None
    return counter


def token_counter(embedder: Any = None) -> TokenCounter:
    """The best offline counter available for ``embedder``: its tokenizer, else the estimate."""
    return loaded_tokenizer(embedder) or estimate_tokens


__all__ = ["TokenCounter", "estimate_tokens", "loaded_tokenizer", "token_counter"]
