"""Logger, Tracer and Metrics, created once and shared by every handler and the layer.

The service name and metrics namespace come from POWERTOOLS_SERVICE_NAME and
POWERTOOLS_METRICS_NAMESPACE (set per function by the stack; `aurra` locally).
Secrets never reach a log line: API keys, bearer tokens and model API keys are redacted
from every record, whatever logged them.
"""

from __future__ import annotations

import re

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


class RedactingFormatter(LambdaPowertoolsFormatter):
    def serialize(self, log: dict) -> str:
        return redact(super().serialize(log))


logger = Logger(logger_formatter=RedactingFormatter())
tracer = Tracer()
metrics = Metrics(namespace=NAMESPACE)
