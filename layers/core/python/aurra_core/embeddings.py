"""Embedders: one small protocol, a local offline one and Amazon Titan on Bedrock.

What embedding needs is imported when the first text is embedded, not with this module, which
every function imports through the service: numpy (the functions that never embed, such as
settings, audit and the authorizer, never load it; the ones that embed on most requests load
it at their start, `load_vector_math`), and the local embedder's text analysis (which the
functions in AWS, embedding with Titan, never need).
"""

from __future__ import annotations

import itertools
import json
import zlib
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from aurra_core.config import ServiceConfig, get_config

if TYPE_CHECKING:
    import numpy as np


def load_vector_math() -> None:
    """Import numpy now rather than in the first `embed` (about 60 ms of a cold start)."""
    import numpy  # noqa: F401


class Embedder(Protocol):
    dim: int

    def embed(self, text: str) -> np.ndarray:
        """A unit-length float32 vector of `dim` dimensions."""
        ...


class LexicalEmbedder:
    """Offline, deterministic, dependency-free: signed feature hashing of stemmed content
    words (weighted) and their character trigrams (so "Emacs"/"emacs," and "relocated"/
    "relocating" still meet). Facts about the same subject and attribute share words, which
    is what candidate search needs; `aurra eval` measures how often the right one is found.
    """

    name = "local-lexical-v2"

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def _add(self, vec: np.ndarray, feature: str, weight: float) -> None:
        h = zlib.crc32(feature.encode())
        vec[h % self.dim] += weight if (h >> 31) & 1 else -weight

    def embed(self, text: str) -> np.ndarray:
        import numpy as np

        from aurra_core.text import content_terms

        vec = np.zeros(self.dim, dtype=np.float32)
        terms = content_terms(text)
        for term in terms:
            self._add(vec, "w:" + term, 1.0)
            padded = f"<{term}>"
            for i in range(len(padded) - 2):
                self._add(vec, "c:" + padded[i : i + 3], 0.25)
        for a, b in itertools.pairwise(terms):
            self._add(vec, f"b:{a} {b}", 0.5)
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            vec[0] = 1.0
            return vec
        return vec / norm


class BedrockTitanEmbedder:
    """Amazon Titan Text Embeddings V2 (256, 512 or 1024 dimensions, normalised)."""

    name = "amazon.titan-embed-text-v2:0"

    def __init__(self, dim: int, client: Any = None) -> None:
        if dim not in (256, 512, 1024):
            raise ValueError("Titan Text Embeddings V2 supports 256, 512 or 1024 dimensions")
        self.dim = dim
        self._client = client

    def _bedrock(self) -> Any:
        if self._client is None:
            import boto3

            self._client = boto3.client("bedrock-runtime")
        return self._client

    def embed(self, text: str) -> np.ndarray:
        response = self._bedrock().invoke_model(
            modelId=self.name,
            contentType="application/json",
            accept="application/json",
            body=json.dumps({"inputText": text, "dimensions": self.dim, "normalize": True}),
        )
        payload = json.loads(response["body"].read())
        import numpy as np

        return np.asarray(payload["embedding"], dtype=np.float32)


def create_embedder(config: ServiceConfig) -> Embedder:
    if config.embedder == "bedrock":
        return BedrockTitanEmbedder(config.embedding_dim)
    if config.embedder == "minilm":
        from aurra_core.minilm import MiniLMEmbedder  # weights load on the first embed()

        if config.embedding_dim != MiniLMEmbedder.dim:
            raise ValueError(
                f"the minilm embedder has {MiniLMEmbedder.dim} dimensions, "
                f"not AURRA_EMBEDDING_DIM={config.embedding_dim}"
            )
        return MiniLMEmbedder()
    return LexicalEmbedder(config.embedding_dim)


@lru_cache(maxsize=1)
def get_embedder() -> Embedder:
    return create_embedder(get_config())
