"""Rules v5, v6 and v16: change constructions read in more forms, each scoped to the old fact's value.

None of these pairs appear in any set under evals/: they exercise the general constructions
(a thing traded or rebuilt, "used to X, now Y", another thing ranked above the old choice, a diet
or a thing begun against what the old fact states or denies) and the ways a change-like fact is
about another one (another account, a third party's thing, something scoped elsewhere, a state
denied or only expected).
"""

from __future__ import annotations

import uuid

import pytest

from aurra_core.classifiers.rules import RulesClassifier, judge_pair
from aurra_core.models import Verdict

ACTION = 0.85

# Each names the old value as what ended or was left, for the same subject and attribute.
ACTED_ON = [
    ("User uses Trello", "User traded Trello for Linear"),
    ("The blog runs on WordPress", "The blog was rebuilt on Hugo"),
    ("The mobile app uses React Native", "The mobile app was ported to Flutter"),
    ("The backups run on a Synology NAS", "Moved the backups off the Synology onto Backblaze"),
    ("User is a contractor", "User became a full-time employee at Stripe"),
    ("User's surname is Kowalski", "User took her husband's surname, Brennan, after the wedding"),
    ("User drives a Honda", "User used to drive a Honda; now drives a Tesla"),
    ("User lives in Denver", "User used to live in Denver, now lives in Boulder"),
    ("User prefers window seats", "User prefers aisle seats over window seats"),
    ("User eats meat every day", "User has not eaten meat since the spring"),
    ("User doesn't have a car", "User bought a car"),
    ("User has no pets", "User adopted a cat"),
    ("User's birthday is May 3", "User's birthday is actually May 5"),
    ("User uses Jira", "User is done with Jira"),
    ("User works at Initech", "User lost their job at Initech"),
    ("User's gym membership is active", "User let their gym membership lapse"),
    ("User's Netflix subscription is active", "User ended their Netflix subscription"),
    ("User runs at 6am", "User runs in the evenings instead of the mornings now"),
    ("User commutes by car", "User stopped driving and takes the train instead"),
    ("User is on the Basic plan", "User moved from Basic to the Pro plan"),
    ("User's account is active", "User's account was paused"),
    ("The marketing site is on hold", "The designers restarted the marketing site; it's underway again"),
    ("As of March, Initech has 20 seats", "As of August, Initech has 26 seats"),
    ("Initech has 20 seats as of 2025", "As of this quarter Initech has 26 seats"),
    ("User is on the Team plan", "User was previously on the Team plan and is now on Pro"),
    (
        "User likes dark chocolate bars",
        "User can't stand dark chocolate anymore and eats only milk chocolate",
    ),
    ("User has a Mastodon account", "User deleted their Mastodon account"),
    ("Contoso is a paying customer", "Contoso churned in the spring"),
    ("User is going to Porto in June", "User called off the Porto trip"),
    ("User's dentist appointment is June 3 at 10 am", "User rescheduled the dentist to June 10"),
    ("User owes $9,000 left on their car loan", "User paid off the car loan"),
    ("User lives in Glasgow", "User doesn't live in Glasgow anymore; they're back in Dundee"),
    # the same move said of the thing the old fact names, or of the subject's own base
    (
        "User rents a fixed desk at Casa Azulejo Cowork in Anjos",
        "User moved their desk to Oficina Nove in Marvila",
    ),
    ("User said: project is on Unity 2021.3 LTS with URP.", "User moved Anzuelo to Unity 6"),
    ("Acme's HQ is in Austin", "Acme relocated its headquarters to Dallas"),
]

