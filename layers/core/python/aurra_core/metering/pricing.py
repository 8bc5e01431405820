"""Published prices of the models Aurra calls, per million tokens, in US dollars.

A model that is not in the table has no cost (None), never a guess: add it here, with its
published price, when a key starts using it. Prices are those of the Anthropic API; Claude on
Amazon Bedrock (on-demand, the `us.` inference profiles) is priced the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

# The day the prices below were checked against the providers' published model pages.
PRICES_CHECKED = date(2026, 11, 30)


@dataclass(frozen=True)
class Price:
    input_per_mtok: Decimal
    output_per_mtok: Decimal


PRICES: dict[str, Price] = {
    "claude-haiku-4-5-20251001": Price(Decimal("1.00"), Decimal("5.00")),
    "claude-sonnet-4-5-20250929": Price(Decimal("3.00"), Decimal("15.00")),
    "claude-opus-4-5-20251101": Price(Decimal("5.00"), Decimal("25.00")),
    "claude-opus-4-1-20250805": Price(Decimal("15.00"), Decimal("75.00")),
    "claude-sonnet-5": Price(Decimal("2.00"), Decimal("10.00")),
    # The offline rules classifier and extractor run in the function itself: no cost per call.
    "aurra-rules-v3": Price(Decimal("0"), Decimal("0")),
    "aurra-rules-extractor-v1": Price(Decimal("0"), Decimal("0")),
}

_MILLION = Decimal(1_000_000)
# Eight decimals: a millionth of a cent, finer than any single call's price step.
_QUANTUM = Decimal("0.00000001")


def cost_usd(model: str | None, input_tokens: int | None, output_tokens: int | None) -> float | None:
    """What a call cost at the model's published price; None when the price or a count is unknown."""
    price = PRICES.get(model or "")
    if price is None or input_tokens is None or output_tokens is None:
        return None
    total = (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / _MILLION
    return float(total.quantize(_QUANTUM))
