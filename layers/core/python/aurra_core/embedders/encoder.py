"""The numpy transformer encoder that MiniLM and MPNet run: weights, forward pass, pooling.

A sentence-transformer model here is a BERT-like encoder (multi-head self-attention, erf GELU,
post-LayerNorm) whose last hidden states are averaged under the attention mask and
L2-normalised, in float32. What differs between the models is configuration (`EncoderSpec`):
sizes, the LayerNorm eps, the names of the attention weights, token types (MiniLM's BERT has
them; one segment, so type 0 everywhere), positions counted from the padding id + 1 and a
relative position bias shared by every layer (MPNet), and how texts are batched (kept per
model so that every embedding keeps the bits it had). Each model's module says where its
files come from; this one reads them and computes.

Nothing here runs at import but numpy's own import; the weights and tokenizer load on a
model's first embed() and are kept for the life of the process (`cached_model`).
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pgvector import Vector

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


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    normalised: np.ndarray = centred / np.sqrt(var + np.float32(eps)) * weight + bias
    return normalised


def relative_position_bucket(relative: np.ndarray, buckets: int = 32, max_distance: int = 128) -> np.ndarray:
    """MPNet's (and T5's) buckets of key position minus query position: half the buckets for
    each direction, exact up to a quarter of them (8 of 32), then logarithmic up to
    `max_distance`."""
    half = buckets // 2
    n = -relative
    bucket = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    max_exact = half // 2
    safe = np.maximum(n, 1).astype(np.float32)
    large = max_exact + (
        np.log(safe / max_exact) / math.log(max_distance / max_exact) * (half - max_exact)
    ).astype(np.int64)
    large = np.minimum(large, half - 1)
    result: np.ndarray = bucket + np.where(n < max_exact, n, large)
    return result


@dataclass(frozen=True)
class EncoderSpec:
    """What one model's encoder is: checked against its config.json when it loads."""

    embedder: str  # the AURRA_EMBEDDER value, for error messages
    hidden: int
    heads: int
    layers: int
    layer_norm_eps: float
    max_seq_length: int  # unless the model's sentence_bert_config.json says otherwise
    default_pad_id: int
    # The weights of a layer's attention under `encoder.layer.<i>.`: query, key, value, the
    # output projection, and the LayerNorm after it.
    attention_weights: tuple[str, str, str, str, str]
    token_types: bool = False  # BERT's token type embeddings (one segment: type 0)
    positions_after_padding: bool = False  # position ids from pad_id + 1 (RoBERTa, MPNet)
    relative_buckets: int = 0  # a relative position bias of this many buckets; 0: none
    relative_max_distance: int = 128
    # Batches by token count: at most batch_size a batch, and, if set, the longest text at most
    # about twice the shortest (less time spent on padding).
    batch_by_length_spread: bool = False
    expected_config: Mapping[str, Any] = field(default_factory=dict)  # more config.json values

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


@dataclass(frozen=True)
class _Layer:
    qkv_w: np.ndarray  # (hidden, 3 * hidden): query, key and value projections side by side, for x @ w
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


