"""The numpy all-mpnet-base-v2 embedder: its parts checked on their own (the split archive,
the relative position buckets) and the whole on the real weights.

No reference implementation of the model runs here (no deep-learning runtime), so there are
no reference vectors as for MiniLM: the encoder is held to unit length, determinism, batches
that agree with single texts, and the distances that make it worth its cost (a synonym nearer
than an unrelated fact of the same subject). Its candidate recall is measured by
`aurra eval --candidate-recall --embedders mpnet` (README, "Candidates").
"""

from __future__ import annotations

import io
import itertools
import math
import zipfile
from importlib.util import find_spec

import numpy as np
import pytest

from aurra_core.embedders.encoder import relative_position_bucket
from aurra_core.embedders.mpnet import _Concatenated, read_model_files
from aurra_core.runtime.config import ServiceConfig


def _weights_installed() -> bool:
    from importlib.metadata import PackageNotFoundError, distribution

    from aurra_core.embedders.mpnet import PART_DISTRIBUTIONS

    if find_spec("tokenizers") is None:
        return False
    try:
        for name in PART_DISTRIBUTIONS:
            distribution(name)
    except PackageNotFoundError:
        return False
    return True


needs_weights = pytest.mark.skipif(
    not _weights_installed(),
    reason="the mpnet weights are not installed (make setup-mpnet)",
)

LONG_TEXT = " ".join(f"memory {i} of the tenant" for i in range(120))  # over 384 tokens: truncated


def test_relative_position_buckets():
    # key position minus query position: keys before the query take buckets 0-15, keys after
    # it 16-31; exact up to 8 steps, then logarithmic, the last bucket from 128 steps on
    relative = np.array([0, -1, 1, -7, 7, -8, -20, 20, -127, -200, 200])
    assert relative_position_bucket(relative).tolist() == [0, 1, 17, 7, 23, 8, 10, 26, 15, 15, 31]


def test_a_split_archive_is_read_in_place(tmp_path):
    buffer = io.BytesIO()
    payload = bytes(range(256)) * 4000  # stored uncompressed: it spans every part
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("all-mpnet-base-v2/config.json", b'{"a": 1}', compress_type=zipfile.ZIP_DEFLATED)
        archive.writestr("all-mpnet-base-v2/model.safetensors", payload, compress_type=zipfile.ZIP_STORED)
    data = buffer.getvalue()
    cuts = [0, 1000, 400_000, 400_001, len(data)]
    parts = []
    for i, (start, end) in enumerate(itertools.pairwise(cuts)):
        part = tmp_path / f"model.zip.00{i + 1}"
        part.write_bytes(data[start:end])
        parts.append(part)
    files = read_model_files(parts, ["config.json", "model.safetensors"])
    assert files == {"config.json": b'{"a": 1}', "model.safetensors": payload}

    joined = _Concatenated(parts)
    joined.seek(-10, io.SEEK_END)
    assert joined.read(100) == data[-10:]
    joined.seek(999)
    assert joined.read(3) == data[999:1002]
    joined.close()


def test_create_embedder_checks_the_dimension():
    from aurra_core.embedders import ReadInEnglish, create_embedder
    from aurra_core.embedders.mpnet import MPNetEmbedder

    embedder = create_embedder(ServiceConfig(embedder="mpnet", embedding_dim=768))
    assert isinstance(embedder, ReadInEnglish) and isinstance(embedder.embedder, MPNetEmbedder)
    assert embedder.dim == 768
    with pytest.raises(ValueError, match="768 dimensions"):
        create_embedder(ServiceConfig(embedder="mpnet"))  # the default column has 384
    assert ServiceConfig(embedder="mpnet", embedding_dim=768).candidate_floor == 0.2


@pytest.fixture(scope="module")
def embedder():
    from aurra_core.embedders.mpnet import MPNetEmbedder

    return MPNetEmbedder()


@needs_weights
def test_unit_length_shape_and_dtype(embedder):
    for text in ("alice uses Vim", "", "   ", LONG_TEXT):
        v = embedder.embed(text).to_numpy()
        assert v.shape == (768,) and v.dtype == np.float32
        assert math.isclose(float(np.linalg.norm(v)), 1.0, abs_tol=1e-5)
    assert embedder.name == "all-mpnet-base-v2"


@needs_weights
def test_deterministic_and_batches_match_single_texts(embedder):
    from aurra_core.embedders.mpnet import MPNetEmbedder

    texts = [
        "Priya is allergic to peanuts",
        "Kenji drives a Subaru",
        "What time is the standup tomorrow?",
        "",
    ]
    assert embedder.embed(texts[0]) == embedder.embed(texts[0])
    many = embedder.embed_many([*texts, LONG_TEXT])  # different lengths share padded batches
    assert many.shape == (5, 768) and many.dtype == np.float32
    for text, row in zip([*texts, LONG_TEXT], many, strict=True):
        assert float(row @ embedder.embed(text).to_numpy()) > 0.99999
    np.testing.assert_allclose(MPNetEmbedder(batch_size=2).embed_many(texts), many[:4], atol=1e-5)
    assert embedder.embed_many([]).shape == (0, 768)


@needs_weights
def test_synonyms_are_nearer_than_unrelated_facts_of_the_same_subject(embedder):
    def cos(a: str, b: str) -> float:
        return float(embedder.embed(a).to_numpy() @ embedder.embed(b).to_numpy())

    assert (
        cos("User's editor is now VS Code", "User writes code in Emacs")
        > cos("User's editor is now VS Code", "User has a dog named Rex") + 0.2
    )
    assert (
        cos("The customer drives a Tesla", "The customer's car is electric")
        > cos("The customer drives a Tesla", "The customer prefers tea over coffee") + 0.3
    )