# Change-like words about another one, someone else, somewhere else, or a change that did not
# happen (yet): never acted on.
NOT_ACTED_ON = [
    # "non negotiable" is a must: nothing of it ended, so nothing is back
    ("User said: Coffee is non negotiable", "User said: so morning coffee is back on"),
    # something moved, not the user: no home ended (v16 read "moved their desk to" as a move)
    ("User is a freelance illustrator based in Lisbon", "User moved their desk to Oficina Nove in Marvila"),
    # a version or a time in place of none the old fact holds (v16 acted on both)
    ("User is making a cozy fishing game called Anzuelo", "User moved Anzuelo to Unity 6"),
    ("User struggles to eat before training", "User switched to training at 12:30 in their lunch break"),
    ("User has a checking account at Chase", "User closed the savings account at Chase"),
    ("User's account is active", "User cancelled the account's add-on storage"),
    ("User has a premium account", "User's premium account expired last year but was renewed"),
    ("User's Adobe subscription is active", "User cancelled the Adobe Stock add-on"),
    ("User has a Hulu subscription", "User cancelled their Netflix subscription"),
    ("User has an Amazon Prime membership", "User upgraded their Audible membership"),
    ("User's AWS account is on the free tier", "User upgraded the Azure account to pay-as-you-go"),
    ("User's subscription renews monthly", "User switched the kids' subscription to annual"),
    ("User's Slack workspace is on the free plan", "User upgraded the design team's Slack to Pro"),
    ("User has 2FA on GitHub", "User turned off 2FA on Twitter"),
    ("User's GitHub account has 2FA enabled", "User disabled 2FA on their npm account"),
    ("User's account is active", "User closed their account on the old forum"),
    ("User's account email is a@x.com", "User changed their recovery email to b@y.com"),
    ("User is a member of the gym", "User's gym membership was upgraded to premium"),
    ("User's account is active", "User's account was briefly suspended last month"),
    ("User's account is locked", "User closed the ticket about the account"),
    ("User's account is active", "User's account was never suspended"),
    ("User's account is active", "User's account has not been suspended"),
    ("User's subscription is active", "User's subscription will be cancelled on June 1"),
    ("User's account is active", "User's account is scheduled to be deactivated on Friday"),
    (
        "User has an active Peloton membership",
        "User cancelled the Peloton app subscription but kept the bike membership",
    ),
    ("User eats meat", "User's son doesn't eat meat"),
    ("User eats meat", "User's mom doesn't eat meat anymore"),
    ("User drives a Honda", "User's son used to drive a Honda but now drives a Kia"),
    ("User prefers window seats", "User prefers aisle seats over window seats on long flights"),
    ("User prefers tea over coffee", "User prefers green tea over coffee"),
    ("User doesn't speak Spanish", "User started learning Spanish"),
    ("User doesn't have a car", "User rented a car for the weekend"),
    ("User doesn't drink alcohol", "User got a bottle of wine as a gift"),
    ("User isn't on Instagram", "User joined Instagram for their bakery"),
    ("User uses Jira", "User's team is done with Jira but User still uses it for side projects"),
    ("User's email is a@x.com", "User's email is a@x.com, not b@y.com"),
    ("User pays with Visa", "User pays with Amex instead of cash"),
    ("User's plan is Pro", "User moved their team from Basic to Plus"),
    ("The website runs on Django", "The website was rebuilt with a new Django theme"),
    ("User lives in Boston", "User is moving to Denver next year"),
    ("User's rent is $2,000", "User's parking spot rent went up to $150"),
    ("User's car is a Civic", "User replaced the Civic's tires"),
    ("User's laptop is a MacBook Pro", "User upgraded the MacBook's RAM"),
    ("User's plan is Pro", "User downgraded a teammate's seat from Pro to Basic"),
    ("User likes movies", "User dislikes horror movies"),
    # the old fact already said when it would end
    ("User's trial expires on May 5", "User's trial expired"),
    ("User's membership runs until June", "User's membership has lapsed"),
    # an earlier date, or no date on the old fact: the direction or the change is not stated
    ("As of August, Initech has 26 seats", "As of March, Initech has 20 seats"),
]


@pytest.mark.parametrize(("old", "new"), ACTED_ON)
def test_a_change_stated_about_the_old_value_is_acted_on(old: str, new: str) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert verdict is Verdict.CONTRADICTS and confidence >= ACTION, (verdict, confidence, reason)


@pytest.mark.parametrize(("old", "new"), NOT_ACTED_ON)
def test_a_change_of_another_one_or_one_that_did_not_happen_is_not_acted_on(old: str, new: str) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert not (verdict is Verdict.CONTRADICTS and confidence >= ACTION), (verdict, confidence, reason)


