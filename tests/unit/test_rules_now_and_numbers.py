"""Rules v9: "now" as change evidence, a number in place of the old one beside the same word,
"to N from M", "every other" as a frequency, versions replaced by name, and a move to another
tool of the old one's kind.

None of these pairs appear in any set under evals/. Each acted-on pair has a twin that must not
be acted on, so a rule that acted on everything would fail here.
"""

from __future__ import annotations

import uuid

import pytest

from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.models import Verdict

ACTION = 0.85


def judge_pair(old: str, new: str) -> tuple[Verdict, float, str]:
    """The classifier's verdict on one pair, as Level 2 gets it."""
    verdict = RulesClassifier().judge(old, new, uuid.uuid4())
    return verdict.verdict, verdict.confidence, verdict.reason


ACTED_ON = [
    # "now" sets the value against the old one
    ("User's standup is on Mondays", "User's standup is on Tuesdays now"),
    ("User's band rehearses on Thursdays", "User's band rehearses on Fridays now"),
    # a number of the same kind, beside the same word, with change language
    ("User's ferry leaves at 7.40", "The timetable changed, so the ferry leaves at 8.10 now"),
    ("User sells the mugs for £12 each", "User's mugs are 15 now"),
    # the new fact names the old number as the one it changed from
    ("User has 14 chickens", "Foxes got some, down to 9 from 14"),
    ("User's rent is $1,450", "User's rent went up to $1,600 from $1,450."),
    # every version the old fact names, given another by name
    (
        "User's shop still runs on PHP 7.4 and Laravel 8.2",
        "User's shop is on PHP 8.3 and Laravel 11.0 as of May",
    ),
    # the version alone, still waiting to change, and an upgrade of it that names no other thing
    (
        "User is still on blender 3.6",
        "User said: took the plunge, on 4.2 now, the addon dev finally updated it.",
    ),
    (
        "User's robot still runs on ROS 1.16",
        "User finally moved the robot to 2.4, had to rewrite the drivers",
    ),
    # a move to another tool of the old one's kind
    ("User keeps their passwords in 1Password", "User moved to Bitwarden, 300 logins imported"),
    # a role at another place: the employer replaced
    ("User is a data analyst at Kestrel Bank", "User is a data analyst at Orchard Health now"),
    # "now" after the number is no span of time: the team's size
    (
        "User's team is a team of 6 on the payments squad",
        "User's team is a team of 9 now, 3 new hires started",
    ),
    # design apps and photo editors are tools of a kind, one at a time
    (
        "User's design team does UI + handoff in Sketch",
        "User's team finished the switch: everything is in Figma now",
    ),
    ("User edits photos in Lightroom", "User said: moved to darktable last month"),
    # the user acting on the named person's attribute
    ("User's son Ollie's bedtime is half seven", "User moved Ollie's bedtime to eight o'clock"),
    # a value said to hold from a date on, since a recent time, or after a cut
    (
        "User said: in my building the garbage for segregation is collected on Tuesday",
        "User said: Small change: from June the segregation is collected on Thursday.",
    ),
    (
        "User said: Bin day here is Wednesday, recycling every other week.",
        "User said: From 9 Feb collection is Monday, recycling still fortnightly.",
    ),
    ("User's AWS budget is $18k/month", "User said: @bot budget got cut after the Q3 review → $14k/month."),
    ("User's team tracks everything in Trello", "User's team has been on Linear since last sprint"),
    # a new job about to start, as a move about to happen
    (
        "User is a data analyst at Hollis Insurance, mostly SQL + Tableau",
        "User is starting at Monzo on the 1st as an analytics engineer",
    ),
    # from a recent point on: "as of this month" holds the value from this month
    (
        "User goes into the office on Tuesdays and Thursdays and works from home the rest of the week",
        "User said: The firm has a new hybrid policy as of this month: fixed team days, and ours are Mondays and Wednesdays.",
    ),
    # a memory kept as said is about the person of the old fact it names
    (
        "User's son Ollie's bedtime is half seven",
        "User said: we gave up fighting it and moved Ollie's bedtime to eight o'clock since the new year",
    ),
    (
        "User's wife Priya drives the Civic to work every day",
        "User said: we sold the Civic last month, Priya is doing the train now",
    ),
    # a memory kept as said is about whom its sentence is about: here the partner the old fact names
    (
        "User's partner Ines is a pharmacist at Boots",
        "User said: Ines just started a new job, she's a pharmacist at Superdrug now",
    ),
]

