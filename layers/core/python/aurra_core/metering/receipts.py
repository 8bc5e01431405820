"""Receipts: the usage of the model calls one write made, and the same figures as metrics
per API key (Powertools Metrics, CloudWatch EMF), so an operator can bill on them."""

from __future__ import annotations

import time
from typing import Any

from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

from aurra_core.metering.pricing import cost_usd
from aurra_core.models import Caller, Usage
from aurra_core.runtime.observability import NAMESPACE


def reported_count(value: Any) -> int | None:
    """A token count as a provider reported it, or None when it gave none that makes sense."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


class Stopwatch:
    """Wall-clock time of a model call, measured around the whole of it (retries included)."""

    def __init__(self) -> None:
        self._start = time.perf_counter()

    @property
    def elapsed_ms(self) -> int:
        return round((time.perf_counter() - self._start) * 1000)


def receipt(
    model: str | None,
    input_tokens: int | None,
    output_tokens: int | None,
    latency_ms: int,
    *,
    cache_read_input_tokens: int | None = None,
    cache_creation_input_tokens: int | None = None,
) -> Usage:
    """The receipt of one answered call, with tokens as the provider reported them."""
    return Usage(
        model_calls=1,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_input_tokens=cache_read_input_tokens,
        cache_creation_input_tokens=cache_creation_input_tokens,
        latency_ms=latency_ms,
        cost_usd=cost_usd(
            model, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens
        ),
    )


def failed_call_receipt(latency_ms: int) -> Usage:
    """A call that failed reported no tokens: the cost is unknown, not zero."""
    return Usage(model_calls=1, input_tokens=None, output_tokens=None, latency_ms=latency_ms, cost_usd=None)


def emit_usage_metrics(caller: Caller, usage: Usage, *, source: str, model: str | None) -> None:
    """One EMF record per call, dimensioned by the API key alone (its own metrics object, so
    the key never becomes a dimension of the function's other metrics)."""
    metrics = EphemeralMetrics(namespace=NAMESPACE)
    metrics.add_dimension(name="ApiKeyId", value=str(caller.api_key_id))
    metrics.add_metadata(key="tenant_id", value=str(caller.tenant_id))
    metrics.add_metadata(key="source", value=source)
    metrics.add_metadata(key="model", value=model or "unknown")
    metrics.add_metric(name="ModelCalls", unit=MetricUnit.Count, value=usage.model_calls)
    metrics.add_metric(name="ModelLatency", unit=MetricUnit.Milliseconds, value=usage.latency_ms)
    if usage.input_tokens is not None:
        metrics.add_metric(name="ModelInputTokens", unit=MetricUnit.Count, value=usage.input_tokens)
    if usage.output_tokens is not None:
        metrics.add_metric(name="ModelOutputTokens", unit=MetricUnit.Count, value=usage.output_tokens)
    if usage.cache_read_input_tokens is not None:
        metrics.add_metric(
            name="ModelCacheReadTokens", unit=MetricUnit.Count, value=usage.cache_read_input_tokens
        )
    if usage.cache_creation_input_tokens is not None:
        metrics.add_metric(
            name="ModelCacheWriteTokens", unit=MetricUnit.Count, value=usage.cache_creation_input_tokens
        )
    if usage.cost_usd is not None:
        metrics.add_metric(name="ModelCostUSD", unit=MetricUnit.NoUnit, value=usage.cost_usd)
    metrics.flush_metrics()
