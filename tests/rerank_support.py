"""A tiny cross-encoder built by a test (none can be downloaded): shared by the reranker tests.

A 2-layer BERT (hidden 32) whose weights are set by hand so that its logit grows with the share
of the word "pizza" in the (query, passage) pair. Its first layer attends uniformly, so the [CLS]
vector averages the tokens; only "pizza" has a component on dimension 0, and the classifier
reads that dimension (plus ``bias``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

WORD = "pizza"
_WORDS = "pizza pasta salad soup bread cheese hiking music guitar dog cat paris what do i like to"
VOCAB = [*_WORDS.split(), "eat", "my", "favourite", "food", "and", "love", "the", "with", "on"]
VOCAB += ["weekends", "play"]


def build_tiny_cross_encoder(path: Path, bias: float = 0.0) -> None:
    """Save a 2-layer BERT cross-encoder whose logit grows with the share of WORD in the pair
    (a pair without WORD scores ``bias``)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokenizer = transformers.BertTokenizerFast(vocab={w: i for i, w in enumerate(specials + VOCAB)})
    h = 32
    config = transformers.BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=h,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        num_labels=1,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    model = transformers.BertForSequenceClassification(config)
    eye = torch.eye(h)
    with torch.no_grad():
        emb = model.bert.embeddings
        words = torch.randn(len(tokenizer), h, generator=torch.Generator().manual_seed(0))
        words[:, 0] = 0.0
        words[tokenizer.convert_tokens_to_ids(WORD), 0] = 8.0
        emb.word_embeddings.weight.copy_(words)
        emb.position_embeddings.weight.zero_()
        emb.token_type_embeddings.weight.zero_()
        for i, layer in enumerate(model.bert.encoder.layer):
            att = layer.attention
            att.self.query.weight.zero_()  # every query is 0: uniform attention
            att.self.query.bias.zero_()
            att.self.value.weight.copy_(eye)
            att.self.value.bias.zero_()
            att.output.dense.weight.copy_(eye if i == 0 else torch.zeros(h, h))
            att.output.dense.bias.zero_()
            layer.output.dense.weight.zero_()  # feed-forward adds nothing
            layer.output.dense.bias.zero_()
        model.bert.pooler.dense.weight.copy_(eye)
        model.bert.pooler.dense.bias.zero_()
        model.classifier.weight.zero_()
        model.classifier.weight[0, 0] = 4.0
        model.classifier.bias.fill_(bias)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
