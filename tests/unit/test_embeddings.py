import itertools
import json
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from pgvector import Vector

from aurra_core.embedders import LexicalEmbedder
from aurra_core.text_analysis import text as text_module
from aurra_core.text_analysis.text import content_terms

EVALS = Path(__file__).resolve().parents[2] / "evals"


def test_unit_length_and_deterministic():
    e = LexicalEmbedder(384)
    a, b = e.embed("alice uses Vim"), e.embed("alice uses Vim")
    assert isinstance(a, Vector) and a.dimensions() == 384 and a.to_numpy().dtype == np.float32
    assert np.allclose(np.linalg.norm(a.to_numpy()), 1.0)
    assert a == b
    assert np.allclose(
        np.linalg.norm(e.embed("the a of").to_numpy()), 1.0
    )  # only stopwords still gives a unit vector


def test_related_facts_are_closer_than_unrelated_ones():
    e = LexicalEmbedder(384)
    old = e.embed("alice uses Vim as her editor").to_numpy()
    related = e.embed("alice switched her editor to Emacs").to_numpy()
    unrelated = e.embed("bob's flight to Lisbon leaves on Friday").to_numpy()
    assert float(old @ related) > float(old @ unrelated) + 0.2


def _in_numpy_float32(dim: int, text: str) -> np.ndarray:
    """The same features, summed, normed and divided in numpy's float32 arithmetic."""
    vec = np.zeros(dim, dtype=np.float32)

    def add(feature: str, weight: float) -> None:
        h = zlib.crc32(feature.encode())
        vec[h % dim] += weight if (h >> 31) & 1 else -weight

    terms = content_terms(text)
    for term in terms:
        add("w:" + term, 1.0)
        padded = f"<{term}>"
        for i in range(len(padded) - 2):
            add("c:" + padded[i : i + 3], 0.25)
    for a, b in itertools.pairwise(terms):
        add(f"b:{a} {b}", 0.5)
    norm = float(np.linalg.norm(vec))
    if norm == 0.0:
        vec[0] = 1.0
        return vec
    return vec / norm


@pytest.mark.parametrize("dim", [384, 256, 1024])
@pytest.mark.parametrize(
    "text",
    [
        "alice uses Vim as her editor",
        "Priya moved from Berlin to Lisbon in March 2026; her lease starts on the 1st.",
        "the a of",
        "",
        "Kenji's favourite café is Café Zürich — he orders a flat white, never an espresso.",
        " ".join(f"word{i}" for i in range(600)),
    ],
    ids=lambda t: t[:20] if isinstance(t, str) else t,
)
def test_the_same_bits_as_float32_arithmetic(dim, text):
    # Stored vectors keep comparing as they did when the embedder computed in numpy.
    assert LexicalEmbedder(dim).embed(text).to_numpy().tobytes() == _in_numpy_float32(dim, text).tobytes()


