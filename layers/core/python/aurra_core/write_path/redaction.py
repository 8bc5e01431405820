"""The first step of every write: no credential is kept, and none reaches a model.

Before the gates, the embedding, the extractor and the classifier see anything, a write's
content, its messages' contents and its metadata's strings are scanned for credentials
(`text_analysis/credentials.py`). Each found is replaced by `[REDACTED:<kind>]`, and all that
follows (the embedding, the extraction, the candidates, the classifier call, the stored memory,
its audit events, the Idempotency-Key record of the request and its response) sees only the
redacted request. A key whose `secrets` setting is `refuse` gets a 422 `sensitive_content`
instead, and nothing is stored: the settings are read only when something was found, so a
write without credentials pays for the scan alone (a few milliseconds for 4,000 characters).

A metadata string is scanned with its key in front ("password: ..."; underscores and dashes
read as spaces, a word "pin" as a PIN), so that `{"password": "hunter2"}` or
`{"door_code": "4410"}` is seen as a password; keys themselves are not changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from aws_lambda_powertools.metrics import MetricUnit
from pydantic import BaseModel

from aurra_core.access import keys
from aurra_core.errors import SensitiveContent
from aurra_core.models import Caller, KeySettings, Message
from aurra_core.runtime.config import get_config
from aurra_core.runtime.observability import logger, metrics
from aurra_core.storage.db import Database
from aurra_core.text_analysis import credentials

Request = TypeVar("Request", bound=BaseModel)


@dataclass(frozen=True)
class Found:
    """Where credentials were found (a field, as the API's error details name fields) and of
    which kinds: never what they were."""

    field: str
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class Screened(Generic[Request]):
    """A request with every credential replaced by its marker, and where they were."""

    request: Request
    found: tuple[Found, ...] = ()

    @property
    def kinds(self) -> list[str]:
        found = {kind for f in self.found for kind in f.kinds}
        return [kind for kind in credentials.KINDS if kind in found]


def _text(value: str, field: str, found: list[Found], key: str | None = None) -> str:
    if key is None:
        redaction = credentials.redact(value)
    else:
        # the key as the value's context: {"password": "hunter2"} reads "password: hunter2",
        # {"door_code": "4410"} "door code: 4410", {"pin": "4410"} "PIN: 4410"
        words = [
            "PIN" if w.casefold() == "pin" else w for w in key.replace("_", " ").replace("-", " ").split(" ")
        ]
        labeled = f"{' '.join(words)}: {value}"
        offset = len(labeled) - len(value)
        in_value = [
            credentials.Finding(f.kind, f.start - offset, f.end - offset)
            for f in credentials.find(labeled)
            if f.start >= offset
        ]
        redaction = credentials.replace(value, in_value)
    if redaction.findings:
        found.append(Found(field, tuple(redaction.kinds)))
    return redaction.text


def _metadata(value: Any, path: str, found: list[Found], key: str | None = None) -> Any:
    """`value` with every string in it redacted, its structure as it was. A finding deep inside
    is reported for the field `metadata`, its place in the problem (as validation does)."""
    if isinstance(value, str):
        return _text(value, path, found, key)
    if isinstance(value, dict):
        return {k: _metadata(v, f"{path}.{k}", found, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_metadata(v, f"{path}[{i}]", found) for i, v in enumerate(value)]
    return value


def screen(request: Request, in_content: list[credentials.Finding] | None = None) -> Screened[Request]:
    """The request with credentials redacted from its `content`, each message's `content` and
    its `metadata` (the fields it has of these), and where they were. `in_content`: the
    content's credentials, when they were looked for already."""
    found: list[Found] = []
    update: dict[str, Any] = {}
    content = getattr(request, "content", None)
    if isinstance(content, str):
        if in_content is None:
            update["content"] = _text(content, "content", found)
        else:
            redaction = credentials.replace(content, in_content)
            if redaction.findings:
                found.append(Found("content", tuple(redaction.kinds)))
            update["content"] = redaction.text
    messages: list[Message] | None = getattr(request, "messages", None)
    if messages is not None:
        update["messages"] = [
            m.model_copy(update={"content": _text(m.content, f"messages[{i}].content", found)})
            for i, m in enumerate(messages)
        ]
    metadata = getattr(request, "metadata", None)
    if isinstance(metadata, dict):
        update["metadata"] = _metadata(metadata, "metadata", found)
    if not found:
        return Screened(request)
    return Screened(request.model_copy(update=update), tuple(found))


def redact_text(text: str) -> str:
    """`text` with its credentials redacted (a fact an extractor wrote, say)."""
    return credentials.redact(text).text


def screen_each(request: Request, field: str) -> Screened[Request]:
    """A request holding a list of writes (`facts` of a batch): each one screened, and where its
    credentials were named as the API names the field (`facts[3].content`)."""
    items = getattr(request, field)
    in_contents = _found_in_worker_processes([item.content for item in items])
    screened = [screen(item, None if in_contents is None else in_contents[i]) for i, item in enumerate(items)]
    found = tuple(
        Found(f"{field}[{i}].{f.field}", f.kinds) for i, one in enumerate(screened) for f in one.found
    )
    return Screened(request.model_copy(update={field: [one.request for one in screened]}), found)


def _found_in_contents(contents: list[str]) -> list[list[credentials.Finding]]:
    """In a worker process: each content's credentials."""
    return [credentials.find(content) for content in contents]


def _found_in_worker_processes(contents: list[str]) -> list[list[credentials.Finding]] | None:
    """The contents' credentials looked for in one of the server's worker processes, when it
    has them (`aurra dev`: a batch's hundred scans were a tenth of its CPU, taking turns with
    the rest at one interpreter); None when it has none, or none was ready."""
    config = get_config()
    if not config.classifier_processes or len(contents) < 2:
        return None
    from aurra_core.runtime.worker_processes import worker_processes

    processes = worker_processes(config.classifier_processes)
    processes.preload(credentials.__name__)
    return processes.run(_found_in_contents, contents)


def refuse_if_asked(
    caller: Caller, screened: Screened[Any], db: Database, key_settings: KeySettings | None = None
) -> KeySettings | None:
    """Nothing found: None, and the key's settings are not read. Else the key's settings (read
    here unless given), after refusing the write when they say `refuse` (SensitiveContent, 422):
    before anything is stored or sent to a model."""
    if not screened.found:
        return key_settings
    if key_settings is None:
        with db.tenant_transaction(caller.tenant_id) as conn:
            key_settings = keys.get_key_settings(conn, caller)
    kinds = screened.kinds
    if key_settings.secrets == "refuse":
        metrics.add_metric(name="WritesRefusedForCredentials", unit=MetricUnit.Count, value=1)
        logger.info("write refused: it carries credentials", extra={"kinds": kinds})
        raise SensitiveContent(
            f"the write carries credentials ({', '.join(kinds)}) and this key's secrets setting "
            "refuses them; nothing was stored. Remove them, or set secrets to redact",
            [
                {
                    "field": "metadata" if f.field.startswith("metadata") else f.field,
                    "problem": f"{f.field} carries a credential: {', '.join(f.kinds)}",
                }
                for f in screened.found
            ],
        )
    metrics.add_metric(name="WritesRedactedOfCredentials", unit=MetricUnit.Count, value=1)
    logger.info("credentials redacted from a write", extra={"kinds": kinds})
    return key_settings
