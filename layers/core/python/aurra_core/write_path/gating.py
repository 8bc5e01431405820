"""The gates that run before any model sees a fact. Plain code, in the documented order."""

from __future__ import annotations

from aurra_core.models import KeySettings, SkippedReason


def auto_supersede_requested(requested: bool | None, key_settings: KeySettings) -> bool:
    """The request wins over the key's default."""
    return key_settings.auto_supersede_default if requested is None else requested


def gate_before_settings(*, level2_enabled: bool, requested: bool | None) -> SkippedReason | None:
    """The gates the key's settings cannot open: a write they close never reads the settings."""
    if not level2_enabled:
        return SkippedReason.LEVEL_2_DISABLED_BY_ENV
    if requested is False:
        return SkippedReason.AUTO_SUPERSEDE_OFF
    return None


def gate(
    *, level2_enabled: bool, requested: bool | None, key_settings: KeySettings, topic: str
) -> SkippedReason | None:
    """Why Level 2 must not run for this write, or None when it may."""
    skipped = gate_before_settings(level2_enabled=level2_enabled, requested=requested)
    if skipped is not None:
        return skipped
    if not auto_supersede_requested(requested, key_settings):
        return SkippedReason.AUTO_SUPERSEDE_OFF
    if topic in key_settings.excluded_categories:
        return SkippedReason.EXCLUDED_CATEGORY
    return None
