"""Logger, Tracer and Metrics, created once and shared by every handler and the layer.

The service name and metrics namespace come from POWERTOOLS_SERVICE_NAME and
POWERTOOLS_METRICS_NAMESPACE (set per function by the stack; `aurra` locally).
The tracer is created on the first traced call, not at import (see `LazyTracer`).
Secrets never reach a log line: API keys, bearer tokens and model API keys are redacted
from every record, whatever logged them.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast
from urllib.parse import unquote_plus

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter
from aws_lambda_powertools.logging.types import PowertoolsLogRecord

from aurra_core.runtime.powertools_internals import tracing_disabled

NAMESPACE = "Aurra"

_SECRETS = re.compile(
    r"aurra_[A-Za-z0-9]+_[A-Za-z0-9_\-]+"  # Aurra API keys
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/=\-]+"  # Authorization header values
    r"|sk-ant-[A-Za-z0-9_\-]+"  # Anthropic API keys
    r"|(?i:\"?(?:authorization|x-api-key|api_key|password)\"?\s*[:=]\s*)\"[^\"]*\""
)


def redact(text: str) -> str:
    return _SECRETS.sub("[REDACTED]", text)


# Query parameters whose value is a credential whatever it looks like, and the search text,
# which is the tenant's own data (logged only when the operator asks for it).
_SECRET_PARAMS = re.compile(r"(?i).*(key|token|secret|password|authorization|signature|credential).*")
SEARCH_TEXT_PARAMS = frozenset({"q"})


def redact_query(query: str, *, keep_search_text: bool = False) -> str:
    """A raw query string fit for a log line: credentials redacted by name and by shape
    wherever they appear, and the search text unless `keep_search_text`."""
    parts = []
    for part in query.split("&") if query else ():
        name, sep, value = part.partition("=")
        plain = unquote_plus(name)
        if _SECRET_PARAMS.fullmatch(plain) or (plain in SEARCH_TEXT_PARAMS and not keep_search_text):
            value = "[REDACTED]"
        parts.append(redact(unquote_plus(name)) + sep + redact(unquote_plus(value)))
    return "&".join(parts)


class RedactingFormatter(LambdaPowertoolsFormatter):
    def serialize(self, log: dict[str, Any] | PowertoolsLogRecord) -> str:
        return redact(super().serialize(log))


F = TypeVar("F", bound=Callable[..., Any])

# The libraries Aurra calls through, each a subsegment: the database, AWS SDK calls (Secrets
# Manager, SSM, Bedrock) and the model endpoints' HTTP client. Not `patch_all`, which imports
# every library X-Ray knows of that happens to be installed.
PATCHED_MODULES = ("psycopg", "botocore", "httpx")


class LazyTracer:
    """The Powertools Tracer, created on the first traced call instead of at import.

    Creating a Tracer builds the X-Ray recorder, whose sampler imports botocore and builds an
    X-Ray client, and patches libraries: about 240 ms of every handler's import on a quiet
    machine. Where tracing is off (outside Lambda, or POWERTOOLS_TRACE_DISABLED) it is never
    created and a traced function is called as it is; in Lambda with tracing on, the first
    invocation creates it and every call is traced as the Tracer's own decorators trace it.
    """

    def __init__(self, patch_modules: tuple[str, ...] = PATCHED_MODULES) -> None:
        self._patch_modules = patch_modules
        self._tracer: Tracer | None = None
        self._disabled: bool | None = None
        self._lock = threading.Lock()

    def get(self) -> Tracer | None:
        """The Tracer, created now if tracing is on and it does not exist yet; None if off."""
        if self._tracer is not None or self._disabled:
            return self._tracer
        with self._lock:
            if self._disabled is None:
                self._disabled = tracing_disabled()
            if self._tracer is None and not self._disabled:
                self._tracer = Tracer(patch_modules=list(self._patch_modules))
        return self._tracer

    def capture_lambda_handler(self, handler: F) -> F:
        return self._traced(handler, lambda tracer: tracer.capture_lambda_handler(handler))

    def capture_method(self, method: F) -> F:
        return self._traced(method, lambda tracer: tracer.capture_method(method))

    def _traced(self, function: F, decorate: Callable[[Tracer], Callable[..., Any]]) -> F:
        traced: Callable[..., Any] | None = None

        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            nonlocal traced
            tracer = self.get()
            if tracer is None:
                return function(*args, **kwargs)
            if traced is None:
                traced = decorate(tracer)
            return traced(*args, **kwargs)

        return cast(F, call)


logger = Logger(logger_formatter=RedactingFormatter())
tracer = LazyTracer()
metrics = Metrics(namespace=NAMESPACE)
