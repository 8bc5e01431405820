"""`client.settings`: the settings of the API key in use."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from aurra._request import NOT_GIVEN, APICall, NotGiven, compact, given
from aurra.errors import InvalidArgumentError
from aurra.models import SettingsResult
from aurra.resources._base import AsyncResource, SyncResource

_PATH = "/agent/settings"
# What a write carrying credentials gets (docs/api.md, "Secrets").
SecretsMode = Literal["redact", "refuse"]


def _get_call() -> APICall[SettingsResult]:
    return APICall("GET", _PATH, SettingsResult.model_validate)


def _update_call(
    auto_supersede_default: bool | None,
    excluded_categories: Sequence[str] | None,
    min_confidence: float | None,
    classifier_model: str | None,
    proposal_min_confidence: float | NotGiven | None,
    daily_model_calls_limit: int | NotGiven | None,
    secrets: SecretsMode | None,
    daily_model_cost_limit_usd: float | NotGiven | None = NOT_GIVEN,
    history_retention_days: int | NotGiven | None = NOT_GIVEN,
    memory_retention_days: int | NotGiven | None = NOT_GIVEN,
    webhooks: Sequence[Mapping[str, Any]] | None = None,
) -> APICall[SettingsResult]:
    if isinstance(excluded_categories, str):
        # A lone string is a Sequence too; sending its characters as topics is never what was meant.
        raise InvalidArgumentError("excluded_categories must be a list of topics, not a string")
    if webhooks is not None and (
        isinstance(webhooks, (str, bytes, Mapping)) or not all(isinstance(w, Mapping) for w in webhooks)
    ):
        # The list replaces the key's: one webhook alone must still come as a list of one.
        raise InvalidArgumentError("webhooks must be a list of {url, events, secret} mappings")
    body = compact(
        auto_supersede_default=auto_supersede_default,
        excluded_categories=list(excluded_categories) if excluded_categories is not None else None,
        min_confidence=min_confidence,
        classifier_model=classifier_model,
        secrets=secrets,
        webhooks=[dict(w) for w in webhooks] if webhooks is not None else None,
    ) | given(
        proposal_min_confidence=proposal_min_confidence,
        daily_model_calls_limit=daily_model_calls_limit,
        daily_model_cost_limit_usd=daily_model_cost_limit_usd,
        history_retention_days=history_retention_days,
        memory_retention_days=memory_retention_days,
    )
    if not body:
        raise InvalidArgumentError(
            "settings.update() needs at least one of auto_supersede_default, excluded_categories, "
            "min_confidence, classifier_model, proposal_min_confidence, daily_model_calls_limit, "
            "secrets, daily_model_cost_limit_usd, history_retention_days, memory_retention_days, webhooks"
        )
    return APICall("PATCH", _PATH, SettingsResult.model_validate, body=body)


class Settings(SyncResource):
    def get(self) -> SettingsResult:
        """The key's settings (GET /agent/settings)."""
        return self._transport.send(_get_call())

    def update(
        self,
        *,
        auto_supersede_default: bool | None = None,
        excluded_categories: Sequence[str] | None = None,
        min_confidence: float | None = None,
        classifier_model: str | None = None,
        proposal_min_confidence: float | NotGiven | None = NOT_GIVEN,
        daily_model_calls_limit: int | NotGiven | None = NOT_GIVEN,
        secrets: SecretsMode | None = None,
        daily_model_cost_limit_usd: float | NotGiven | None = NOT_GIVEN,
        history_retention_days: int | NotGiven | None = NOT_GIVEN,
        memory_retention_days: int | NotGiven | None = NOT_GIVEN,
        webhooks: Sequence[Mapping[str, Any]] | None = None,
    ) -> SettingsResult:
        """Change any subset of the settings; returns all of them.

        `min_confidence` below 0.85, or a `classifier_model` the deployment does not
        allow, is a ValidationError. `proposal_min_confidence` (below `min_confidence`),
        `daily_model_calls_limit` (>= 0) and `daily_model_cost_limit_usd` (dollars, >= 0)
        take None as a value: no proposals, no limit; so do `history_retention_days` and
        `memory_retention_days` (>= 1): None keeps memories for ever. `secrets`: "redact"
        (credentials in a write are replaced by [REDACTED:<kind>]) or "refuse" (such a write
        is a ValidationError with code "sensitive_content"). `webhooks` replaces the key's
        list (at most 5 of {"url", "events", "secret"}; [] removes them all; a URL the key
        already has may leave out its secret, which it keeps).
        """
        return self._transport.send(
            _update_call(
                auto_supersede_default,
                excluded_categories,
                min_confidence,
                classifier_model,
                proposal_min_confidence,
                daily_model_calls_limit,
                secrets,
                daily_model_cost_limit_usd,
                history_retention_days,
                memory_retention_days,
                webhooks,
            )
        )


class AsyncSettings(AsyncResource):
    async def get(self) -> SettingsResult:
        """The key's settings (GET /agent/settings)."""
        return await self._transport.send(_get_call())

    async def update(
        self,
        *,
        auto_supersede_default: bool | None = None,
        excluded_categories: Sequence[str] | None = None,
        min_confidence: float | None = None,
        classifier_model: str | None = None,
        proposal_min_confidence: float | NotGiven | None = NOT_GIVEN,
        daily_model_calls_limit: int | NotGiven | None = NOT_GIVEN,
        secrets: SecretsMode | None = None,
        daily_model_cost_limit_usd: float | NotGiven | None = NOT_GIVEN,
        history_retention_days: int | NotGiven | None = NOT_GIVEN,
        memory_retention_days: int | NotGiven | None = NOT_GIVEN,
        webhooks: Sequence[Mapping[str, Any]] | None = None,
    ) -> SettingsResult:
        """Change any subset of the settings; returns all of them.

        `min_confidence` below 0.85, or a `classifier_model` the deployment does not
        allow, is a ValidationError. `proposal_min_confidence` (below `min_confidence`),
        `daily_model_calls_limit` (>= 0) and `daily_model_cost_limit_usd` (dollars, >= 0)
        take None as a value: no proposals, no limit; so do `history_retention_days` and
        `memory_retention_days` (>= 1): None keeps memories for ever. `secrets`: "redact"
        (credentials in a write are replaced by [REDACTED:<kind>]) or "refuse" (such a write
        is a ValidationError with code "sensitive_content"). `webhooks` replaces the key's
        list (at most 5 of {"url", "events", "secret"}; [] removes them all; a URL the key
        already has may leave out its secret, which it keeps).
        """
        return await self._transport.send(
            _update_call(
                auto_supersede_default,
                excluded_categories,
                min_confidence,
                classifier_model,
                proposal_min_confidence,
                daily_model_calls_limit,
                secrets,
                daily_model_cost_limit_usd,
                history_retention_days,
                memory_retention_days,
                webhooks,
            )
        )
