"""Defaults for running the Lambda code outside Lambda."""

from __future__ import annotations

import os
import warnings

LOCAL_DEFAULTS = {
    # No X-Ray daemon and no CloudWatch here: keep tracing off and metrics quiet.
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_DISABLED": "true",
    "POWERTOOLS_SERVICE_NAME": "aurra",
    "POWERTOOLS_LOG_LEVEL": "WARNING",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def apply_local_defaults() -> None:
    for name, value in LOCAL_DEFAULTS.items():
        os.environ.setdefault(name, value)
    # Most requests emit no metric; locally that is not worth a warning per request.
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    from aurra_core.service import reset

    reset()
