"""Text normalisation for the local lexical embedder (the rules classifier has its own, rules_text)."""

from __future__ import annotations

import re
import unicodedata

# An apostrophe, straight or typographic (U+2019), joins a word's suffix ("user's").
_WORD = re.compile("[a-z0-9]+(?:['\u2019][a-z]+)?")

STOPWORDS = frozenset(
    """a an the and or but of to in on at for with by from as is are was were be been being am
    has have had do does did it its this that these those there their they them he him his she her
    i me my we our you your user users customer customers s""".split()
)


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    return text.replace("\u2019", "'")


def words(text: str) -> list[str]:
    """Lower-cased word tokens, possessives folded ("alice's" -> "alice")."""
    out = []
    for token in _WORD.findall(normalize(text)):
        token = token.split("'")[0] if token.endswith(("'s", "'re", "'ve", "'ll", "'d", "'m")) else token
        out.append(token)
    return out


def stem(word: str) -> str:
    """A light suffix stripper: enough to match "switched"/"switch" and "cats"/"cat"."""
    for suffix, min_len in (("ing", 5), ("ied", 4), ("ies", 4), ("ed", 4), ("es", 4), ("s", 3)):
        if word.endswith(suffix) and len(word) - len(suffix) >= min_len - len(suffix) + 1:
            base = word[: -len(suffix)]
            if suffix in ("ied", "ies"):
                return base + "y"
            return base
    return word


def content_terms(text: str) -> list[str]:
    return [stem(w) for w in words(text) if w not in STOPWORDS]
