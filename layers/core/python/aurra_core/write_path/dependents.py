"""Dependent facts: when a supersession replaces a value, the current memories that rested on it
become `dependency_proposed` events in the review queue, never acted on (docs/api.md,
"Dependent facts").

A memory rests on the replaced value when it is of the same scope and subject and
- names the value ("User has about 9,000 notes in Evernote" once "User uses Evernote" gave way
  to "User switched from Evernote to Obsidian"), or
- was taken from the same message as the old memory and points back at what it said ("User
  pays 180€ a month for a desk there"), or
- was taken from the same message as an old memory of where the user lives or works, and tells
  of the life around that place: the way there and back, a club, a gym, a walk along the
  seafront, the desk or the rent paid for it ("I live in Bournemouth and walk along the seafront
  most mornings").
"""

from __future__ import annotations

import re
from datetime import datetime
from uuid import UUID

import psycopg
from aws_lambda_powertools.metrics import MetricUnit

from aurra_core.models import Caller, Scope
from aurra_core.runtime.observability import metrics
from aurra_core.storage import store
from aurra_core.text_analysis import slots

# Words that point back, in the same message, at a place ("a flat there") or at a thing ("300
# passwords in there", "the notes in it"): which ones depends on what the supersession replaced,
# so that "there" leans on Leeds, not on the Vim said in the same message
_POINTS_BACK_AT_A_PLACE = r"\m(there|the place|that place)\M"
_POINTS_BACK_AT_A_THING = r"\m(in it|on it|with it|for it|in there|on there)\M"

# An old memory of where the user lives or works: "lives in Leeds", "is renting in Rathmines",
# "User's office is at Salford Quays", "works out of a coworking in Santos", "is a nurse at
# St Vincent's".
# (plain `re`: the layer stores programs for the classifier's and the text analysis' own
# expressions only, `infra/components/layer.py`)
_WHERE_THEY_LIVE_OR_WORK = re.compile(
    r"\b(?:lives?|living|based|renting|rents|office|campus|coworking|cowork|desk|moved|"
    r"works? (?:at|for|out of|from|as)|is an? [\w -]+ at)\b",
    re.IGNORECASE,
)
# The life that rests on such a place, said in the same breath (PostgreSQL ARE): the way to it
# ("cycles in along the canal", "gets the Metrolink in", "45 minutes each way", "takes the
# Northern line"), what is done around it ("boulders at Ostbloc", "a member of the Denver Rock
# Club", "runs with a running club", "walks along the seafront", "grabs lunch at the market"),
# what is paid or shared for it ("the hot desk is $450 a month", "the rent", "my flatmates"),
# and what points back at it ("works there", "been there four years").
_LIFE_AROUND_THE_PLACE = (
    r"\y(commut\w*|each way|door to door|"
    r"(cycl|bik|walk|driv|rid|run|swim|boulder|climb|train|lift|volunteer|hik)\w* "
    r"(in|to|from|along|with|at|there|home|laps)|"
    r"member of|membership|\w+ (club|gym|centre|center|library|market)|"
    r"tram|metro|subway|tube|ferry|(the|a) \w+ line|"
    r"\w+ there|there for|lunch (at|near)|school run|"
    r"rent|desk|lease|landlord|flatmates?|housemates?|neighbou?rs?)\y"
)


def _points_back(values: list[str]) -> str:
    from aurra_core.text_analysis.kinds import kinds_of

    places = {"place", "home", "address", "workplace"}
    return (
        _POINTS_BACK_AT_A_PLACE
        if any(kinds_of(value) & places for value in values)
        else _POINTS_BACK_AT_A_THING
    )


def _life_around(old_content: str, values: list[str]) -> str | None:
    """The expression of the life around the place the old memory says the user lives or works
    in, when it says so and a name it holds was replaced (not a number: a new rent or team size
    moves no one); None otherwise."""
    if all(any(ch.isdigit() for ch in value) for value in values):
        return None
    return _LIFE_AROUND_THE_PLACE if _WHERE_THEY_LIVE_OR_WORK.search(old_content) else None


def propose(
    conn: psycopg.Connection,
    caller: Caller,
    old: store.MemoryRow,
    new: store.MemoryRow,
    supersession_event_id: UUID,
    now: datetime,
) -> int:
    """Queue for review the current memories that rested on a value the supersession of `old`
    by `new` replaced (the module's docstring says which): a `dependency_proposed` event each,
    in one statement, and only when the old memory names a value the new one replaced.
    Memories this transaction wrote are not theirs to lean on. Returns how many were queued."""
    values = slots.replaced_values(old.content, new.content)
    subject = slots.subject_pattern(slots.subject_of(old.content))
    if not values or subject is None:
        return 0
    queued = store.propose_dependents(
        conn,
        caller.tenant_id,
        caller.api_key_id,
        scope=Scope(user_id=old.user_id, agent_id=old.agent_id),
        subject_pattern=subject,
        values=[(value, slots.word_pattern(value)) for value in values],
        old_id=old.memory_id,
        new_id_=new.memory_id,
        supersession_event_id=supersession_event_id,
        now=now,
        said_with=store.SaidWith(
            old.conversation_id,
            old.source_message_indexes,
            _points_back(values),
            _life_around(old.content, values),
        )
        if old.conversation_id and old.source_message_indexes
        else None,
    )
    if queued:
        metrics.add_metric(name="DependenciesProposed", unit=MetricUnit.Count, value=queued)
    return queued
