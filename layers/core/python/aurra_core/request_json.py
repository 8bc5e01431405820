"""What a request's JSON may hold, checked before anything is stored.

PostgreSQL's jsonb holds no NaN or Infinity and no NUL; Python cannot turn an integer of more
than 4,300 digits into text, and both the parser and the serialiser give up on deep nesting.
A value past any of these used to be stored and then fail every read of the tenant's memories.
So a body is parsed here with numbers kept checkable, nesting is bounded before the parser
recurses, and metadata is walked once for everything jsonb and the response cannot carry.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from aurra_core.errors import ValidationFailed

# Levels of nesting metadata may have: the object itself is level 1.
MAX_METADATA_DEPTH = 32
# Levels a whole request body may have before it is refused unparsed; above metadata's limit
# with room for the body around it, so metadata between the two gets the precise message.
MAX_BODY_DEPTH = 64
# Integers in metadata: a signed 64-bit range, which every JSON client and jsonb carry exactly.
MAX_METADATA_INT = 2**63 - 1
# Digits past which an integer is not even converted (Python's own limit is 4,300).
_MAX_INT_DIGITS = 20


class OversizedNumber:
    """An integer literal too long to convert: kept as text so validation can name its field."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"<integer of {len(self.text.lstrip('-'))} digits>"


def _parse_int(text: str) -> int | OversizedNumber:
    return int(text) if len(text.lstrip("-")) <= _MAX_INT_DIGITS else OversizedNumber(text)


# A JSON string (unrolled so long strings do not backtrack) or a structural character.
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_TOKENS = re.compile(_STRING + r"|[\[\]{},]")
_STRINGS = re.compile(_STRING)
_BRACKETS = re.compile(r"[\[\]{}]")


def _deepest(text: str) -> int:
    """How deep the text's brackets nest, outside its strings."""
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub("", text)):
        if bracket in "{[":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _too_deep(text: str, limit: int) -> str | None:
    """The top-level field whose value nests deeper than `limit`, or None. The body itself
    counts as level 1; "body" when the nesting is not under a field of a top-level object.
    Which field is looked for only in a body that nests too deep: walking every string of a
    batch's hundred facts in Python was 3% of a batch write's CPU."""
    if text.count("{") + text.count("[") <= limit or _deepest(text) <= limit:
        return None
    depth, field, expect_key = 0, None, False
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token[0] == '"':
            if depth == 1 and expect_key:
                try:
                    field = json.loads(token)
                except ValueError:
                    field = None
                expect_key = False
        elif token in "{[":
            depth += 1
            if depth == 1:
                expect_key = token == "{"
            if depth > limit:
                return field if isinstance(field, str) else "body"
        elif token in "}]":
            depth -= 1
        elif depth == 1:  # a comma between top-level members
            expect_key = True
    return None


def parse_body(text: str) -> dict[str, Any]:
    """A request body as an object. NaN, Infinity and 1e400 come back as non-finite floats and
    long integers as OversizedNumber, for the models' validators to refuse by field name."""
    field = _too_deep(text, MAX_BODY_DEPTH)
    if field is not None:
        raise ValidationFailed(
            f"{field} is nested more than {MAX_METADATA_DEPTH} levels deep",
            [{"field": field, "problem": f"nested more than {MAX_METADATA_DEPTH} levels deep"}],
        )
    body = json.loads(text, parse_int=_parse_int)
    if not isinstance(body, dict):
        kind = "an array" if isinstance(body, list) else "not an object"
        raise ValidationFailed(
            f"the request body must be a JSON object, not {kind.removeprefix('not ')}",
            [{"field": "body", "problem": f"must be a JSON object; got {kind}"}],
        )
    return body


def _where(path: list[str | int]) -> str:
    text = "metadata"
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def _storable_string(value: str, path: list[str | int], what: str) -> None:
    if "\x00" in value:
        raise ValueError(f"{_where(path)}: {what} must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{_where(path)}: {what} must be valid Unicode (no unpaired surrogates)") from None


def check_metadata(value: dict[str, Any]) -> None:
    """Raise ValueError naming the first place in `value` that jsonb, or the response, cannot
    carry: nesting past MAX_METADATA_DEPTH, a non-finite or oversized number, NUL, a lone
    surrogate, a value that is not JSON. Iterative, so no depth can exhaust the stack."""
    stack: list[tuple[Any, list[str | int], int]] = [(value, [], 1)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_METADATA_DEPTH:
                raise ValueError(f"metadata must not nest more than {MAX_METADATA_DEPTH} levels deep")
            if isinstance(item, dict):
                for key, child in item.items():
                    if not isinstance(key, str):
                        raise ValueError(f"{_where(path)}: keys must be strings")
                    _storable_string(key, path, "keys")
                    stack.append((child, [*path, key], depth + 1))
            else:
                stack.extend((child, [*path, index], depth + 1) for index, child in enumerate(item))
        elif isinstance(item, str):
            _storable_string(item, path, "text")
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if abs(item) > MAX_METADATA_INT:
                raise ValueError(f"{_where(path)}: integers must be within a signed 64-bit range")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise ValueError(f"{_where(path)}: numbers must be finite (no NaN, Infinity or 1e400)")
        elif isinstance(item, OversizedNumber):
            raise ValueError(f"{_where(path)}: integers must be within a signed 64-bit range")
        else:
            raise ValueError(f"{_where(path)}: {type(item).__name__} is not a JSON value")
