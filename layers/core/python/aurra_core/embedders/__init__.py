"""Embedders: one small protocol, a local offline one, Amazon Titan on Bedrock, the factory;
and, in this package's `minilm` and `mpnet` modules, two offline sentence models in numpy.

An embedding is a pgvector `Vector` (float32, as the `vector` column stores it), which the
database adapters bind as it is and which needs no numpy: the functions that embed on every
request (write, query, supersede) would otherwise load numpy at each cold start, about 80 ms
of CPU, for one vector per request that nothing but the database does arithmetic on. The
local embedder's text analysis is imported at its first embedding (the functions in AWS embed
with Titan and never need it); MiniLM and MPNet, local only, compute in numpy and are imported
(with numpy) only when the configuration names them. What every handler imports stays in this
one module: a module more is a file more to find and read at each cold start.
"""

from __future__ import annotations

import itertools
import json
import math
import zlib
from array import array
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from pgvector import Vector

from aurra_core.runtime.config import ServiceConfig, get_config

if TYPE_CHECKING:
    from aurra_core.runtime.worker_processes import WorkerProcesses


class Embedder(Protocol):
    dim: int

    def embed(self, text: str) -> Vector:
        """A unit-length float32 vector of `dim` dimensions."""
        ...


def _feature(feature: str, weight: float, dim: int) -> tuple[int, float]:
    """A feature's component (signed feature hashing: its CRC-32 picks the component and the sign)."""
    h = zlib.crc32(feature.encode())
    return h % dim, weight if (h >> 31) & 1 else -weight


# A term's word and trigram features are the same wherever it occurs: hashed once (about 1 kB a
# term held). Half of the lexical embedder's time after the normaliser was the hashing, and most
# terms recur (an import of 20,000 facts holds a few thousand distinct ones).
@lru_cache(maxsize=16384)
def _term_features(term: str, dim: int) -> tuple[tuple[int, float], ...]:
    padded = f"<{term}>"
    return (
        _feature("w:" + term, 1.0, dim),
        *(_feature("c:" + padded[i : i + 3], 0.25, dim) for i in range(len(padded) - 2)),
    )


class LexicalEmbedder:
    """Offline, deterministic, dependency-free: signed feature hashing of stemmed content
    words (weighted) and their character trigrams (so "Emacs"/"emacs," and "relocated"/
    "relocating" still meet). Facts about the same subject and attribute share words, which
    is what candidate search needs; `aurra eval` measures how often the right one is found.
    """

    name = "local-lexical-v2"

    def __init__(self, dim: int, processes: WorkerProcesses | None = None) -> None:
        self.dim = dim
        self.processes = processes
        if processes is not None:
            processes.preload("aurra_core.text_analysis.text")  # the normaliser's lexicons

    def embed_many(self, texts: list[str]) -> list[Vector]:
        """The texts' vectors, in one of the server's worker processes when it has them (a
        batch's hundred facts embed beside the server's other work instead of taking turns with
        it at one interpreter: a third of a batch write's CPU), else here."""
        if self.processes is not None and len(texts) > 1:
            embedded = self.processes.run(_embedded_lexically, self.dim, texts)
            if embedded is not None:
                return [Vector.from_binary(vector) for vector in embedded]
        return [self.embed(text) for text in texts]

    def embed(self, text: str) -> Vector:
        from aurra_core.text_analysis.text import content_terms

        # float32 throughout, as numpy computed it before: every component is a multiple of
        # 0.25, so the sums and the sum of squares are exact (in float32 as in a Python float,
        # in any order) and the norm and the quotients round as float32 arithmetic rounds them
        # (the same bits, checked in tests/unit). A text touches a hundred or so of the
        # components: they are summed, squared and divided alone (most of the embedder's own
        # time went to the other zeros).
        components: dict[int, float] = {}
        terms = content_terms(text)
        for term in terms:
            for index, weight in _term_features(term, self.dim):
                components[index] = components.get(index, 0.0) + weight
        for a, b in itertools.pairwise(terms):
            index, weight = _feature(f"b:{a} {b}", 0.5, self.dim)
            components[index] = components.get(index, 0.0) + weight
        vec = [0.0] * self.dim
        norm = array("f", [math.sqrt(math.fsum(x * x for x in components.values()))])[0]
        if norm == 0.0:
            vec[0] = 1.0
            return Vector(vec)
        for index, component in components.items():
            vec[index] = component / norm
        return Vector(vec)


