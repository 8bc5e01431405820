import numpy as np

from aurra_core.embeddings import LexicalEmbedder


def test_unit_length_and_deterministic():
    e = LexicalEmbedder(384)
    a, b = e.embed("alice uses Vim"), e.embed("alice uses Vim")
    assert a.shape == (384,) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a), 1.0)
    assert np.array_equal(a, b)
    assert np.allclose(np.linalg.norm(e.embed("the a of")), 1.0)  # only stopwords still gives a unit vector


def test_related_facts_are_closer_than_unrelated_ones():
    e = LexicalEmbedder(384)
    old = e.embed("alice uses Vim as her editor")
    related = e.embed("alice switched her editor to Emacs")
    unrelated = e.embed("bob's flight to Lisbon leaves on Friday")
    assert float(old @ related) > float(old @ unrelated) + 0.2
