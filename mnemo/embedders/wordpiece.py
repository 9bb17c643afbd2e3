"""The lower-cased WordPiece tokenizer of the bundled MiniLM models, built from a vendored vocab.

The ONNX weight packages carry weights only, so the tokenizer is assembled here with the
``tokenizers`` library from ``data/wordpiece-uncased-vocab.txt`` (BERT-base-uncased, 30,522
entries, Apache-2.0; see ``data/NOTICE``). The pipeline is BERT's: clean the text, split CJK
characters, lower-case and strip accents (``naïve`` -> ``naive``, as in the models' own
``tokenizer.json``), split on whitespace and punctuation, WordPiece with ``##`` continuations,
then ``[CLS] text [SEP]``.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

from mnemo.errors import ConfigError

#: Special token ids of the vocabulary.
PAD_ID, UNK_ID, CLS_ID, SEP_ID = 0, 100, 101, 102


def vocab_path() -> str:
    """Path of the vendored vocabulary file (one token per line, line number = id)."""
    return str(resources.files("mnemo.embedders").joinpath("data/wordpiece-uncased-vocab.txt"))


def _tokenizers() -> Any:
    try:
        import tokenizers
    except ImportError:
        raise ConfigError(
            "the local embedder needs the tokenizers package: pip install tokenizers"
        ) from None
    return tokenizers


def _build() -> Any:
    tk = _tokenizers()
    from tokenizers import decoders, models, normalizers, pre_tokenizers, processors

    tok = tk.Tokenizer(models.WordPiece.from_file(vocab_path(), unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", CLS_ID), ("[SEP]", SEP_ID)],
    )
    tok.decoder = decoders.WordPiece(prefix="##")
    tok.no_padding()
    return tok


@functools.cache
def wordpiece_tokenizer(max_tokens: int | None = None) -> Any:
    """A ``tokenizers.Tokenizer`` truncating to ``max_tokens`` ids (``[CLS]``/``[SEP]`` included).

    ``None`` does not truncate (for counting). Cached per length: the object is not changed
    after this call and is safe to share across threads. Padding is off; the embedder pads each
    batch to its own longest text.
    """
    tok = _build()
    if max_tokens is not None:
        tok.enable_truncation(max_length=max_tokens)
    return tok


def count_wordpieces(text: str) -> int:
    """Word pieces of ``text``: no special tokens, no truncation."""
    return len(wordpiece_tokenizer(None).encode(text, add_special_tokens=False).ids)


__all__ = [
    "CLS_ID",
    "PAD_ID",
    "SEP_ID",
    "UNK_ID",
    "count_wordpieces",
    "vocab_path",
    "wordpiece_tokenizer",
]
