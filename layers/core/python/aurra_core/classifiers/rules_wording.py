"""The user's words in the rules classifier's reasons, as they wrote them.

The classifier reads facts normalised, tokenised and stemmed ("Emacs" is the term `emac`,
"$1,800" is `money_1800`, "no longer" is `nolonger`), and its reasons are built from what it
read. A reason quotes the facts, so it says their words as written: each term or normalised
phrase is looked up in the facts' own text and shown as it stands there, in its case.

- `said(terms, *facts)`: canonical terms (a set, in no order), each as the word of the first
  fact that has it, in the order the words stand in that fact ("francisco", "san" -> "San
  Francisco");
- `quoted(phrase, *facts)`: a stretch of normalised text (what a pattern matched), as the
  shortest stretch of the first fact that holds its words in order.

A word is found by what it reads as on its own (its tokens and their terms); a value or a
phrase the normaliser reads from several words ("9 am", "no longer", "March 3rd") by reading a
few words from that one on, only from words that can start one. What cannot be found is shown
as it was read. Only reasons pay for this: it runs on the one or two stretches a reason quotes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from aurra_core.classifiers.rules_facts import Fact
from aurra_core.runtime import deadline
from aurra_core.text_analysis import rules_lexicon as lex
from aurra_core.text_analysis.text import VALUE_WORDS, canon, expand_contractions, fold, normalize, tokenize

_WORD = re.compile(r"\S+")
# Around a word as written: quotes, brackets and the punctuation of the sentence, not its own.
_EDGES = "\"'()[]{}<>,.;:!?\u201c\u201d\u2018\u2019\u00ab\u00bb\u2026"
_PUNCTUATION = frozenset({",", ";", ":", "(", ")", '"', "!", "?", "."})
# A value or phrase the normaliser makes of several words spans at most this many ("9:30 am
# Pacific time", "from now on").
_WINDOW = 4
# Occurrences of a phrase's first word tried for the shortest stretch that holds the phrase.
_STARTS = 20
# A reason names at most this many terms of a set (a long fact's whole vocabulary says nothing).
_MOST_TERMS = 12
# Facts of at most this many words are read a few words from every word when nothing else finds
# a term (a phrase the normaliser rewrites: "these days" -> `nowadays`); longer ones are not.
_ANY_START_UP_TO = 100
# The kinds of things the classifier counts a word as ("coffee" is also `caffeine`), the other way
# round: the words that a kind's term stands for.
_NARROWER: dict[str, tuple[str, ...]] = {}
for _word, _kinds in lex.HYPERNYMS.items():
    for _kind in _kinds:
        _NARROWER.setdefault(canon(_kind)[0], ())
        _NARROWER[canon(_kind)[0]] += (canon(_word)[0],)


class Worded(str):
    """Text as the classifier read it (normalised, stemmed: what its logic compares), carrying
    how the user wrote it (`shown`: what a reason says), worked out only when a reason says it:
    most such texts only decide something."""

    _render: Callable[..., str]
    _arguments: tuple[Any, ...]
    _shown: str | None

    def __new__(cls, read: str, render: Callable[..., str], *arguments: Any) -> Worded:
        """`render(*arguments)` is what a reason says for it."""
        worded = super().__new__(cls, read)
        worded._render, worded._arguments, worded._shown = render, arguments, None
        return worded

    @property
    def shown(self) -> str:
        if self._shown is None:
            self._shown = self._render(*self._arguments)
        return self._shown


def with_article(word: str) -> str:
    """'a vegan', 'an omnivore'."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def shown(text: str) -> str:
    """What a reason says for `text`: its user's words when it carries them (`Worded`)."""
    return text.shown if isinstance(text, Worded) else text


@dataclass(frozen=True)
class _Word:
    start: int
    end: int
    folded: str
    keys: frozenset[str]  # its tokens and their terms, read on its own