def test_embedding_loads_no_numpy():
    # write, query and supersede embed on every request: numpy would cost each cold start ~80 ms.
    code = """
import io, json, sys
from botocore.response import StreamingBody
from aurra_core.embedders import BedrockTitanEmbedder, LexicalEmbedder

class Bedrock:
    def invoke_model(self, **kwargs):
        body = json.dumps({"embedding": [0.6, 0.8] + [0.0] * 254}).encode()
        return {"body": StreamingBody(io.BytesIO(body), len(body))}

lexical = LexicalEmbedder(384).embed("alice uses Vim")
titan = BedrockTitanEmbedder(256, client=Bedrock()).embed("alice uses Vim")
print(json.dumps([lexical.dimensions(), titan.to_list()[:2], "numpy" in sys.modules]))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    dims, first, numpy_loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert dims == 384 and first == pytest.approx([0.6, 0.8]) and numpy_loaded is False


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _varied_texts() -> list[str]:
    """Every text of the labeled sets (facts, messages, credentials, questions), and some of
    them upper-cased and with typographic quotes and dashes: thousands of wordings."""
    texts = [
        s
        for path in sorted(EVALS.glob("*.jsonl"))
        for line in path.read_text().splitlines()
        if line.strip()
        for s in _strings(json.loads(line))
    ]
    texts = list(dict.fromkeys(t for t in texts if len(t) > 3))
    texts += [t.upper() for t in texts[::7]]
    texts += [t.replace("'", "\u2019").replace(" - ", " \u2014 ") for t in texts[::5]]
    texts += [
        f"User {i % 997} noted item {i}: prefers option {i % 13} for task {i % 101}"
        for i in range(0, 3000, 7)
    ]
    return texts


def test_skipping_substitutions_that_cannot_match_changes_no_vector(monkeypatch):
    # The normalizer skips a substitution where the text holds none of the strings its matches
    # need (text.Substitution); run every one on every text, as before, and compare.
    # A lexical vector is a function of the text's content terms alone (LexicalEmbedder.embed), so
    # the same terms are the same vector; the vectors themselves are compared on a sample.
    texts = _varied_texts()
    assert len(texts) > 10_000
    embedder = LexicalEmbedder(384)
    sample = texts[::50]

    def read(texts: list[str]) -> list[tuple[str, tuple[str, ...]]]:
        return [(text_module.normalize(t), tuple(content_terms(t))) for t in texts]

    text_module.normalize.cache_clear()
    skipping = read(texts)
    skipping_vectors = [embedder.embed(t).to_numpy().tobytes() for t in sample]
    lists = [v for v in vars(text_module).values() if isinstance(v, text_module.Substitutions)]
    steps = [v for v in vars(text_module).values() if isinstance(v, text_module.Substitution)]
    steps += [step for substitutions in lists for step in substitutions.steps]
    assert len(steps) > 120 and sum(step.needs != ("",) for step in steps) > 110
    for step in steps:
        monkeypatch.setattr(step, "needs", ("",))
    # and a list of them runs each of its steps, in order (text.Substitutions)
    for substitutions in lists:
        monkeypatch.setattr(substitutions, "_needs", tuple(("", i) for i in range(len(substitutions.steps))))
    text_module.normalize.cache_clear()
    every = read(texts)
    every_vectors = [embedder.embed(t).to_numpy().tobytes() for t in sample]
    text_module.normalize.cache_clear()
    assert skipping == every
    assert skipping_vectors == every_vectors


def test_substitutions_in_a_list_read_what_an_earlier_one_wrote():
    # A list reads which of its substitutions could match once, and again after each change:
    # a later one that needs what an earlier one wrote still applies, and one whose needed
    # string an earlier one removed does not.
    wrote = text_module.Substitutions(
        [
            text_module.Substitution(r"\bvim\b", "emacs"),
            text_module.Substitution(r"\bemacs\b", "editor_emacs"),
        ]
    )
    assert wrote("uses vim daily") == "uses editor_emacs daily"
    removed = text_module.Substitutions(
        [text_module.Substitution(r"\bvim\b", "editor"), text_module.Substitution(r"\bvim daily\b", "never")]
    )
    assert removed("uses vim daily") == "uses editor daily"
    assert wrote("nothing here") == "nothing here"


def test_an_offline_embedder_reads_a_memory_kept_as_said_in_another_language_in_english():
    from aurra_core.embedders import ReadInEnglish

    lexical = LexicalEmbedder(384)
    e = ReadInEnglish(lexical)
    said = "User said: ik ben verhuisd naar Leiden, het is heerlijk"
    # the memory is embedded as the tables read it, so an English question meets it
    assert e.embed(said) == lexical.embed("User said: I moved to Leiden, the is heerlijk")
    question = lexical.embed("Where did the user move to?").to_numpy()
    assert float(e.embed(said).to_numpy() @ question) > float(lexical.embed(said).to_numpy() @ question)
    # English, and anything not kept as said, is embedded as it is
    assert e.embed("User said: I moved to Leiden") == lexical.embed("User said: I moved to Leiden")
    assert e.embed("ik ben verhuisd naar Leiden") == lexical.embed("ik ben verhuisd naar Leiden")
