"""Rules v9: "now" as change evidence, a number in place of the old one beside the same word,
"to N from M", "every other" as a frequency, versions replaced by name, and a move to another
tool of the old one's kind. Rules v15: how often a thing is done ("twice a week", "3x a week",
"4 days a week") as a value of its own, replaced when the same thing is done at another rate
with a word of change, or when the new fact says nothing but the new rate ("on 5 a week now")
and only one memory has a rate; a number said alone ("on 28 now") as the new value of a count
the same way (of the user in person, "is 34 now", an age). Rules v16: amounts said to go up or
down to a number, a start at another employer, one more got and numbered, a weekday, an hour
and a version said on their own, "'s" for "is". Rules v22: a time of day or a version number
said on its own ("on the 06:48 now", "bumped to 3.12") as the new value of the one the old fact
gives, an amount said on its own ("it's $1,950 now") of the one amount the old fact pays each
month or year, "from this month" or a reshuffled schedule as words of change, and a helpdesk,
a site's platform, a music, video or CAD app, an energy supplier as things one has one of, and
a title said without an article ("is headteacher now"), a job taken with another employer and
a home called home; "on the side" adds one; a change said to be under way ("is moving to
Berlin next month") is done when its target is said to hold ("lives in Berlin now"); a
friendship the user fell out of ends; "retrained as" is a word of change; "broke up" is a verb
after a relative ("User's sister broke up with Tom"); retiring ends a trade held ("is a plumber");
a child's school said as a year or a start there ("started reception at St Peter's").

None of these pairs appear in any set under evals/. Each acted-on pair has a twin that must not
be acted on, so a rule that acted on everything would fail here.
"""

from __future__ import annotations

import uuid

import pytest