class EncoderModel:
    """The loaded tokenizer and encoder weights of one model, from its files' bytes
    (config.json, tokenizer.json, model.safetensors, and sentence_bert_config.json if given)."""

    def __init__(self, spec: EncoderSpec, files: Mapping[str, bytes], source: str) -> None:
        try:
            from tokenizers import Tokenizer
        except ModuleNotFoundError as exc:
            raise RuntimeError(
                f"the {spec.embedder} embedder needs the tokenizers package: pip install tokenizers"
            ) from exc

        self.spec = spec
        config = json.loads(files["config.json"])
        expected = dict(
            hidden_size=spec.hidden,
            num_attention_heads=spec.heads,
            num_hidden_layers=spec.layers,
            hidden_act="gelu",
            **spec.expected_config,
        )
        for key, value in expected.items():
            if config.get(key) != value:
                raise ValueError(f"{source}/config.json: {key} is {config.get(key)!r}, expected {value!r}")
        max_length = spec.max_seq_length
        if "sentence_bert_config.json" in files:
            st_config = json.loads(files["sentence_bert_config.json"])
            max_length = int(st_config.get("max_seq_length", max_length))
        self.max_length = min(max_length, int(config.get("max_position_embeddings", 512)))

        tokenizer = Tokenizer.from_str(files["tokenizer.json"].decode())
        tokenizer.no_padding()  # a file may pad every input to a fixed length; batches are padded here
        tokenizer.enable_truncation(max_length=self.max_length)
        self.tokenizer = tokenizer
        self.pad_id = int(config.get("pad_token_id", spec.default_pad_id))

        w = parse_safetensors(files["model.safetensors"], f"{source}/model.safetensors")

        def f32(name: str) -> np.ndarray:
            return np.asarray(w[name], dtype=np.float32)

        def dense_t(name: str) -> np.ndarray:
            # stored as (out, in): x @ weight.T, a transposed view that BLAS reads as it is
            return f32(name + ".weight").T

        self.word = f32("embeddings.word_embeddings.weight")
        self.position = f32("embeddings.position_embeddings.weight")
        self.token_type = f32("embeddings.token_type_embeddings.weight") if spec.token_types else None
        self.emb_ln_w = f32("embeddings.LayerNorm.weight")
        self.emb_ln_b = f32("embeddings.LayerNorm.bias")
        self.relative_bias = (
            f32("encoder.relative_attention_bias.weight") if spec.relative_buckets else None
        )  # (buckets, heads)
        query, key, value, attn_out, attn_ln = spec.attention_weights
        self.layers: list[_Layer] = []
        for i in range(spec.layers):
            p = f"encoder.layer.{i}."
            self.layers.append(
                _Layer(
                    qkv_w=np.concatenate([dense_t(p + query), dense_t(p + key), dense_t(p + value)], axis=1),
                    qkv_b=np.concatenate(
                        [f32(p + query + ".bias"), f32(p + key + ".bias"), f32(p + value + ".bias")]
                    ),
                    attn_out_w=dense_t(p + attn_out),
                    attn_out_b=f32(p + attn_out + ".bias"),
                    attn_ln_w=f32(p + attn_ln + ".weight"),
                    attn_ln_b=f32(p + attn_ln + ".bias"),
                    inter_w=dense_t(p + "intermediate.dense"),
                    inter_b=f32(p + "intermediate.dense.bias"),
                    out_w=dense_t(p + "output.dense"),
                    out_b=f32(p + "output.dense.bias"),
                    out_ln_w=f32(p + "output.LayerNorm.weight"),
                    out_ln_b=f32(p + "output.LayerNorm.bias"),
                )
            )

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids with the model's start and end tokens, truncated to its maximum length."""
        return [e.ids for e in self.tokenizer.encode_batch([t.strip() for t in texts])]

    def pad(self, token_ids: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
        """Token ids and attention mask, padded on the right to the longest."""
        length = max(len(t) for t in token_ids)
        ids = np.full((len(token_ids), length), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(token_ids), length), dtype=np.float32)
        for row, t in enumerate(token_ids):
            ids[row, : len(t)] = t
            mask[row, : len(t)] = 1.0
        return ids, mask

    def encode(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Last hidden states, (batch, seq, hidden) float32."""
        spec = self.spec
        batch, seq = ids.shape
        if spec.positions_after_padding:
            positions = (np.cumsum(mask, axis=1) * mask).astype(np.int64) + self.pad_id
            x = self.word[ids] + self.position[positions]
        else:
            x = self.word[ids] + self.position[:seq][None, :, :]
        if self.token_type is not None:
            x += self.token_type[0]  # one segment: type 0 for every token
        x = layer_norm(x, self.emb_ln_w, self.emb_ln_b, spec.layer_norm_eps).reshape(batch * seq, spec.hidden)
        position_bias = None
        if self.relative_bias is not None:
            steps = np.arange(seq)
            buckets = relative_position_bucket(
                steps[None, :] - steps[:, None], spec.relative_buckets, spec.relative_max_distance
            )
            position_bias = np.ascontiguousarray(self.relative_bias[buckets].transpose(2, 0, 1))[None]
        # additive mask over the keys: 0 where attended, the float32 minimum where padded
        key_mask = ((1.0 - mask) * np.finfo(np.float32).min).astype(np.float32)[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(spec.head_dim))
        for layer in self.layers:
            qkv = x @ layer.qkv_w  # (batch*seq, 3 * hidden)
            qkv += layer.qkv_b
            qkv = qkv.reshape(batch, seq, 3, spec.heads, spec.head_dim).transpose(2, 0, 3, 1, 4)
            # contiguous (batch, heads, seq, head_dim) blocks keep the stacked products on BLAS
            q = np.ascontiguousarray(qkv[0])
            q *= scale
            k_t = np.ascontiguousarray(qkv[1].transpose(0, 1, 3, 2))
            v = np.ascontiguousarray(qkv[2])
            scores = q @ k_t  # (batch, heads, seq, seq)
            if position_bias is not None:
                scores += position_bias
            scores += key_mask
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * seq, spec.hidden)
            attn = context @ layer.attn_out_w
            attn += layer.attn_out_b
            attn += x
            x = layer_norm(attn, layer.attn_ln_w, layer.attn_ln_b, spec.layer_norm_eps)
            inter = x @ layer.inter_w
            inter += layer.inter_b
            out = gelu(inter) @ layer.out_w
            out += layer.out_b
            out += x
            x = layer_norm(out, layer.out_ln_w, layer.out_ln_b, spec.layer_norm_eps)
        states: np.ndarray = x.reshape(batch, seq, spec.hidden)
        return states

    def embed_ids(self, token_ids: Sequence[Sequence[int]]) -> np.ndarray:
        """Mean pooling under the attention mask, then L2 normalisation: (batch, hidden) float32."""
        ids, mask = self.pad(token_ids)
        hidden = self.encode(ids, mask)
        summed = (hidden * mask[:, :, None]).sum(axis=1)
        counts = np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        pooled = summed / counts
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        embeddings: np.ndarray = (pooled / norms).astype(np.float32)
        return embeddings

    def batches(self, token_ids: Sequence[Sequence[int]], batch_size: int) -> list[list[int]]:
        """Indices of the texts, shortest first, in batches of at most batch_size (and, if the
        spec says so, of lengths within about twice the shortest)."""
        order = sorted(range(len(token_ids)), key=lambda i: len(token_ids[i]))
        if not self.spec.batch_by_length_spread:
            return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]
        batches: list[list[int]] = [[]]
        for i in order:
            batch = batches[-1]
            if batch and (len(batch) == batch_size or len(token_ids[i]) > 2 * len(token_ids[batch[0]]) + 8):
                batches.append([i])
            else:
                batch.append(i)
        return batches


_models: dict[object, EncoderModel] = {}
_models_lock = threading.Lock()


def cached_model(key: object, load: Callable[[], EncoderModel]) -> EncoderModel:
    """The model loaded under `key`, loaded by `load` once per process."""
    model = _models.get(key)
    if model is None:
        with _models_lock:
            model = _models.get(key)
            if model is None:
                model = load()
                _models[key] = model
    return model


class EncoderEmbedder:
    """An embedder on an EncoderModel: unit float32 vectors of `dim` dimensions. Subclasses say
    where the model comes from (`_model`); it loads on first use."""

    name: str
    dim: int

    def __init__(self, batch_size: int = 32) -> None:
        self.batch_size = batch_size

    def _model(self) -> EncoderModel:
        raise NotImplementedError

    def load(self) -> None:
        """Read the weights and tokenizer now rather than on the first embed()."""
        self._model()

    def embed(self, text: str) -> Vector:
        model = self._model()
        return Vector(model.embed_ids(model.tokenize([text]))[0])

    def embed_many(self, texts: Iterable[str]) -> np.ndarray:
        """(n, dim) float32 unit vectors, in the input order, batched by token count so that
        little time goes to padding."""
        texts = list(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        model = self._model()
        token_ids = model.tokenize(texts)
        for batch in model.batches(token_ids, self.batch_size):
            out[batch] = model.embed_ids([token_ids[j] for j in batch])
        return out
