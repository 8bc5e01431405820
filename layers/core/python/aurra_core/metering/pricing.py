"""Published prices of the models Aurra calls, per million tokens, in US dollars.

A model that is not in the table has no cost (None), never a guess: add it here, with its
published price, when a key starts using it. Prices are those of the Anthropic API; Claude on
Amazon Bedrock (on-demand, through the geographic inference profiles) is priced the same. Anthropic prices
prompt caching for every Claude model as multiples of its input price: writing the 5-minute
cache 1.25x, reading it 0.1x.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_UP, Decimal

# The day the prices below were checked against the providers' published model pages.
PRICES_CHECKED = date(2026, 11, 30)


@dataclass(frozen=True)
class Price:
    input_per_mtok: Decimal
    output_per_mtok: Decimal
    cache_write_per_mtok: Decimal
    cache_read_per_mtok: Decimal


def claude(input_per_mtok: str, output_per_mtok: str) -> Price:
    base = Decimal(input_per_mtok)
    return Price(base, Decimal(output_per_mtok), base * Decimal("1.25"), base * Decimal("0.1"))


_FREE = Price(Decimal("0"), Decimal("0"), Decimal("0"), Decimal("0"))

PRICES: dict[str, Price] = {
    "claude-haiku-4-5-20251001": claude("1.00", "5.00"),
    "claude-sonnet-4-5-20250929": claude("3.00", "15.00"),
    "claude-opus-4-5-20251101": claude("5.00", "25.00"),
    "claude-opus-4-1-20250805": claude("15.00", "75.00"),
    "claude-sonnet-5": claude("2.00", "10.00"),
    # The offline rules classifier and extractor run in the function itself: no cost per call.
    "aurra-rules-v7": _FREE,
    "aurra-rules-v39": _FREE,
    "aurra-rules-v38": _FREE,  # usage recorded before v39
    "aurra-rules-v37": _FREE,  # usage recorded before v38
    "aurra-rules-v36": _FREE,  # usage recorded before v37
    "aurra-rules-v35": _FREE,  # usage recorded before v36
    "aurra-rules-v34": _FREE,  # usage recorded before v35
    "aurra-rules-v33": _FREE,  # usage recorded before v34
    "aurra-rules-v32": _FREE,  # usage recorded before v33
    "aurra-rules-v31": _FREE,  # usage recorded before v32
    "aurra-rules-v30": _FREE,  # usage recorded before v31
    "aurra-rules-v29": _FREE,  # usage recorded before v30
    "aurra-rules-v28": _FREE,  # usage recorded before v29
    "aurra-rules-v26": _FREE,  # usage recorded before v27
    "aurra-rules-v25": _FREE,  # usage recorded before v26
    "aurra-rules-v24": _FREE,  # usage recorded before v25
    "aurra-rules-v22": _FREE,  # usage recorded before v23
    "aurra-rules-v21": _FREE,  # usage recorded before v22
    "aurra-rules-v20": _FREE,  # usage recorded before v21
    "aurra-rules-v19": _FREE,  # usage recorded before v20
    "aurra-rules-v18": _FREE,  # usage recorded before v19
    "aurra-rules-v17": _FREE,  # usage recorded before v18
    "aurra-rules-v16": _FREE,  # usage recorded before v17
    "aurra-rules-v15": _FREE,  # usage recorded before v16
    "aurra-rules-v14": _FREE,  # usage recorded before v15
    "aurra-rules-v13": _FREE,  # usage recorded before v14
    "aurra-rules-v12": _FREE,  # usage recorded before v13
    "aurra-rules-v11": _FREE,  # usage recorded before v12
    "aurra-rules-v10": _FREE,  # usage recorded before v11
    "aurra-rules-v9": _FREE,  # usage recorded before v10
    "aurra-rules-v8": _FREE,  # usage recorded before v9
    "aurra-rules-v6": _FREE,  # usage recorded before v7
    "aurra-rules-v5": _FREE,  # usage recorded before v6
    "aurra-rules-v4": _FREE,  # usage recorded before v5
    "aurra-rules-v3": _FREE,  # usage recorded before v4
    "aurra-rules-extractor-v1": _FREE,
    "aurra-rules-extractor-v2": _FREE,
}

_MILLION = Decimal(1_000_000)
# Eight decimals: a millionth of a cent, finer than any single call's price step.
_QUANTUM = Decimal("0.00000001")


def cost_usd(
    model: str | None,
    input_tokens: int | None,
    output_tokens: int | None,
    cache_read_input_tokens: int | None = None,
    cache_creation_input_tokens: int | None = None,
) -> float | None:
    """What a call cost at the model's published price; None when the price or a count is unknown.

    Cache reads and writes are input tokens the provider counts apart from `input_tokens`
    (which then counts only the rest) and bills at their own prices; a provider that says
    nothing about its cache (None) had none to bill."""
    price = PRICES.get(model or "")
    if price is None or input_tokens is None or output_tokens is None:
        return None
    total = (
        input_tokens * price.input_per_mtok
        + output_tokens * price.output_per_mtok
        + (cache_creation_input_tokens or 0) * price.cache_write_per_mtok
        + (cache_read_input_tokens or 0) * price.cache_read_per_mtok
    ) / _MILLION
    return float(total.quantize(_QUANTUM))


def most_usd(model: str | None, input_tokens: int, output_tokens: int) -> float:
    """The most a call of `model` with at most these tokens can cost: every input token at the
    dearest input price (a cache write), rounded up. 0 for a model without a price (its calls
    are counted, not priced)."""
    price = PRICES.get(model or "")
    if price is None:
        return 0.0
    dearest_input = max(price.input_per_mtok, price.cache_write_per_mtok, price.cache_read_per_mtok)
    total = (input_tokens * dearest_input + output_tokens * price.output_per_mtok) / _MILLION
    return float(total.quantize(_QUANTUM, rounding=ROUND_UP))
