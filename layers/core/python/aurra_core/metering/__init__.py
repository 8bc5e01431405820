"""Metering: what a model call cost (a receipt on every write that reached a model, and the
same figures as per-key metrics) and what a key may still spend today (its budget)."""

from aurra_core.metering.budget import (
    PrepaidCalls,
    calls_today,
    cost_today,
    reserve_model_call,
    reserve_model_calls,
    return_model_calls,
    settle_model_call,
)
from aurra_core.metering.pricing import PRICES, PRICES_CHECKED, Price, cost_usd, most_usd
from aurra_core.metering.receipts import (
    Stopwatch,
    emit_usage_metrics,
    failed_call_receipt,
    receipt,
    reported_count,
)

__all__ = [
    "PRICES",
    "PRICES_CHECKED",
    "PrepaidCalls",
    "Price",
    "Stopwatch",
    "calls_today",
    "cost_today",
    "cost_usd",
    "emit_usage_metrics",
    "failed_call_receipt",
    "most_usd",
    "receipt",
    "reported_count",
    "reserve_model_call",
    "reserve_model_calls",
    "return_model_calls",
    "settle_model_call",
]
