"""The SentencePiece-unigram tokenizer of multilingual-e5-small (XLM-RoBERTa's vocabulary).

Built with the ``tokenizers`` library from the vocabulary in the model file (:mod:`mnemo.
embedders.e5_read`) and saved once beside the built model, so later processes load it in a
fraction of a second. The pipeline is XLM-RoBERTa's:

1. normalise: every codepoint through the model's own normalisation map (NFKC-like, read
   from the file), then runs of spaces collapsed to one;
2. split on whitespace, each word led by the metaspace ``▁`` (U+2581);
3. the most probable segmentation of each word under the unigram scores (Viterbi); a
   character no piece covers is ``<unk>`` at the lowest score less 10;
4. ``<s> pieces </s>``, truncated to the model's limit.

Step 1 runs in Python, as a string translation table: the map has a few thousand entries, which the
library's own normalisers would turn into as many regular expressions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mnemo.embedders.e5_read import E5File
from mnemo.errors import ConfigError

_SPACES = re.compile(" {2,}")


def build_unigram(model: E5File) -> Any:
    """A ``tokenizers.Tokenizer`` for ``model``'s vocabulary (no truncation, no padding)."""
    try:
        from tokenizers import Tokenizer, models, pre_tokenizers, processors
    except ImportError:
        raise ConfigError(
            "the local embedder needs the tokenizers package: pip install tokenizers"
        ) from None
    vocab = [(p, float(s)) for p, s in zip(model.pieces, model.scores.tolist(), strict=True)]
    tok = Tokenizer(models.Unigram(vocab, model.unk, False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    bos, eos = model.pieces[model.bos], model.pieces[model.eos]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, model.bos), (eos, model.eos)],
    )
    tok.no_padding()
    return tok


class UnigramTokenizer:
    """Normalisation map + ``tokenizers`` unigram model; ``encode_batch`` as the library's
    (encodings with ``.ids``), truncated to ``max_tokens`` ids with ``<s>``/``</s>``."""

    def __init__(self, tokenizer: Any, normalize: dict[int, str], max_tokens: int | None) -> None:
        self.tokenizer = tokenizer
        self.table = normalize
        if max_tokens is not None:
            tokenizer.enable_truncation(max_length=max_tokens)

    def normal(self, text: str) -> str:
        """Step 1 of the module docstring."""
        return _SPACES.sub(" ", text.translate(self.table))

    def encode_batch(self, texts: Sequence[str]) -> list[Any]:
        """Encodings of ``texts`` (ids include ``<s>`` and ``</s>``)."""
        out: list[Any] = self.tokenizer.encode_batch([self.normal(t) for t in texts])
        return out

    def count(self, text: str) -> int:
        """Pieces of ``text``: no special tokens (no truncation when built without a limit)."""
        return len(self.tokenizer.encode(self.normal(text), add_special_tokens=False).ids)

    def save(self, stem: Path) -> None:
        """Write ``<stem>.tokenizer.json`` and ``<stem>.normalize.json``."""
        self.tokenizer.no_truncation()
        self.tokenizer.save(f"{stem}.tokenizer.json")
        Path(f"{stem}.normalize.json").write_text(
            json.dumps({str(k): v for k, v in self.table.items()}), encoding="utf-8"
        )

    @classmethod
    def load(cls, stem: Path, max_tokens: int | None) -> UnigramTokenizer:
        """The tokenizer :meth:`save` wrote at ``stem``."""
        from tokenizers import Tokenizer

        table = json.loads(Path(f"{stem}.normalize.json").read_text(encoding="utf-8"))
        tok = Tokenizer.from_file(f"{stem}.tokenizer.json")
        return cls(tok, {int(k): v for k, v in table.items()}, max_tokens)


__all__ = ["UnigramTokenizer", "build_unigram"]