def _words(fact: Fact) -> list[_Word]:
    cached: list[_Word] | None = fact.memo.get("words_as_written")
    if cached is None:
        cached = []
        for match in _WORD.finditer(fact.raw):
            text = match.group(0)
            inner = text.strip(_EDGES)
            if not inner:
                continue
            start = match.start() + text.index(inner)
            end = start + len(inner)
            while inner.count("(") > inner.count(")") and fact.raw[end : end + 1] == ")":
                end += 1  # "401(k)": its own bracket
                inner = fact.raw[start:end]
            folded = fold(inner)
            tokens = tokenize(expand_contractions(folded))  # "doesn't" reads "does not"
            keys = frozenset(tokens) | {term for token in tokens for term in canon(token)}
            cached.append(_Word(start, end, folded, keys))
        fact.memo["words_as_written"] = cached
    return cached


def _read_together(fact: Fact, first: int, last: int) -> frozenset[str]:
    """What the words first..last read as together: the normaliser's tokens and their terms."""
    words = _words(fact)
    memo: dict[tuple[int, int], frozenset[str]] = fact.memo.setdefault("read_together", {})
    key = (first, last)
    if key not in memo:
        tokens = tokenize(normalize(fact.raw[words[first].start : words[last].end]))
        memo[key] = frozenset(tokens) | {term for token in tokens for term in canon(token)}
    return memo[key]


def _may_start(word: _Word, term: str) -> bool:
    """Whether the normaliser can read `term` from words starting with this one: a value (digits,
    symbols, a contraction, a number, month or weekday name) or a phrase it joins into one token
    ("no longer" -> `nolonger`)."""
    if (
        not word.folded.isalpha()
        or word.folded in VALUE_WORDS
        or word.folded.removesuffix("s") in VALUE_WORDS
    ):
        return True  # "Tuesdays"
    return len(word.folded) >= 2 and term.startswith(word.folded)


def _read_whole(fact: Fact) -> frozenset[str]:
    """What the whole fact reads as: a term not in it is in none of its words either."""
    cached: frozenset[str] | None = fact.memo.get("read_whole")
    if cached is None:
        tokens = tokenize(fact.full)
        cached = fact.memo["read_whole"] = frozenset(tokens) | {
            term for token in tokens for term in canon(token)
        }
    return cached


def _find_word(fact: Fact, term: str, first: int = 0) -> tuple[int, int] | None:
    """The first word of the fact, from `first` on, that reads as `term` on its own."""
    words = _words(fact)
    for index in range(first, len(words)):
        if term in words[index].keys:
            return index, index
    return None


def _find(fact: Fact, term: str, first: int = 0) -> tuple[int, int] | None:
    """The words (first, last index) of the fact, from `first` on, that read as `term`: one word;
    else a few from one that can start a value or a joined phrase; else a word of a kind the term
    names ("wine" for `alcohol`); else, in a short fact, a few words from any ("passed away" for
    `died`)."""
    found = _find_word(fact, term, first)
    if found is not None:
        return found
    read = term in _read_whole(fact)
    if read:
        found = _find_read_together(fact, term, first, lambda word: _may_start(word, term))
        if found is not None:
            return found
    for narrower in _NARROWER.get(term, ()):
        found = _find_word(fact, narrower, first)
        if found is not None:
            return found
    if read and len(_words(fact)) <= _ANY_START_UP_TO:
        return _find_read_together(fact, term, first, lambda word: True) or _narrowed_whole(fact, term, first)
    return None


def _narrowed_whole(fact: Fact, term: str, first: int) -> tuple[int, int] | None:
    """The fewest words, from `first` to the end, that still read as `term` (a phrase the
    normaliser rewrote with its sentence: "Spicy food is not their thing" reads "dislikes")."""
    last = len(_words(fact)) - 1
    if first > last or term not in _read_together(fact, first, last):
        return None
    while first < last and term in _read_together(fact, first + 1, last):
        first += 1
    while last > first and term in _read_together(fact, first, last - 1):
        last -= 1
    return first, last