def _embedded_lexically(dim: int, texts: list[str]) -> list[bytes]:
    """In a worker process: the texts' lexical vectors, in pgvector's binary form (a few bytes
    to send back, where a list of floats would be several times more to pickle)."""
    embedder = LexicalEmbedder(dim)
    return [embedder.embed(text).to_binary() for text in texts]


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

    def embed(self, text: str) -> Vector:
        response = self._bedrock().invoke_model(
            modelId=self.name,
            contentType="application/json",
            accept="application/json",
            body=json.dumps({"inputText": text, "dimensions": self.dim, "normalize": True}),
        )
        payload = json.loads(response["body"].read())
        return Vector(payload["embedding"])


class ReadInEnglish:
    """An offline embedder, which knows English only, given a memory kept as said in Spanish,
    French, German, Portuguese, Dutch or Italian, embeds it as the extractor's phrase tables
    read it ("User said: ik ben verhuisd naar Leiden" as "User said: I moved to Leiden"), so an
    English question finds it; the memory's content stays the user's words."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.dim = embedder.dim
        self.name: str = getattr(embedder, "name", "")

    def embed(self, text: str) -> Vector:
        from aurra_core.extractors.rules_languages import read_in_english

        return self.embedder.embed(read_in_english(text))

    def embed_many(self, texts: list[str]) -> list[Vector]:
        """The texts' vectors in one call of the wrapped embedder's own `embed_many` where it
        has one (the sentence models: one padded batch by length, several times faster than
        one text at a time; the lexical one: in a worker process), else one by one."""
        from aurra_core.extractors.rules_languages import read_in_english

        read = [read_in_english(text) for text in texts]
        many = getattr(self.embedder, "embed_many", None)
        if many is None:
            return [self.embedder.embed(text) for text in read]
        return [vector if isinstance(vector, Vector) else Vector(vector) for vector in many(read)]


class Precomputed:
    """An embedder answering the given texts from one `embed_many` call of the one it wraps (a
    batch write's facts), any other text by the wrapped embedder itself. A sentence model's
    vector of a text in a padded batch agrees with its vector alone to about 1e-5 (float32
    sums in another order), not bit for bit."""

    def __init__(self, embedder: Embedder, texts: list[str]) -> None:
        self.embedder = embedder
        self.dim = embedder.dim
        self.name: str = getattr(embedder, "name", "")
        self._vectors: dict[str, Vector] = {}
        many = getattr(embedder, "embed_many", None)
        unique = list(dict.fromkeys(texts))
        if many is not None and len(unique) > 1:
            self._vectors = dict(zip(unique, many(unique), strict=True))

    def embed(self, text: str) -> Vector:
        found = self._vectors.get(text)
        return found if found is not None else self.embedder.embed(text)


def create_embedder(config: ServiceConfig) -> Embedder:
    if config.embedder == "bedrock":
        return BedrockTitanEmbedder(config.embedding_dim)
    if config.embedder == "minilm":
        from aurra_core.embedders.minilm import MiniLMEmbedder  # weights load on the first embed()

        if config.embedding_dim != MiniLMEmbedder.dim:
            raise ValueError(
                f"the minilm embedder has {MiniLMEmbedder.dim} dimensions, "
                f"not AURRA_EMBEDDING_DIM={config.embedding_dim}"
            )
        return ReadInEnglish(MiniLMEmbedder())
    if config.embedder == "mpnet":
        from aurra_core.embedders.mpnet import MPNetEmbedder  # weights load on the first embed()

        if config.embedding_dim != MPNetEmbedder.dim:
            raise ValueError(
                f"the mpnet embedder has {MPNetEmbedder.dim} dimensions, "
                f"not AURRA_EMBEDDING_DIM={config.embedding_dim}"
            )
        return ReadInEnglish(MPNetEmbedder())
    processes = None
    if config.classifier_processes:
        from aurra_core.runtime.worker_processes import worker_processes

        processes = worker_processes(config.classifier_processes)
    return ReadInEnglish(LexicalEmbedder(config.embedding_dim, processes))


@lru_cache(maxsize=1)
def get_embedder() -> Embedder:
    return create_embedder(get_config())