def test_a_plan_named_as_a_thing_is_no_intention() -> None:
    """'the Basic plan to Pro' is a move between plans; 'plans to upgrade' is a hedge."""
    verdict, confidence, _ = judge_pair("User is on the Basic plan", "User moved from the Basic plan to Pro")
    assert verdict is Verdict.CONTRADICTS and confidence >= ACTION
    verdict, confidence, _ = judge_pair("User is on the Basic plan", "The user plans to upgrade")
    assert verdict is not Verdict.CONTRADICTS or confidence < ACTION


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("User has a checking account at Wells Fargo", "User has a checking account at Schwab"),
        ("User has a trip to Lisbon in May", "User has a trip to Kyoto in October"),
    ],
)
def test_another_named_one_of_a_kind_is_a_new_fact(old: str, new: str) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert verdict is Verdict.NEW_FACT, (verdict, confidence, reason)


# Rules v6: a count or an amount put in place of the old one in the same words is the change
# evidence (two counts of one thing cannot both hold); a phone number only when corrected in a
# digit or two (people have several numbers).
REPLACED_IN_PLACE = [
    ("Orbit has 12 open tickets", "Orbit has 9 open tickets"),
    ("User's monthly grocery budget is $400", "User's monthly grocery budget is $550"),
    ("User's daughter is 11", "User's daughter is 12"),
    ("User's office line is 212-555-0187", "User's office line is 212-555-0178"),
    ("Vandelay: Growth plan, 14 seats", "Vandelay: Growth plan, 18 seats"),
]

# Rules v6: what ended or is denied must be the old fact's own thing and value.
NOT_THE_OLD_ONE = [
    # another account, or another attribute of the account, negated
    ("User's Netflix account is active", "User's Hulu account is not active anymore"),
    ("User's account is verified", "User's email is not verified"),
    # a narrower thing negated
    ("User eats meat", "User doesn't eat red meat"),
    # what is over is the plan after "no longer", not the account before it
    ("User's Dropbox account is active", "User's Dropbox account is no longer on the Plus plan"),
    # an add-on of the thing, or another one of its kind, ended
    ("User has a Costco membership", "User cancelled the Costco Executive upgrade"),
    ("User's Premium membership is active", "User paused the gym membership"),
    # a second number, a second address, a second weekly class, a past count
    ("User's phone number is 617-555-0101", "User's phone number is 617-555-0199"),
    ("User's email is jo@fastmail.com", "User's email is jo.k@outlook.com"),
    ("User takes yoga on Tuesdays", "User takes yoga on Thursdays"),
    ("User has 3 kids", "User had 2 kids in 2015"),
    ("Orbit has 12 open tickets", "Orbit's EU team has 9 open tickets"),
    # an attribute of the thing, or a thing of its own, changed or ended
    ("User has a Spotify account", "User's Spotify password was changed"),
    ("User's account is verified", "User's account verification link expired"),
    ("User's membership is active", "User's membership card is not active"),
    ("User is an editor", "User is not an editor of the billing workspace"),
    # a negation or an ending narrowed to an occasion or a place the old fact does not name
    ("User has a bike", "User doesn't have a bike at the moment, it's at the repair shop"),
    ("User cycles to work", "User doesn't cycle to work when it rains"),
    ("User is an early riser", "User is not an early riser on weekends"),
    ("User uses Teams", "User doesn't use Teams for client calls"),
    ("User plays the drums", "User doesn't play the drums in the church band anymore"),
    ("User is vegan", "User is no longer strictly vegan on holidays"),
    ("User's account is active", "User's account is no longer active on the desktop app"),
    # "these days" where only a verb of habit is shared: the new one may be beside the old one
    ("User listens to podcasts", "User listens to audiobooks these days"),
    # "these days" in a slot that holds several: what is current, not that the other one stopped
    ("User speaks Portuguese", "User speaks Italian these days"),
    # an ending the old fact already states, or another kind of thing held than the old one
    ("User's Calm trial ended", "User's Calm trial ended on June 2"),
    ("User has an Apple account", "User cancelled their Apple Music subscription"),
    # the old fact already says it is over: the new one agrees
    ("Lena's Coinbase account is closed", "Lena no longer has a Coinbase account"),
    ("User's Skillshare membership expired", "User's Skillshare membership expired in March"),
    ("User quit sugar", "User doesn't eat sugar anymore"),
    # another named one of the kind
    ("Omar's Lyft account is in good standing", "Omar's Lyft Pink driver account was suspended"),
]

# The end itself denied, or the same account under another common name: still the old one.
STILL_THE_OLD_ONE = [
    ("User's Pinterest account is deactivated", "User's Pinterest isn't deactivated anymore"),
    ("Omar's Lyft account is in good standing", "Lyft suspended Omar's rider account over a dispute"),
]