def _find_read_together(
    fact: Fact, term: str, first: int, may_start: Callable[[_Word], bool]
) -> tuple[int, int] | None:
    words = _words(fact)
    for index in range(first, len(words)):
        deadline.check()
        if not may_start(words[index]):
            continue
        for last in range(index, min(index + _WINDOW, len(words))):
            if term in _read_together(fact, index, last):
                while index < last and term in _read_together(fact, index + 1, last):
                    index += 1  # "9am; rent is $1,800": the words that read as it, not before
                return index, last
    return None


def _shown(fact: Fact, first: int, last: int) -> str:
    words = _words(fact)
    return fact.raw[words[first].start : words[last].end]


_POSSESSIVE = re.compile(r"['\u2019]s$", re.IGNORECASE)


def _shown_word(fact: Fact, first: int, last: int, term: str) -> str:
    """A term's words; one word without its possessive ("Acme's" says "Acme")."""
    text = _shown(fact, first, last)
    return _POSSESSIVE.sub("", text) if first == last and term != "'s" else text


def said(terms: Iterable[str], *facts: Fact) -> str:
    """The terms as the user wrote them: each the words of the first of `facts` that has it, in
    the order they stand there (the first fact's words first); a term no fact has, as it is."""
    placed: dict[tuple[int, int, int], str] = {}
    missing: list[str] = []
    chosen = sorted(set(terms))
    more = ["..."] if len(chosen) > _MOST_TERMS else []
    for term in chosen[:_MOST_TERMS]:
        # a word of any of the facts before the costlier readings of the first
        for find in (_find_word, _find):
            located = next(
                ((number, fact, found) for number, fact in enumerate(facts) if (found := find(fact, term))),
                None,
            )
            if located is not None:
                number, fact, found = located
                placed[(number, *found)] = _shown_word(fact, *found, term)
                break
        else:
            missing.append(term)
    # "GitHub" inside "GitHub Actions" (the code host the CI service is read with): shown once
    shown = [
        where
        for where in sorted(placed)
        if not any(
            other != where and other[0] == where[0] and other[1] <= where[1] and where[2] <= other[2]
            for other in placed
        )
    ]
    return amounts_shown(" ".join([*(placed[where] for where in shown), *missing, *more]))


# An amount the user's words could not be found for ("70k." read as a pay from the words before
# it), shown as a number rather than as the token: "70,000", "0.14"
_MONEY_TOKEN = re.compile(r"\bmoney_(\d+)(?:p(\d+))?\b")


def _amount_shown(match: re.Match[str]) -> str:
    whole = f"{int(match.group(1)):,}"
    return f"{whole}.{match.group(2)}" if match.group(2) else whole


def amounts_shown(text: str) -> str:
    """The text with each amount token ("money_70000") shown as a number ("70,000")."""
    return _MONEY_TOKEN.sub(_amount_shown, text)


def quoted(phrase: str, *facts: Fact) -> str:
    """A stretch of normalised text (what a pattern matched in a fact) as the user wrote it: the
    shortest stretch of the first of `facts` that holds its words in order."""
    tokens = [token for token in tokenize(phrase) if token not in _PUNCTUATION]
    if not tokens:
        return phrase.strip()
    for fact in facts:
        # a pattern may have matched from inside a word ("s subscription lapsed" of "User's"):
        # the words the fact has, in order
        present = [token for token in tokens if _find(fact, token) is not None]
        span = _shortest_span(fact, present) if present else None
        if span is not None:
            return _shown(fact, *span)
    return " ".join(said([token], *facts) for token in tokens)


def _shortest_span(fact: Fact, tokens: list[str]) -> tuple[int, int] | None:
    """The shortest run of words that reads as `tokens` in order, each found from where the one
    before it was (a word may read as two: "Alice's")."""
    best: tuple[int, int] | None = None
    start = 0
    find_head = _find if _find_word(fact, tokens[0]) is None else _find_word  # another, as the first
    for _ in range(_STARTS):
        head = find_head(fact, tokens[0], start)
        if head is None:
            break
        first, last = head
        for token in tokens[1:]:
            found = _find(fact, token, last)
            if found is None:
                return best  # a later start finds no more
            last = max(last, found[1])
        if best is None or last - first < best[1] - best[0]:
            best = (first, last)
        start = first + 1
    return best