NOT_ACTED_ON = [
    # "hire 2 more designers": an increment, not the team's new size
    (
        "User said: context: senior product designer at Loomly, 4-person design team",
        "User said: now I have to hire 2 more designers, can you help me write a JD",
    ),
    # a part of the line, closed for a season
    (
        "User takes metro Line 6 from Oporto to Nuevos Ministerios every morning",
        "User said: ok so they closed a chunk of Line 6 por obras all summer",
    ),
    # "still ... as of this month": the same value, said again
    ("User works at Canva", "User still works at Canva as of this month"),
    # "now" that is not about this value's time, or a thing beside the old one
    ("User's standup is on Mondays", "User's standup is on Mondays for now"),
    ("User has a cat named Pixel", "User now has a dog named Rufus"),
    ("User's team uses Slack", "Now that the office reopened, User's team meets on Fridays"),
    # a number beside another word: another slot
    ("User's ferry leaves at 7.40", "The timetable changed, so the bus leaves at 8.10 now"),
    # the old number said again
    ("User sells the mugs for £12 each", "User's mugs are still 12 now, the bowls are 20"),
    # a running total grows and stays true
    ("User has read 3 of the books so far", "User has now read 4 of the books so far"),
    # "to N from M" that does not name the old fact's number
    ("User has 14 chickens", "User drove to 90 from 70 on the motorway"),
    # one of several values of the old fact: replacing it would retire the others
    ("User pays 9.99 for music, 12.99 for films and 40 for the pool", "User's pool raised it to 45"),
    (
        "User said: netflix 10.99, spotify family 19.99, and the climbing gym at 55/month.",
        "User's gym raised it to 62",
    ),
    # not every named version given another
    ("User's shop runs on PHP 7.4 and Laravel 8.2", "User's shop is on Laravel 11.0 now"),
    # the version of another thing, or an older number than the one the old fact was still on
    ("User is still on Blender 3.6", "User's Python is on 3.12 now"),
    ("User is still on Blender 3.6", "User said: the app is on 2.1 now"),
    # a version-like number with nothing of the old fact's thing
    ("User is still on Blender 3.6", "User's train leaves at 2.45 now"),
    # the user's own new job, kept as said, is not the partner's
    (
        "User's partner Ines is a pharmacist at Boots",
        "User said: I just started a new job, I'm a pharmacist at Superdrug now",
    ),
    # the team's size changed, not who runs it: "after the reorg" is no value of "runs"
    (
        "User runs the pricing team",
        "User said: After the reorg the pricing team grew to six, two analysts came over.",
    ),
    # a second tool for a purpose of its own
    ("User edits photos in Lightroom", "User said: I also use Photoshop for retouching"),
    # nothing said the same but "now" or a number is no same wording
    ("User is staying on 14 for now", "User said: and logic is 11.1 now"),
    ("User said: idk if my plugins work on 15", "User said: ok updated to macOS 15 over xmas"),
    # a ticket's number is no count
    (
        "User said: yeah that's the plan, ticket INFRA-94 for the runners",
        "User said: INFRA-88 closed old Jenkins box decommissioned, everything builds on GitHub Actions now",
    ),
    # a taste is no value of a move
    ("User's dad likes cooking", "User's dad moved in with them in October"),
    # a period from a month to another is not a value from then on
    ("User is in Lisbon in May", "User is in Porto from June to August"),
    # who a named person is stays when something of theirs changes
    ("User's daughter Wanjiru", "User said: so swimming changed for Wanjiru, it's Sundays now"),
    # someone of theirs is not the person the old fact names
    ("User's son Leo plays football on Tuesdays", "User said: Leo's friend Sam plays on Thursdays now"),
    ("User's son Leo plays football on Tuesdays", "Leo's friend Sam plays on Thursdays now"),
    # a shared schedule word ("5-day", "day rate") says nothing of which amount
    (
        "User said: - standard 5-day site audit package = $3,250",
        "User said: day rate went to 720 USD on March 1",
    ),
    # whose the facts are ("User's team") is no anchor for another value of theirs
    ("User's team uses GitHub Actions for CI", "User's team is eleven engineers now"),
    ("User's team does 1 week each rn", "User's team is 9 now"),
    ("User's team eats everything", "User's team has moved their big run to Sunday evenings"),
    ("User runs the pricing team", "User's team moved off Tableau to Looker last month"),
    # a count of something else is not the old count said again without its unit
    (
        "User said: 5 players, they just hit level 4.",
        "User said: we moved dnd to 7 because two have babies now.",
    ),
    # a version is not a model number
    (
        "User said: it lives on a raspberry pi 4 in my closet",
        "User said: finally bumped the bot to 3.12, had to reflash the pi",
    ),
    # a time moved to, when the old fact holds no time or count: another thing moved
    (
        "User needs a mini boss for next week now",
        "User said: we moved dnd to 7 because two of them have babies now and need to be home early.",
    ),
]


@pytest.mark.parametrize(("old", "new"), ACTED_ON)
def test_a_new_value_said_as_a_change_is_acted_on(old: str, new: str) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert verdict is Verdict.CONTRADICTS and confidence >= ACTION, (verdict, confidence, reason)


@pytest.mark.parametrize(("old", "new"), NOT_ACTED_ON)
def test_the_same_words_about_another_slot_or_time_are_not_acted_on(old: str, new: str) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert not (verdict is Verdict.CONTRADICTS and confidence >= ACTION), (verdict, confidence, reason)


def test_every_other_week_is_how_often_not_one_more() -> None:
    """'every other Friday' -> 'every other Thursday': 'other' is a frequency here, not an
    additive one; 'the other studio' still is another one."""
    verdict, confidence, reason = judge_pair(
        "User's cleaner comes every other Friday", "User's cleaner comes every other Thursday now"
    )
    assert verdict is Verdict.CONTRADICTS and confidence >= ACTION, (verdict, confidence, reason)
    verdict, confidence, reason = judge_pair(
        "User's pottery class is on Fridays", "User's pottery class at the other studio is on Thursdays now"
    )
    assert not (verdict is Verdict.CONTRADICTS and confidence >= ACTION), (verdict, confidence, reason)