@pytest.mark.parametrize(("old", "new"), STILL_THE_OLD_ONE)
def test_the_end_denied_or_the_same_account_renamed_is_acted_on(old: str, new: str) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert verdict is Verdict.CONTRADICTS and confidence >= ACTION, (verdict, confidence, reason)


# Rules v6: constructions that set the value against the old one without a classic change verb.
CHANGE_CONSTRUCTIONS = [
    ("User's go-to editor is Sublime Text", "User's editor these days is Helix"),
    ("User adores sushi", "User avoids sushi these days"),
    ("Ming works 8 to 4 Eastern", "Ming works 10 to 6 Eastern these days"),
    ("User smokes about ten cigarettes a day", "User is down to three cigarettes a day"),
    ("Initrode has 40 licenses", "Initrode is up to 65 licenses"),
]


@pytest.mark.parametrize(("old", "new"), CHANGE_CONSTRUCTIONS)
def test_these_days_and_down_to_set_the_value_against_the_old_one(old: str, new: str) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert verdict is Verdict.CONTRADICTS and confidence >= ACTION, (verdict, confidence, reason)


@pytest.mark.parametrize(("old", "new"), REPLACED_IN_PLACE)
def test_a_count_or_amount_replaced_in_the_same_words_is_acted_on(old: str, new: str) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert verdict is Verdict.CONTRADICTS and confidence >= ACTION, (verdict, confidence, reason)


@pytest.mark.parametrize(("old", "new"), NOT_THE_OLD_ONE)
def test_what_ended_or_is_denied_must_be_the_old_facts_own(old: str, new: str) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert not (verdict is Verdict.CONTRADICTS and confidence >= ACTION), (verdict, confidence, reason)


