"""What one API call is, independent of how it is sent.

Resources describe a call as an `APICall`; the sync and the async transport
both send the same description, so request building lives in one place.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar
from urllib.parse import quote

from aurra.errors import InvalidArgumentError

T = TypeVar("T")

# Accepted wherever the API takes a timestamp: an aware datetime, or an RFC 3339 string sent as is.
TimestampLike = datetime | str
# Accepted wherever the API takes an id.
IdLike = str | uuid.UUID


@dataclass(frozen=True)
class APICall(Generic[T]):
    method: str
    path: str
    # Turns the decoded JSON body of a 2xx answer into the typed result.
    parse: Callable[[Any], T]
    params: Mapping[str, str] | None = None
    # None means no body at all; an empty dict is sent as `{}`.
    body: Mapping[str, Any] | None = None
    # Set once when the call is described, so every retry of it carries the same key.
    idempotency_key: str | None = None
    # For a result that depends on the status too (an erasure's 201 or 200): used instead of `parse`.
    parse_with_status: Callable[[int, Any], T] | None = None
    # The answer is NDJSON (GET /agent/export): `parse` gets the list of its lines' values.
    ndjson: bool = False


def new_idempotency_key(given: str | None) -> str:
    if given is None:
        return str(uuid.uuid4())
    if not isinstance(given, str) or not 1 <= len(given) <= 128:
        raise InvalidArgumentError("idempotency_key must be a string of 1 to 128 characters")
    return given


def format_timestamp(value: TimestampLike, name: str) -> str:
    """An RFC 3339 timestamp with a zone, as the API requires.

    A naive datetime is refused here rather than guessed at: the server would
    answer 422, and silently assuming UTC (or local time) could shift a
    time-travel query by hours.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, datetime):
        if value.utcoffset() is None:
            raise InvalidArgumentError(
                f"{name} must be timezone-aware (e.g. datetime.now(timezone.utc)); got naive {value.isoformat()}"
            )
        # UTC with a `Z`: no `+` to escape in a query string, and it matches what the server returns.
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    raise InvalidArgumentError(f"{name} must be a datetime or an RFC 3339 string, not {type(value).__name__}")


def query(**values: Any) -> dict[str, str]:
    """Query parameters with unset (None) values left out and values spelled as the API reads them."""
    params: dict[str, str] = {}
    for name, value in values.items():
        if value is None:
            continue
        if isinstance(value, bool):
            params[name] = "true" if value else "false"
        elif isinstance(value, datetime):
            params[name] = format_timestamp(value, name)
        else:
            params[name] = str(value)
    return params


class NotGiven:
    """The default of a parameter for which None is a value the API takes (such as
    `daily_model_calls_limit=None`, no limit): left out of the body unless given."""

    _instance: NotGiven | None = None

    def __new__(cls) -> NotGiven:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()


def given(**values: Any) -> dict[str, Any]:
    """A JSON body of the fields given, None included (for fields where null means something)."""
    return {name: value for name, value in values.items() if not isinstance(value, NotGiven)}


def compact(**values: Any) -> dict[str, Any]:
    """A JSON body without the fields left unset (the API rejects unknown fields and reads absent as default)."""
    return {name: value for name, value in values.items() if value is not None}


def path(template: str, *ids: object) -> str:
    """Fill ids into a path, escaped so an id can never change which endpoint is called."""
    segments = []
    for value in ids:
        text = str(value) if value is not None else ""
        if not text:
            raise InvalidArgumentError("an id must not be empty")
        segments.append(quote(text, safe=""))
    return template.format(*segments)
