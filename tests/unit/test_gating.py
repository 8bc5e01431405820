from aurra_core.models import KeySettings, SkippedReason
from aurra_core.write_path.gating import gate

FACT = "alice uses Emacs"


def settings(**kw) -> KeySettings:
    return KeySettings(**kw)


def test_server_flag_off_wins_over_everything():
    assert (
        gate(
            level2_enabled=False,
            requested=True,
            key_settings=settings(auto_supersede_default=True),
            topic="preferences",
            content=FACT,
        )
        == SkippedReason.LEVEL_2_DISABLED_BY_ENV
    )


def test_not_requested_and_key_default_off():
    assert (
        gate(level2_enabled=True, requested=None, key_settings=settings(), topic="general", content=FACT)
        == SkippedReason.AUTO_SUPERSEDE_OFF
    )


def test_request_false_beats_key_default_true():
    assert (
        gate(
            level2_enabled=True,
            requested=False,
            key_settings=settings(auto_supersede_default=True),
            topic="general",
            content=FACT,
        )
        == SkippedReason.AUTO_SUPERSEDE_OFF
    )


def test_request_true_beats_key_default_false():
    assert (
        gate(level2_enabled=True, requested=True, key_settings=settings(), topic="general", content=FACT)
        is None
    )


def test_key_default_applies_when_request_is_silent():
    assert (
        gate(
            level2_enabled=True,
            requested=None,
            key_settings=settings(auto_supersede_default=True),
            topic="general",
            content=FACT,
        )
        is None
    )


def test_excluded_topic_is_gated_after_the_opt_ins():
    ks = settings(auto_supersede_default=True)
    assert (
        gate(level2_enabled=True, requested=None, key_settings=ks, topic="health_medical", content=FACT)
        == SkippedReason.EXCLUDED_CATEGORY
    )
    assert (
        gate(level2_enabled=True, requested=None, key_settings=ks, topic="legal_status", content=FACT)
        == SkippedReason.EXCLUDED_CATEGORY
    )
    custom = settings(auto_supersede_default=True, excluded_categories=["financial"])
    assert (
        gate(level2_enabled=True, requested=None, key_settings=custom, topic="financial", content=FACT)
        == SkippedReason.EXCLUDED_CATEGORY
    )
    assert (
        gate(level2_enabled=True, requested=None, key_settings=custom, topic="health_medical", content=FACT)
        is None
    )


def test_a_default_topic_fact_is_gated_by_the_matter_its_words_name():
    ks = settings(auto_supersede_default=True)
    said = "alice sees a therapist on Tuesdays"
    assert gate(level2_enabled=True, requested=None, key_settings=ks, topic="general", content=said) == (
        SkippedReason.EXCLUDED_CATEGORY
    )
    # a topic the caller gave stands as given
    assert gate(level2_enabled=True, requested=None, key_settings=ks, topic="wellbeing", content=said) is None
