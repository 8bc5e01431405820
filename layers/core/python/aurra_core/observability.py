"""Logger, Tracer and Metrics, created once and shared by every handler and the layer.

The service name and metrics namespace come from POWERTOOLS_SERVICE_NAME and
POWERTOOLS_METRICS_NAMESPACE (set per function by the stack; `aurra` locally).
Secrets never reach a log line: API keys, bearer tokens and model API keys are redacted
from every record, whatever logged them.
"""

from __future__ import annotations

import re
from urllib.parse import unquote_plus

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

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
    def serialize(self, log: dict) -> str:
        return redact(super().serialize(log))


logger = Logger(logger_formatter=RedactingFormatter())
tracer = Tracer()
metrics = Metrics(namespace=NAMESPACE)