# Rules v16, as Level 2 gets them (the detectors, then the slot readings of rules_slots): each
# reading acts where its words say so, and its twin does not.
V16_PAIRS = [
    # -- a value given with the old one named as wrong
    # the right value, then the old fact's named as wrong, in the same frame
    ("User's daughter Isla is in year 5", "User said: correction, Isla is in year 6 not year 5", True),
    ("User's train is at 8:10", "User said: my train is at 7:40, not 8:10", True),
    # the correction is of another thing than the old fact names
    ("User's standup is at 9:30", "User said: the planning call is at 10:30 not 9:30", False),
    ("User's flat is in Leeds", "User's office is in York not Leeds", False),
    # "not" before no value of the old fact's
    ("User's daughter Isla is in year 5", "User said: Isla is in year 6 not reception", False),
    # -- a new one of a role held one at a time
    # a new one of a role held one at a time, which the old fact names for the same subject
    (
        "User's physio is Priya at the Western General",
        "User said: new physio as well, a woman called Jo",
        True,
    ),
    ("User's boss is Tomasz", "User's new manager is Efua", True),
    # a child's teacher, whoever's it is, one at a time; a teacher of another subject is one more
    ("User's son's teacher is Mrs Patel", "User's son's new teacher is Mr Okafor", True),
    (
        "User's daughter's piano teacher is Mrs Patel",
        "User's daughter has a new maths teacher, Mr Okafor",
        False,
    ),
    ("User is a teacher at Hillside Primary", "User's new teacher is Mr Okafor", False),
    ("User cycles with a club in Bristol on Sundays", "User joined a new cycling club in Bath", True),
    # a kind held many at a time, another kind, or a modifier the old one lacks: one more
    ("User has a dog named Rex", "User got a new dog", False),
    ("User is in a book club", "User joined a new cycling club", False),
    # nobody named for the new one to be in place of, or someone else's
    ("User wants a physio", "User has a new physio", False),
    ("User's son has a physio called Ann", "User has a new physio", False),
    # the role the user fills is not one they have
    ("User is an account manager at a bank", "User's new manager is Efua", False),
    # a place one goes to, by its kind: a CrossFit gym's "box", a dentist's practice, an office's
    # campus, when the new one is said as the subject's
    ("User does crossfit at CrossFit Nordhavn 4x a week", "User said: new box is CrossFit Valby", True),
    ("User's dentist is Smile Dental in Rathmines", "User said: new practice is Parnell Dental", True),
    ("User's office is in Grand Canal Dock", "User's company moved them to a new campus in Sandyford", True),
    (
        "User works at Google in the Dublin office",
        "User said: google opened a new campus in Sandyford",
        False,
    ),
    ("User does crossfit at CrossFit Nordhavn", "User said: the box got a new rower", False),
    # an office's new building, where the subject's company is now; not one it bought
    (
        "User's office is in Kreuzberg",
        "User said: the whole company is in a new building on Warschauer Straße in Friedrichshain",
        True,
    ),
    (
        "User's office is in Kreuzberg",
        "User said: the company bought a new building in Friedrichshain",
        False,
    ),
    # a gym membership moved is where they work out now
    (
        "User boulders three times a week at The Foundry in Sheffield",
        "User moved their membership over to Climbing Works in January",
        True,
    ),
    (
        "User boulders three times a week at The Foundry in Sheffield",
        "User's sister moved her membership over to Climbing Works",
        False,
    ),
    # an end said in a clause of its own after "and"; a time since the end counted to yesterday
    (
        "User is currently on QuickBooks Online",
        "User said: We did it, Xero went live 1 July and QuickBooks is cancelled",
        True,
    ),
    ("User is on QuickBooks Online", "User said: Xero went live and the old invoices are cancelled", False),
    (
        "User smokes like half a pack a day",
        "User said: quick brag, quit smoking, three months no cigarettes as of yesterday",
        True,
    ),
    # a time since the end counted to today is no one-off; "today only" is
    ("User smokes about 10 a day", "User quit smoking in July, 12 weeks smoke-free today", True),
    ("User goes to the gym on Mondays", "User stopped going to the gym today only", False),
    # settled into a home somewhere else; not someone else's, nor a flat owned to let
    ("User lives in Solna", "User got a flat in Södermalm", True),
    ("User lives in Amsterdam Noord", "User is all unpacked in Utrecht, in Lombok", True),
    ("User lives in Solna", "User's sister got a flat in Södermalm", False),
    ("User lives in Solna", "User unpacked the boxes in the garage", False),
    ("User owns a flat in Kraków that they rent out", "User got a flat in Gdańsk", False),
    # what an old preference ranked below, taken to now; not merely used, nor turned against
    ("User prefers tea over coffee", "User is all about coffee these days", True),
    ("User prefers window seats over aisle seats", "User said: aisle seats only for me now.", True),
    ("User likes cats more than dogs", "User is a dog person now", True),
    ("User prefers Python over Go", "User writes Go at work now", False),
    ("User prefers trains to flying", "User is flying to Berlin now", False),
    ("User prefers tea over coffee", "User still prefers tea but drinks coffee now", False),
    # turned against what the old preference ranked below: the two agree
    ("User prefers tea over coffee", "User no longer likes coffee now", False),
    ("User prefers tea over coffee", "User drinks less coffee these days", False),
    ("User prefers tea over coffee", "User no longer drinks tea", True),
    # the user in a place named, now; not for a stay, not in a department or a state, not the
    # move's date
    ("User lives in Austin", "User is in Denver now", True),
    ("User lives in Austin", "User said: I'm in Denver now, partner got a job at the university", True),
    ("User lives in Austin", "User is in Paris now for a conference", False),
    ("User lives in Austin", "User is in Denver now until Friday", False),
    ("User lives in Austin", "User is in Marketing now", False),
    ("User lives in Austin", "User is in Rehab now", False),
    ("User moves to Hamburg", "User said: Small change: the move is in May now, not March.", False),
    ("User lives in Austin", "User's sister is in Denver now", False),
    # where the user has been since a time, or has been living for a while now; not a stay,
    # not in a hospital or a department, not someone else
    ("User is in West End, Brisbane", "User has been in Hobart since January", True),
    ("User lives in Brisbane", "User has been living in Hobart for six weeks now", True),
    ("User lives in Brisbane", "User has been in Hobart for two weeks now", False),
    ("User lives in Brisbane", "User has been in Hobart since Tuesday for a conference", False),
    ("User lives in Brisbane", "User has been in hospital since Monday", False),
    ("User lives in Brisbane", "User has been in Marketing since January", False),
    ("User lives in Brisbane", "User's sister has been in Hobart since January", False),
    # "shifted to" a place, as Indian English says a move; not to a time, a way of working or a tool
    ("User lives in Mumbai", "User shifted to Thane last month", True),
    ("User lives in Borivali", "User shifted to pune last month, hinjewadi side", True),
    ("User lives in Mumbai", "User shifted to Linear last month", False),
    ("User lives in Mumbai", "User shifted to nights last month", False),
    ("User lives in Mumbai", "User shifted to remote work", False),
    ("User lives in Mumbai", "User's sister shifted to Pune", False),
    # a home bought where they live now; not one bought for someone else, to let or for holidays
    ("User is based in Austin, TX", "User just closed on a house in Raleigh", True),
    ("User lives in Austin", "User bought a house in Pflugerville", True),
    ("User lives in Austin", "User bought a house in Raleigh for their daughter", False),
    ("User lives in Austin", "User bought a flat in Lisbon to rent out", False),
    ("User lives in Austin", "User's sister bought a house in Raleigh", False),
    ("User volunteers at the Mueller farmers market", "User bought a house in Pflugerville", False),
    ("User lives in Austin", "User bought a house in Galveston for the summer", False),
    # a place bought and said moved into (rules v39); not a place bought alone, which may be a
    # holiday home or to let, nor one bought for holidays
    (
        "User is renting a flat in Clarendon Park",
        "User bought a place in Quorn and moved in 2 weeks ago",
        True,
    ),
    ("User lives in Austin", "User bought a place in Pflugerville and finally moved in", True),
    ("User is renting a flat in Clarendon Park", "User bought a place in Quorn", False),
    (
        "User lives in Austin",
        "User bought a place in Galveston for the holidays and moved in for June",
        False,
    ),
    ("User lives in Austin", "User's sister bought a place in Raleigh and moved in", False),
    # settled in a place named, or the move made to it; not a routine settled into, not never
    ("User is based in Nairobi", "User is settling into Kigali", True),
    ("User lives in Nairobi", "User made the move to Kigali", True),
    ("User lives in Nairobi", "User settled into a routine", False),
    ("User lives in Nairobi", "User has never settled in Kigali", False),
    ("User lives in Nairobi", "User's sister has settled in Kigali", False),
    # whom the user has in a role held one at a time, named anew and said as new or as now; not
    # the same one, someone else's, another role, nor with nothing to say which came first
    (
        "User's manager Priya wants a written proposal",
        "User said: so Tomasz is my manager now and he's much more of a details guy.",
        True,
    ),
    ("User's boss Dana wants a growth plan doc by friday", "User's new manager is Marcus", True),
    ("User's manager Priya wants a written proposal", "User's manager is Priya now", False),
    ("User's manager Priya wants a written proposal", "User's sister's new manager is Tomasz", False),
    ("User's manager Priya wants a written proposal", "User said: so Tomasz is my mentor now", False),
    ("User's manager Priya wants a written proposal", "User's manager is Tomasz", False),
    # whom the user has as a manager is not a role of the user's
    (
        "User is a data analyst at a grocery chain in Nottingham",
        "User said: so Tomasz is my manager now and he's much more of a details guy.",
        False,
    ),
    ("User is a data analyst at a grocery chain", "User said: Ana is our team lead now", False),
    ("User's sister Ana lives in Porto", "User's new sister is Bea", False),
    # a third party's job left and where they are now; a job got
    (
        "User's husband Arjun works crazy hours at Deloitte (consulting)",
        "User said: arjun finally quit he's at Stripe now doing product ops.",
        True,
    ),
    (
        "User's girlfriend Ines is a pharmacist at Boots in Camden",
        "User said: Ines changed jobs, she's at the Royal Free now",
        True,
    ),
    (
        "User's wife Priya is a vet at a clinic in Clapham",
        "User said: priya got the job at the rspca hospital in putney!",
        True,
    ),
    ("User works at Acme", "User's brother got the job at Google", False),
    ("User is an auditor at KPMG", "User started at the gym", False),
    # a tool of a kind held one at a time, the user's on one side and their team's on the other:
    # one tool they use; not someone else's, nor one for another purpose
    ("User's team tracks everything in Trello", "User uses Linear now", True),
    ("User uses Jira", "User's team uses Linear now", True),
    ("User's team uses Jira", "User uses Linear now for their side project", False),
    ("User's team tracks everything in Trello", "User's wife uses Linear now", False),
    # a home kept as said in Italian, read in English, is ended by a move
    (
        "User said: abito a Bologna, zona Bolognina, e cerco un corso di ceramica la sera.",
        "User moved to Turin, San Salvario",
        True,
    ),
    # "also" that opens one more piece of news in the user's words adds nothing to the old fact;
    # "also" of a second one still does
    (
        "User hops on discord sundays to playtest",
        "User said: also playtests are saturday nights now, jules picked up weekend shifts",
        True,
    ),
    ("User's standup is at 9:30", "User said: oh and also standup is at 10:15 now", True),
    ("User plays tennis on Tuesdays", "User also plays tennis on Thursdays now", False),
    ("User plays tennis on Tuesdays", "User said: also plays squash on Thursdays now", False),
    ("User has a dog named Rex", "User said: also we got a second dog now", False),
    ("User has a dog named Rex", "User said: second dog arrived, his name is Bo", False),
    # a home and an office kept as said in Hindi, read in English, and their moves
    (
        "User said: Pune mein rehta hu, articleship khatam ho gayi last year.",
        "User said: Mumbai shift ho gaya, Andheri mein PG le liya",
        True,
    ),
    (
        "User said: mera office gurgaon mein hai, cyber city, aur main daily metro se jaata hu",
        "User said: bhai office shift ho gaya noida sector 62 mein",
        True,
    ),
    # a child the user moved to a school named as one; not a city, nor another child
    (
        "User's son Kabir just started Year 3 at Oakfield Primary here in Reading",
        "User ended up moving Kabir to St Luke's C of E after half term",
        True,
    ),
    ("User's son Kabir is at Oakfield Primary", "User moved Kabir to Leeds", False),
    ("User's son Kabir is at Oakfield Primary", "User moved Ana to St Luke's Primary", False),
    # everything exported out of one notes app into another, everyone moved onto another chat
    (
        "User keeps all their reading notes in Notion",
        "User said: Exported everything out of Notion into Obsidian over the weekend",
        True,
    ),
    ("User's team runs everything through Slack", "User said: IT moved everyone onto Microsoft Teams", True),
    ("User uses Evernote", "User said: exported everything out of Evernote to back it up", False),
    ("User keeps all their reading notes in Notion", "User exported a PDF from Notion", False),
    # where an app is hosted is one cloud at a time; "Fly.io" is one name
    ("User's team hosts on Heroku", "User said: Everything at Brightloop runs on AWS now.", True),
    ("User's app is hosted on Heroku", "User's app runs on Fly.io now", True),
    ("User's app is hosted on Heroku", "User said: ended up trying Fly.io for a side project", False),
    # a child settled in at another school is there now; a friend of the child's is someone else
    (
        "User's daughter Maya is 11 and in Year 6 at Oakfield Primary",
        "User said: Maya's settled in at Riverside Academy, she's in Year 7",
        True,
    ),
    (
        "User's daughter Maya is at Oakfield Primary",
        "User said: Maya's best friend started at Riverside Academy",
        False,
    ),
    (
        "User's daughter Maya is at Oakfield Primary",
        "User said: Maya's friend is settling in at Riverside Academy",
        False,
    ),
    # a move takes the user from where they were said to be, home or not; not from a year or a
    # class, nor from the place they moved within
    ("User is in Park Slope, Brooklyn", "User moved to Astoria in december", True),
    ("User is in Denver (cap hill)", "User moved to Boise", True),
    ("User is in Year 7", "User moved to Leeds", False),
    ("User is in Denver", "User moved to the Highlands in Denver", False),
    ("User is in Denver", "User's sister moved to Boise", False),
    # "Box" is a name here, not a place of the user's
    ("User has a cat named Box", "User said: new box is CrossFit Valby", False),
    # -- one more change, and an end of one occasion
    # "also" before one more change adds nothing beside the old fact
    ("User plays in a sunday league team", "User has packed in the sunday league", True),
    ("User plays in a sunday league team", "User also quit the sunday league", True),
    # "this week only": the end is of one occasion
    ("User's piano lesson is on Thursdays", "User's piano lesson is cancelled this week only", False),
    # -- a thing moved, a place, a title, a device
    # what was moved, named in another form of the old fact's word
    (
        "User's choir rehearses at St Jude's on Tuesdays",
        "User moved rehearsals to the village hall",
        True,
    ),
    # a rank given by someone, for the same job
    ("User is a line cook at a bistro", "User said: the owner made me sous chef last month", True),
    ("User is a nurse on a surgical ward", "User said: they made her head nurse", False),
    # the same thing done at another place, written all in lower case as chat often is
    ("User is bouldering at the arch 3x a week", "User is climbing at castle climbing centre now", True),
    ("User swims at the leisure centre on mondays", "User swims at the lido these days", True),
    ("User is bouldering at the arch 3x a week", "User is climbing at home now", False),
    (
        "User is bouldering at the arch 3x a week",
        "User is also climbing at castle climbing centre now",
        False,
    ),
    # what the user's group does ("we" is read as the team), the user does with it
    (
        "User rehearses on Wednesday evenings in St Michael's church hall",
        "User's team now rehearses at the Methodist hall on Bridge Street",
        True,
    ),
    (
        "User's sister rehearses in St Michael's church hall",
        "User's team now rehearses at the Methodist hall",
        False,
    ),
    # the extractor's form of "switched gyms, I'm at Rockhouse Junction now": where they work out
    ("User boulders at Granite Loft on Dundas 3x a week", "User switched gyms to Rockhouse Junction", True),
    ("User lifts at PureGym on Mill Road", "User changed gyms to the Gym Group", True),
    ("User's son Leo trains at Granite Loft", "User switched gyms to Rockhouse Junction", False),
    ("User swims at the Oasis leisure centre", "User switched gyms to Rockhouse Junction", False),
    # a title given by someone, a promotion in a ranked service, a grade in Roman numerals
    ("User is a shift lead at a coffee chain", "User said: they made me store manager", True),
    ("User is a constable in the Met", "User got promoted to sergeant", True),
    ("User is an Analyst II at a bank", "User said: finally got Analyst III", True),
    # titles in trades, banks, hospitals and shops, and a title made as it is reached
    ("User is a sales assistant at a garden centre", "User got promoted to supervisor", True),
    ("User is a junior doctor in Glasgow", "User said: I'm a registrar now", True),
    ("User is a teller at a building society", "User said: they made me a personal banker", True),
    ("User is an associate at a consultancy", "User said: made engagement manager this cycle", True),
    # the extractor's form of "they made me team lead for the SME pod"
    ("User is an account executive at Pesapoint", "User was made team lead for the SME pod", True),
    ("User is an account executive at Pesapoint", "User's friend was made team lead for the SME pod", False),
    ("User is a line cook at a bistro", "User said: my risotto made the head chef cry", False),
    # a rank said in the user's own words, a promotion from one title to the next, a bump to a title
    (
        "User is a nurse at a children's hospital",
        "User said: got the promotion, I'm a senior nurse now",
        True,
    ),
    (
        "User is a data analyst at a bank",
        "User said: promoted from data analyst to senior data analyst",
        True,
    ),
    ("User is an analyst at a fund", "User said: I got bumped to associate", True),
    ("User is an analyst at a fund", "User said: my flight got bumped to tuesday", False),
    # a move to the other one of a kind leaves the first; working at the other one as well does not
    ("User works at the Leeds office", "User moved to the other office in Bradford last month", True),
    ("User works at the Leeds office", "User also works at the other office on Fridays", False),
    # a device held one at a time, acquired; not one for another use or another person
    ("User has an iPhone 12", "User bought a Pixel 9", True),
    ("User has an iPhone 12", "User got a work phone, a Pixel 9", False),
    ("User has an iPhone 12", "User bought a Pixel 9 for their daughter", False),
    # an app got is not a device: it may sit beside the old one
    ("User uses Spotify", "User got Apple Music with the new phone", False),
]


@pytest.mark.parametrize(("old", "new", "acted"), V16_PAIRS)
def test_rules_v16_change_constructions_act_only_where_the_words_say_so(
    old: str, new: str, acted: bool
) -> None:
    judged = RulesClassifier().judge(old, new, uuid.uuid4())
    assert (judged.verdict is Verdict.CONTRADICTS and judged.confidence >= ACTION) is acted, judged.reason


def test_an_additive_word_inside_a_name_is_no_additive_language() -> None:
    _, _, reason = judge_pair("User works from a coworking called Heden", "User is at Second Home now")
    assert "additive" not in reason
    _, _, reason = judge_pair(
        "User works from a coworking called Heden", "User works at a second coworking now"
    )
    assert "additive" in reason