from aurra_core.classifiers.base import Candidate
from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.classifiers.rules_facts import analyze
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
    # a length of time beside the rate is no second rate the new one could be of
    ("User's rate is 450€/day project ~15 days", "User bumped their rate to 520€/day for new clients"),
    # a count for this term in place of the one for the moment ("back to back" returns to nothing)
    (
        "User teaches piano from home, 14 students at the moment",
        "User said: 22 students this term which is great but tuesdays are now back to back 3:30 til 8",
    ),
    # every version the old fact names, a later one reached at last
    ("User's main client app is rails 7.0 on ruby 3.1", "User said: ok finally on ruby 3.3 + rails 7.2"),
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
    # another number of the old fact that measures another thing (a unit of its own, none of
    # the new number's words): no list of values the swap would retire
    (
        "User is on Lightroom Classic 12 on a 2019 Intel MacBook Pro with 16 GB of RAM",
        "User is on Lightroom Classic 14 now",
    ),
    # a routine named first in the user's sentence is no person's name ("Swim is saturdays")
    ("User said: Swim is saturdays at 8am at the Y", "User said: swim is sundays 11am now"),
    # every number of the old fact given another beside its own word: none retired
    (
        "User is property manager for a housing co-op, 23 units across two buildings in Headingley",
        "User is looking after 41 units now across three buildings",
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
    ("User pays 450 a day, 300 a day for the team", "User bumped their rate to 520 a day"),
    (
        "User said: netflix 10.99, spotify family 19.99, and the climbing gym at 55/month.",
        "User's gym raised it to 62",
    ),
    # another number of the old fact without a unit: of the same list, perhaps, or of the
    # same one (an age beside a school year: "3 in place of 7" would be the wrong reason)
    ("User's son Leo (7) just started Year 2", "User said: Leo is in Year 3 now"),
    # not every named version given another
    ("User's shop runs on PHP 7.4 and Laravel 8.2", "User's shop is on Laravel 11.0 now"),
    # "finally" on an older version of one of them is no upgrade of every one
    ("User's main client app is rails 7.0 on ruby 3.1", "User said: ok finally on ruby 3.3 + rails 6.1"),
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
    # nor but the change's own words ("no longer"): the hours put up with are not the hospital
    ("User said: y ya no aguanto los horarios.", "User is no longer at the hospital"),
    ("User no longer likes the late shifts", "User is no longer at the hospital"),
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


@pytest.mark.parametrize(
    ("text", "rates"),
    [
        ("User goes to the pool twice a week", {"times/week": {2}}),
        ("User rows 3x a week", {"times/week": {3}}),
        ("User does yoga four times per week", {"times/week": {4}}),
        ("User lifts 5x/week", {"times/week": {5}}),
        ("User is in the office 3 days a week", {"day/week": {3}}),
        ("User volunteers 6 hours a month", {"hour/month": {6}}),
        ("User does 2 sessions weekly", {"times/week": {2}}),
        ("User feeds the fish twice a day", {"times/day": {2}}),
        # no rate: a dose or a count a day, money a week, a span of months
        ("User drinks 3 a day", {}),
        ("User pays $40 a week for the allotment", {}),
        ("User signed a 6 month lease", {}),
    ],
)
def test_how_often_is_read_with_what_is_counted_and_per_what(text: str, rates: dict[str, set[int]]) -> None:
    assert analyze(text).rates == rates


RATE_ACTED_ON = [
    # the same thing done at another rate, with a word of change
    ("User goes to the pool twice a week", "User goes to the pool 4x a week now"),
    ("User is in the office 3 days a week", "User is in the office 2 days a week now"),
    (
        "User volunteers at the shelter 6 hours a month",
        "User volunteers at the shelter 10 hours a month these days",
    ),
    # nothing but the new rate, said as a change
    ("User rows 3x a week on the canal", "User is on 5 a week now"),
    # nothing but the new number, said as a change, of the one count the old fact has
    ("User teaches a class of 22 pupils", "User is on 25 now"),
    ("User has 14 kids in the under-10s squad", "User said: so 12 now"),
    # the count of the same thing, whatever else the old sentence told of it
    ("User keeps 5 goats (3 nannies, 2 wethers) and the milk yield is down", "User said: so 7 goats now."),
]

RATE_NOT_ACTED_ON = [
    # another thing done at its own rate
    ("User goes to the pool twice a week", "User goes to choir 4x a week now"),
    # the same rate said again
    ("User rows 3x a week on the canal", "User rows 3 times a week now"),
    # another rate of the same thing, with no word of change: a second routine may be meant
    ("User goes to the pool twice a week", "User goes to the pool 4 times a week"),
    # days a week and times a week are not one rate
    ("User is in the office 3 days a week", "User is on 5 a week now"),
    # two rates in the old fact: which one changed is not said
    ("User rows 3x a week and swims twice a week", "User is on 5 a week now"),
    # a number of the user in person is an age, not a count of theirs
    ("User has 2 kids", "User is 34 now"),
    ("User teaches a class of 22 pupils", "User is 41 now"),
    # more said than the number, and nothing that says what it counts
    ("User has 14 kids in the under-10s squad", "User said: lost a few to rugby, so 12 now"),
    # the same number again
    ("User teaches a class of 22 pupils", "User is on 22 now"),
    # a number of nothing named
    ("User said: tables of six ish", "User is on 8 now"),
    # a count of another thing
    ("User's team keeps everything in one shared spreadsheet", "User's team is 6 now"),
    # two counts of the same thing in the old fact: which one changed is not said
    ("User fosters 2 cats at home and 3 cats at the rescue", "User has 4 cats now"),
    # two counts in the old fact
    ("User teaches 22 pupils and 3 teaching assistants", "User is on 25 now"),
]


@pytest.mark.parametrize(("old", "new"), RATE_ACTED_ON)
def test_another_rate_of_the_same_thing_said_as_a_change_is_acted_on(old: str, new: str) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert verdict is Verdict.CONTRADICTS and confidence >= ACTION, reason


@pytest.mark.parametrize(("old", "new"), RATE_NOT_ACTED_ON)
def test_a_rate_of_another_thing_or_said_without_change_is_not_acted_on(old: str, new: str) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert not (verdict is Verdict.CONTRADICTS and confidence >= ACTION), reason


@pytest.mark.parametrize(
    ("said", "with_value", "another_with_value"),
    [
        # a rate (v15)
        ("User is on 5 a week now", "User rows 3x a week on the canal", "User sings in a choir twice a week"),
        # a weekday (v16)
        (
            "User is on Thursday mornings now",
            "User walks dogs at the shelter every Tuesday morning",
            "User sings in a choir on Friday evenings",
        ),
        # a time and a version (v22)
        (
            "User is on the 6:55 now",
            "User takes the 7:25 from Woking into Waterloo every weekday",
            "User gets the 17:40 home from Waterloo",
        ),
        (
            "User said: bumped it to 3.12",
            "User's billing service runs on Python 3.9",
            "User's data notebooks run on Python 3.10",
        ),
    ],
)
def test_a_bare_new_value_is_acted_on_only_when_one_memory_has_such_a_value(
    said: str, with_value: str, another_with_value: str
) -> None:
    classifier = RulesClassifier()
    first, second, dog = (
        Candidate(uuid.uuid4(), content, "hobbies", 0.5)
        for content in (with_value, another_with_value, "User has a dog")
    )

    def acted(candidates: list[Candidate]) -> set[uuid.UUID]:
        verdicts = classifier.classify(said, "hobbies", candidates, "rules").verdicts
        return {
            v.candidate_id for v in verdicts if v.verdict is Verdict.CONTRADICTS and v.confidence >= ACTION
        }

    assert acted([first, dog]) == {first.id}
    assert acted([first, second, dog]) == set()


def test_a_bare_new_number_is_acted_on_only_when_one_memory_has_a_count() -> None:
    classifier = RulesClassifier()
    pupils, hens = (
        Candidate(uuid.uuid4(), content, "work", 0.5)
        for content in ("User teaches a class of 22 pupils", "User has 14 kids in the under-10s squad")
    )
    verdicts = classifier.classify("User is on 25 now", "work", [pupils, hens], "rules").verdicts
    assert not any(v.verdict is Verdict.CONTRADICTS and v.confidence >= ACTION for v in verdicts)


@pytest.mark.parametrize(
    ("old", "new", "acted"),
    [
        # a night off is what a person has, not a thing that ended
        ("User's partner's only night off is Sunday", "User's partner's night off is Tuesday now", True),
        ("User's day off is Wednesday", "User's day off is Friday now", True),
        # the same end said again is no return of what ended
        ("User's doorbell chime is off", "User's doorbell chime is off again", False),
    ],
)
def test_a_night_off_is_no_ending_and_an_end_said_again_is_no_return(old: str, new: str, acted: bool) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert (verdict is Verdict.CONTRADICTS and confidence >= ACTION) is acted, reason


@pytest.mark.parametrize(
    ("old", "new", "acted"),
    [
        # the date a new amount holds from is no value left
        ("User pays £950 a month in rent", "User's rent went up to £1,050 from March", True),
        # a move from one date to another of something else is
        ("User's dentist appointment is in June", "User moved the car service from March to May", False),
    ],
)
def test_the_date_a_value_holds_from_is_no_value_left(old: str, new: str, acted: bool) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert (verdict is Verdict.CONTRADICTS and confidence >= ACTION) is acted, reason


# Rules v16: each reading acts where its words say so, and its twin does not.
V16_PAIRS = [
    # -- a date of a change, a part, a share of the users
    # "as of the February release" dates the change; it is no part of an old quantity
    (
        "User's app supports iOS 15 and up",
        "User said: as of the March release our minimum target is iOS 17",
        True,
    ),
    # a share of the users on a version is not the user's own version
    (
        "User said: about 6% on iOS 15 right now",
        "User said: as of the March release our minimum target is iOS 17",
        False,
    ),
    # "3 out of the 12" is a part of the old quantity
    ("User has 12 hens", "User gave 3 out of the 12 to a neighbour", False),
    # -- a start at another named employer
    ("User is an auditor at KPMG in Dublin", "User started at Deloitte on the 1st of August", True),
    ("User works at KPMG", "User joined Deloitte as a senior auditor", True),
    ("User works at Acme as a nurse", "User started working at St James's Hospital", True),
    # a start at a place not named, a name joined as no role, another office of the same employer
    ("User works at KPMG", "User started at the gym on Mondays", False),
    ("User works at KPMG", "User joined Strava", False),
    ("User works at KPMG", "User started at KPMG's Cork office", False),
    # someone else's start, or one only thought of
    ("User works at KPMG", "User's wife started at Deloitte", False),
    ("User works at KPMG", "User is thinking of applying, might have started at Deloitte by May", False),
    # -- a name given another number
    # the name both give with another number is what the old fact's thing holds
    ("User's laptop is still on macOS 13", "User updated to macOS 14 over the weekend", True),
    # another name on another thing is a different attribute
    ("User's laptop is still on macOS 13", "User updated their phone to iOS 18", False),
    # -- an amount said to go up or down to a number
    # the one amount, gone the way the new fact says, about the same thing
    ("User is charging 45/h for portraits", "User said: raised my rate to 55 for new clients", True),
    (
        "User donates £15 a month to the food bank",
        "User has raised their food bank gift to twenty pounds a month",
        True,
    ),
    ("User's day rate is €380", "User said: bumped it to 420 from january", True),
    ("User pays £70 a month for the allotment", "User said: the council cut it to 55", True),
    # said to go up, and smaller; money raised for a cause; another period; an increment
    ("User's rent is £900 a month", "User said: they raised it to 850", False),
    ("User earns £2,800 a month", "User raised £3,200 for the hospice", False),
    ("User's rent is £900 a month", "User said: they raised it to 1,100 a year", False),
    ("User's rent is £900 a month", "User said: they raised it by 50", False),
    # nothing says it is the same amount
    ("User pays £60 a month for the gym", "User bumped their savings to 90", False),
    # -- one more got and numbered, a weekday said on its own
    # one more got, numbered: the count is now the ordinal
    ("User's bakery runs 2 vans", "User has got a 3rd van on the road now", True),
    ("User has 2 cats", "User adopted a third cat last week", True),
    # an ordinal not got, or not one more than the old count, or someone else's
    ("User ran 3 marathons", "User is training for a 4th marathon", False),
    ("User has 2 cats", "User adopted a fourth cat last week", False),
    ("User has 2 kids", "User's sister had a third kid", False),
    # a weekday said on its own with "goes" and "these days"
    ("User visits their gran on Sundays", "User goes Saturdays these days", True),
    # -- "'s" for "is", an hour alone, an upgrade in line
    # "'s" before a preposition, a number or "now" is "is": no part of anything
    ("User's retro is at 4:30", "User said: retro's at 3 now", True),
    ("User's squad is 7 people", "User said: squad's 10 now after the hires", True),
    # a later version of the same line said as an upgrade to it
    ("User is on Node 18.2", "User said: upgraded to 18.19 over the weekend", True),
    ("User is on Node 18.2", "User said: upgraded Deno to 18.19", False),
    ("User is on Node 18.2", "User said: upgraded to 20.1", False),
    # an hour said for something with people, not a time
    ("User's retro is at 4:30", "User said: retro's at 3 people now", False),
]


@pytest.mark.parametrize(("old", "new", "acted"), V16_PAIRS)
def test_rules_v16_readings_act_only_where_the_words_say_so(old: str, new: str, acted: bool) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert (verdict is Verdict.CONTRADICTS and confidence >= ACTION) is acted, reason


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("User said: Hey, I moved to Linz last week", "hey"),
        ("User said: Achja, I play futsal on Thursdays", "achja"),
        ("User said: Bhai office shift ho gaya", "bhai"),
    ],
)
def test_a_word_that_opens_what_the_user_said_names_no_one(said, name):
    # "Hey" was read as a person the fact is about ("different named subjects (Achja vs Hey)")
    fact = analyze(said)
    assert name not in fact.names
    assert fact.subject.key != frozenset({name})


def test_a_name_that_opens_what_the_user_said_is_still_a_name():
    assert "tomasz" in analyze("User said: Tomasz is my manager now").names


V22_PAIRS = [
    # -- a time said on its own, of the one time the old fact gives
    ("User takes the 7:25 from Woking into Waterloo every weekday", "User is on the 6:55 now", True),
    ("User gets the 07:50 bus to campus", "User said: I'm on the 8:20 bus these days", True),
    ("User takes the 8:15 ferry to Circular Quay every morning", "User is on the 7:45 boat now", True),
    # an appointment is one event, not a timetable; a time with another thing done is another thing
    ("User has a dentist appointment at 3pm on Friday", "User is on the 6:55 now", False),
    ("User does the 6am walks with the dog", "User does yoga at 7 now", False),
    ("User takes the 7:25 from Woking into Waterloo every weekday", "User wants to be on the 6:55", False),
    # -- a version said on its own, of the one version the old fact gives
    ("User's billing service runs on Python 3.9 (sigh)", "User got the billing svc bumped to 3.12", True),
    ("User's GKE clusters are on 1.28", "User said: all clusters on 1.31 as of monday", True),
    ("User's game Lanternfall is v1.4 on Steam", "User said: v2.0 went live today!", True),
    ("User's home server runs Debian 12.2", "User upgraded to 12.5 over the weekend", True),
    ("User's home server runs Debian 11.9", "User upgraded to 12.5 over the weekend", False),
    # two versions in the old fact, something else said of the new one, an amount, a measure
    ("User's main API is on Django 3.2 + Python 3.8", "User's team is on 4.2 now", False),
    ("User's phone runs iOS 17.4", "User's Mac is on 14.2 now", False),
    ("User's home server runs Debian 11.9", "User is also on 12.5 on the new box", False),
    ("User's home server runs Debian 11.9", "User said: planning to go to 12.5 soon", False),
    ("User runs 5.5 miles on Sundays", "User is at 6.5 km now", False),
    ("User's billing service runs on Python 3.9 (sigh)", "User said: the coffee there is 3.50 now", False),
    # -- an amount said on its own, of the one amount the old fact pays again and again
    (
        "User's rent is $1,800 a month for a one bed in Leith",
        "User said: lease renewed and it's $1,950 now",
        True,
    ),
    ("User said: the VPS is ~$80/month", "User said: bill is ~$45/month now.", True),
    # a one-off price; another period; something else's amount
    ("User bought a road bike for $900", "User said: it's $700 now", False),
    ("User pays 30 euros a month for the climbing gym", "User said: it's 300 a year now", False),
    ("User pays 30 euros a month for the climbing gym", "User said: spotify is 12 a month now", False),
    # another transit line ridden, said as now; not someone else's, a trip, one more, or weighed
    (
        "User rides the Chuo Line from Nakano every day",
        "User said: so it's the Yamanote Line for me these days",
        True,
    ),
    ("User takes the Northern line from Camden", "User takes the Jubilee line now", True),
    ("User takes the Chuo Line", "User's sister takes the Yamanote Line now", False),
    ("User takes the Chuo Line", "User takes the Yamanote Line to Shibuya for the concert tonight", False),
    ("User takes the Chuo Line", "User also takes the Yamanote Line now", False),
    ("User takes the Chuo Line", "User might take the Yamanote Line now", False),
    # a choice made, or a move over to another tool of a kind held one at a time
    ("User's team uses Asana", "User's team settled on Linear", True),
    ("User's team uses Asana", "User's team jumped ship to Linear", True),
    ("User's team uses Asana", "User's team opted for Linear for the new side project", False),
    ("User's team uses Asana", "User's team might opt for Linear", False),
    ("User uses Asana", "User's sister opted for Linear", False),
    # a number of the user's work said of "we" at work, which is read as the team's
    ("User said: ~140 paying customers atm so nothing crazy", "User's team is at 210 customers now", True),
    (
        "User is the office manager of a small architectural practice",
        "User's team has now relocated the practice to a new studio",
        False,
    ),
    # a count gone up to another
    ("User is working 3 days a week", "User has gone up to 4 days a week at the pharmacy", True),
    ("User is working 3 days a week", "User's sister has gone up to 4 days a week", False),
    # an amount upped or stepped up to a new one
    ("User puts R3,000 a month into a TFSA", "User upped the TFSA to R4,500 a month", True),
    ("User puts R3,000 a month into a TFSA", "User's sister upped her TFSA to R4,500 a month", False),
    # a pay the user is on, a year's, and the day the new one took effect
    ("User is a data engineer in Rotterdam on €48k gross", "User is on €55k from 1 July", True),
    ("User is on €48k gross", "User's partner is on €55k from 1 July", False),
    ("User is on €48k gross", "User is on €55k for the contract in June", False),
    # a pay in thousands, its currency unsaid; a salary given as what the user is on or makes
    ("User is on £42,000 as a quantity surveyor in Cardiff", "User is on 48k now", True),
    ("User's salary is 70k.", "User said: got the promo, making 82k now", True),
    ("User's salary is £85,000", "User is on £97,000 now", True),
    ("User's salary is £85,000", "User's partner is on £97,000 now", False),
    ("User's salary is £85,000", "User makes £500 a month from the side business now", False),
    ("User's salary is £85,000", "User is on £97,000", False),
    # a raise that went through with its amount; a job's pay said last; not what a raise paid for
    ("User is making $68k", "User said: raise went through, $81k now.", True),
    ("User said: my raise came through, I'm on $81k now", "User is making $68k", False),
    ("User is making $68k", "User said: raise went through, so I bumped my savings to $800 now", False),
    ("User is a surveyor in Cardiff on £42,000", "User is on £48,000 now", True),
    # the rent given anew, or said alone as what the user pays now; not another payment, period
    # or person
    ("User's rent on their flat in Leith is £1,150 a month", "User is paying £1,320 now", True),
    ("User's rent is $1,800 a month", "User is paying $2,050 a month now", True),
    ("User's rent is $1,800 a month", "User is paying $30 for Netflix now", False),
    ("User's rent is $1,800 a month", "User is paying $450 a week now", False),
    ("User's rent is $1,800 a month", "User's sister is paying $2,050 now", False),
    ("User's rent is $1,800 a month", "User is paying $2,050 a month", False),
    # a shift's hours said alone as what they are now; not another thing's hours, not unsaid as now
    ("User's shift is 7am to 3pm", "User is 2pm to 10:30pm now", True),
    ("User's gym is open 6am to 10pm", "User is 2pm to 10:30pm now", False),
    ("User's shift is 7am to 3pm", "User is at the pool 5pm to 6pm now", False),
    ("User's shift is 7am to 3pm", "User is 2pm to 10:30pm", False),
    ("User's sister's shift is 7am to 3pm", "User is 2pm to 10:30pm now", False),
    # a raise named beside another sum given its amount: that sum's, not the pay's
    (
        "User's salary is €60k",
        "User said: I got a raise at work so I bumped my monthly savings to €650",
        False,
    ),
    ("User's salary is $60k", "User got a raise and bumped their 401k contribution to $500 a month", False),
    ("User's rent is $1,800 a month", "User's rent went up to $1,975 so they cut their savings", True),
    # -- a count that opens what the user said is no one's name: the count of flats, read as one
    # (v16 read it as a number without a unit, and rightly did not act on that reading)
    ("User lets out 2 flats in Porto", "User said: Three flats now", True),
    ("User owns 2 flats in Kraków that they rent out (one in Kazimierz)", "User said: Three flats now", True),
    ("User lets out 2 flats in Porto", "User said: Three flats on their street are for sale", False),
    # -- one tool of a kind a person or team works in, another said as current or changed:
    # a helpdesk, a site's platform, a music or video app, a CAD app
    ("User makes beats in GarageBand on their iPad", "User upgraded to Ableton on a used MacBook", True),
    ("User's food blog runs on WordPress", "User said: the blog is fully on Hugo now", True),
    ("User edits their vlogs in iMovie", "User edits in DaVinci Resolve now", True),
    ("User's office draws everything in ArchiCAD", "User's office moved everything over to Revit", True),
    ("User's energy is with EDF", "User switched to Octopus last month", True),
    # a CI service by its users' name for it; a code host inside a CI service's name is no code host
    ("User's CI runs on Jenkins", "User said: everything is on GHA now.", True),
    ("User's team uses Jenkins", "User's team uses GitLab CI now", True),
    ("User's code is on GitLab", "User's team moved to GitHub Actions for CI", False),
    ("User trains at Equinox", "User moved to Planet Fitness to save money", True),
    ("User trains at Equinox", "User also joined a climbing gym", False),
    # one more beside the first, each for its own purpose
    ("User makes beats in GarageBand on their iPad", "User also started using Ableton for live sets", False),
    ("User's team uses Zendesk for tickets", "User's team uses Intercom for live chat", False),
    # -- a title said without an article ("is headteacher now", "became engineering manager")
    ("User is a deputy head at a primary school", "User is headteacher now", True),
    ("User is a senior designer at Spotify", "User is design lead now", True),
    ("User is a team lead", "User became engineering manager last month", True),
    ("User works as a cashier at Tesco", "User is a team leader at Tesco now", True),
    # a first name that is a title too is a name; a rank word alone is no title
    ("User is Dev, 34", "User is now a senior PM at Intercom", False),
    ("User is a nurse at St James's", "User is in Denver now", False),
    # -- a job taken with another employer, a home called home
    ("User works at Deloitte", "User took a job with KPMG", True),
    ("User works at Deloitte", "User's new employer is KPMG", True),
    ("User lives in Leeds", "User calls York home now", True),
    # a job on the side, a contract for the summer, someone else's job or home
    ("User works at Deloitte", "User took a job with KPMG on the side", False),
    ("User works at Deloitte", "User got a contract with the BBC for the summer", False),
    ("User works at Deloitte", "User's wife took a job with KPMG", False),
    ("User lives in Leeds", "User's sister calls York home", False),
    # -- a change said to be under way, then done: its target holds now
    ("User is moving from Munich to Berlin next month", "User lives in Berlin now", True),
    ("User is switching from Jira to Linear", "User's team is fully on Linear now", True),
    ("User is in the middle of moving from Leeds to York", "User has moved to York", True),
    # the target only mentioned, hedged, still under way, or someone else's; a change only weighed
    ("User is moving to Berlin next month", "User loves Berlin's food scene", False),
    ("User is moving to Berlin next month", "User might live in Berlin for good", False),
    ("User is moving to Berlin next month", "User is still moving to Berlin, delayed to June", False),
    ("User's sister is moving to Leeds", "User lives in Leeds now", False),
    ("User is thinking about moving to Berlin", "User lives in Berlin now", False),
    # -- the user's friendship ended; a new trade retrained for
    ("User's best friend is Maria", "User and Maria fell out last year", True),
    ("User's best friend is Maria", "User fell out with Maria over the wedding", True),
    ("User's partner is a teacher", "User's partner retrained as a nurse", True),
    # someone else's falling out; falling out of love with a thing; a qualification beside a job
    ("User's best friend is Maria", "User's sister fell out with Maria", False),
    ("User's best friend is Maria", "User fell out of love with running", False),
    ("User is a teacher", "User qualified as a first aider", False),
    # -- a third party's break-up read as theirs; a trade held, which retiring ends
    ("User's sister is dating Tom", "User's sister broke up with Tom", True),
    ("User's dad is a plumber", "User's dad retired", True),
    # someone else's break-up or retirement; a trade already left
    ("User is dating Sam", "User's sister broke up with Tom", False),
    ("User's dad is a plumber", "User's mum retired", False),
    ("User's dad is a retired plumber", "User's dad retired last year", False),
    # -- a child's next school said as a start there; hens counted as chickens
    (
        "User's daughter goes to Little Acorns nursery",
        "User's daughter started reception at St Peter's",
        True,
    ),
    ("User's son is in Year 3 at Oakfield Primary", "User's son started Year 4 at St Luke's", True),
    ("User has six hens", "User has nine chickens now", True),
    # another child's start
    ("User's daughter goes to Little Acorns nursery", "User's son started reception at St Peter's", False),
    # -- words of change: "from this month", a schedule reshuffled
    ("User said: Nursery opens at 8:00.", "User said: from this month nursery opens at 7:45", True),
    (
        "User's gymnastics class is at 9am on Saturdays",
        "User said: the club reshuffled the timetable so the gymnastics class is at 11am on Saturdays",
        True,
    ),
    (
        "User said: Nursery opens at 8:00.",
        "User said: nursery opens at 7:45 on the inset day this month",
        False,
    ),
]


@pytest.mark.parametrize(("old", "new", "acted"), V22_PAIRS)
def test_rules_v22_readings_act_only_where_the_words_say_so(old: str, new: str, acted: bool) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert (verdict is Verdict.CONTRADICTS and confidence >= ACTION) is acted, reason
