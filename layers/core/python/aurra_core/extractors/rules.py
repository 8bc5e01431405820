"""The offline rules extractor: deterministic, free, precision first. For tests, `aurra dev`
and teams that want no model anywhere.

It reads only the user's messages and keeps what the user states about themselves, their team
and their world, rewritten in the third person, one fact per clause: "I moved to Berlin last
month, and I use Emacs now" gives "User moved to Berlin last month" and "User uses Emacs now";
"We moved everything over to Linear" gives "User's team moved everything over to Linear";
"Just got promoted to staff engineer!!" gives "User just got promoted to staff engineer". It
finds the statement inside a long turn ("anyway the reason I'm writing is that I started a new
job at Shopify" gives "User started a new job at Shopify"), reads informal English ("im on
obsidian now lol") and first-person statements in Spanish, French, German and Portuguese
(extractors/rules_languages.py), and lets a correction win over what it corrects ("standup is
on Tuesdays, no wait, it's Thursdays" gives one fact, with Thursdays).

What it never keeps: questions, greetings, thanks, requests to the assistant, passing states
("I'm tired"), hedged plans ("I'm thinking about moving to Rome", "I might get a dog"), jokes
and hypotheticals ("if I won the lottery I'd buy a castle"), and the assistant's and the
system's words.

A statement about the user's life that its rules cannot rewrite (a first-person word or a
value in it, none of the above) is kept as said, one memory per sentence, as "User said: ..."
with `method` "verbatim" (a messages write records it in the memory's metadata: docs/api.md,
"Extraction").
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from itertools import pairwise

from aurra_core.errors import ExtractionError
from aurra_core.extractors.base import SAID, Extraction, capped, valid_facts
from aurra_core.extractors.rules_languages import language_of, plain_english, to_english, untranslated
from aurra_core.models import MAX_CONTENT_CHARS, MAX_QUOTE_CHARS, Message, Role
from aurra_core.runtime import deadline
from aurra_core.text_analysis.rules_lexicon import HOMES, MOVED_IN_BARE, ROLE_NOUNS
from aurra_core.text_analysis.sensitive_topics import sensitive_topic
from aurra_core.text_analysis.slots import CHANGE
from aurra_core.text_analysis.text import MONTH_NAMES, VALUE_WORDS, WEEKDAY_NAMES, content_terms

NAME = "rules"
MODEL_ID = "aurra-rules-extractor-v2"
PROMPT_VERSION = "rules-v2"
RULES = "rules"
VERBATIM = "verbatim"

# Sentences end at . ! ? ; a line break or a dash between spaces.
# A sentence ends at its stop, but not at a title's or a place's abbreviation ("St. James's").
_SENTENCES = re.compile(
    r"(?<=[.!?;])(?<!\bSt\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bMt\.)(?<!\bJr\.)"
    r"\s+|\n+|\s+[\u2014\u2013]\s+|\s+-\s+|(?<=\.\.\.)\s*|"
    r"(?<=[:,;])\s+(?=[1-9]\)\s)|"  # "Couple of updates: 1) ..., 2) ...": each item its own
    # "rip streak 💀 quit duolingo", "6:40 not 7:40 🙃 redo the timing?": an emoji between a word
    # or a number and a lowercase word ends a thought
    r"(?<=[a-z0-9])\s*[\U0001F300-\U0001FAFF\u2600-\u27BF][\U0001F300-\U0001FAFF\u2600-\u27BF\uFE0F\u200D]*\s+(?=[A-Za-z])"
)
_LIST_ITEM = re.compile(r"^[1-9]\)\s+")
# A month by its name or its abbreviation, in any case: "since June", "since feb"
_MONTH = r"(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*"
# Sums that are only ever the user's when said bare ("rent is 1450", "take home is about 3200")
_USERS_OWN_SUMS = r"rent|salary|pay|take[- ]?home|mortgage|income|savings|bills|membership|premium"
_SUBJECT_AHEAD = r"(?=(?:I|I'm|I've|I'd|I'll|[Ww]e|[Ww]e're|[Ww]e've|[Ww]e'll|[Mm]y|[Oo]ur)\b)"
# Habits said without their "I" ("run 4x/week", "coach U10s on saturdays"), and those said by
# where or when they are done ("swim at the lido", "sleep during the day"): read as a clause of
# their own after a comma (_CLAUSE) and as the user's (_SUBJECTLESS_PRESENT)
_HABITS = "run|play|teach|study|commute|volunteer|coach|speak"
_HABITS_BY_WHERE_OR_WHEN = "sleep|cook|swim|cycle|train"
_CLAUSE = re.compile(
    r",?\s+(?:and|but|so|although|though|while|because|since|plus|as|cause|and now|and also|"
    r"and then|but now|so now|which means)\s+" + _SUBJECT_AHEAD + r"|[,:]\s+" + _SUBJECT_AHEAD + r"|"
    r"\s+so\s+(?=there(?:'s| is| are)\b)|"  # "... took on two juniors so there's seven of us now"
    # "I asked and the team agreed to move standup to 10:00": the group's own statement
    r",?\s+(?:and|but|so)\s+(?=the (?:team|company|band|choir|club|office|whole (?:team|company|office))\b)|"
    # "I've been vegan for 4 years and want a high-protein meal plan": a wish after a statement,
    # its "I" left out, is a clause of its own (and kept as no fact)
    r",?\s+and\s+(?=(?:want|wanna|need|hope|plan|would like|'d like)\s+(?:to\b|a\b|an\b|some\b|help\b|ideas?\b))|"
    # "running Ubuntu 22.04 on my ThinkPad and the wifi drops every time": another thing's own
    # statement after "and"
    r",?\s+and\s+(?=(?:the|a|an|this|that)\s+[\w'-]+(?:\s+[\w'-]+)?\s+(?:is|was|has|keeps|kept|drops|"
    r"dropped|sent|won't|doesn't|didn't|can't|crashes|crashed|broke|stopped|says|said|wants|wanted)\b)|"
    # "I left Proximus, since June I work at Telenet": a statement of its own, dated
    r",\s+(?=since (?:" + _MONTH + r"|last \w+),? (?:I|[Ww]e|[Mm]y|[Oo]ur)\b)|"
    r",\s+(?=[A-Z][a-z]+(?: [A-Z][a-z]+)?(?:'s| is) (?:my|our|the|a|an|now)\b)|"  # ", Thabo Mokoena's my manager now"
    # "take home is about 3200, rent is 1450": a sum that is only ever the user's, said bare
    r",\s+(?=(?:" + _USERS_OWN_SUMS + r") (?:is|are)\b)|"
    r",\s+(?=(?:anyway|anyways|anyhow|btw|by the way|oh and|also|plus|but|so|and|though|honestly|"
    r"basically|long story short|the reason|the thing is|the point is|the news is|what happened is)\b)|"
    r",\s+(?=(?:live|living|work|working|based|love|hate|prefer|drive|own|big into|really into|into|"
    r"obsessed|moved|started|just|recently|currently|charging|earning|making|paying|running|using|"
    r"teaching|studying|coaching|managing|leading|freelancing|renting|commuting|been)\b|"
    # "I weigh 61kg, run 4x/week": another habit, its "I" left out
    r"(?:" + _HABITS + "|" + _HABITS_BY_WHERE_OR_WHEN + r")\s+"
    r"(?=(?:at|in|for|from|on|with|a|an|the|my|our|during)\b|(?-i:[A-Z])|\d)|"
    r"[a-z]{2,}ing (?=(?:at|in|on|for|with|from|to|my|our)\b)[^,]*\bnow\b)"  # ", climbing at Vital now"
)
# ", got a job at a vet hospital": the next thing done, its "I" left out, after a statement of the
# user's own; after one about someone else ("he's not at Amazon anymore, got a job at Royal Mail",
# "ortho says it's not just tendinitis, got a cortisone shot") whose it is is not said, and the
# sentence stays whole
_THEN_DONE = re.compile(
    r",\s+(?=(?:got (?:a|an|my|our|promoted|married|engaged)|bought|sold|landed|upgraded|updated|adopted|hired|"
    r"gave up|quit|signed up|took up|dropped|took on|graduated|retired|enrolled)\b)"
)
_SOMEONE_ELSE_SAID = re.compile(
    r"\b(?:he|she|they|he's|she's|they're|his|her|their|him|them)\b", re.IGNORECASE
)


# A clause that only says from when: "Corporate mandate: as of November, the whole company
# moved to Teams" - it dates the clause after it
_WHEN_ALONE = re.compile(
    r"^(?:[\w ]{1,30}:\s*)?(?:as of|since|from|starting|beginning|effective) "
    r"(?:(?:last|next|this|early|late|mid) )?[\w-]+(?: \d{1,2}(?:st|nd|rd|th)?)?$",
    re.IGNORECASE,
)


def _clauses(part: str) -> list[str]:
    clauses = []
    split = _CLAUSE.split(part)
    for at in range(len(split) - 1, 0, -1):
        if _WHEN_ALONE.match(split[at - 1].strip()):
            when = split[at - 1].strip().rsplit(":", 1)[-1].strip()
            split[at - 1 : at + 1] = [f"{split[at].rstrip(' .!')} {when[0].lower()}{when[1:]}"]
    for clause in split:
        ours = _WE.match(clause.strip())
        the_users_own = _SUBJECTLESS_PAST.match(clause) or _FIRST_PERSON.match(clause) or ours
        about_someone_else = _SOMEONE_ELSE_SAID.search(clause) or _FAMILY.search(clause)
        if not the_users_own or about_someone_else:
            clauses.append(clause)
            continue
        first, *then = _THEN_DONE.split(clause)
        # "we bought a place and moved in, sold the car": what is done next is ours too
        clauses.extend([first, *(f"we {done}" if ours else done for done in then)])
    return clauses


# A correction inside a sentence: "on Tuesdays, no wait, it's Thursdays".
_CORRECTION_SPLIT = re.compile(
    r"(?:[,;:\u2014\u2013]|\s-)\s*(?=(?:(?:ah|oh),?\s+(?:wait|sorry|no)|no\s*,?\s*wait|wait\s*,?\s*no|wait|sorry|oops|whoops|my bad|I mean|I meant|"
    r"actually,? no|no,? actually|scratch that|or rather|correction|well,? no|no,? no|no,? sorry|"
    r"sorry,? no|no,? I mean)\b|(?:um|uh|er|erm),? no,)",
    re.IGNORECASE,
)
# A statement that drops its "I" and so starts as a question could: "Did two splits last week",
# "Had the baby in September", "Have been on TickTick three weeks now".
_DROPPED_I = re.compile(
    r"^(?:did|had|have|has|was)\s+(?!it\b|that\b|this\b|there\b|he\b|she\b|they\b|we\b|i\b|[\d$\u20ac\u00a3])",
    re.IGNORECASE,
)
# The other side addressed: "do you know", "can u", "have you got".
_ADDRESSED = re.compile(r"\b(?:you|u|ya|your|ur|anyone|anybody|someone|somebody)\b", re.IGNORECASE)
_QUESTION_START = re.compile(
    # "now how do I block focus time ...": a question after a word that only leads in
    r"^(?:(?:now|ok|okay|anyway|btw),?\s+|like,?\s+(?=(?:what|how|where|which|who|why|when)\b))?"
    r"(?:what|who|whom|whose|which|where|when|why|how|whats|hows|wheres|whos|whys|"
    r"is|are|am|was|were|do|does|did|can|could|"
    r"will|would|should|shall|may|might|have|has|had|isn't|aren't|don't|doesn't|didn't|won't|any|"
    r"anyone|anything|got any|know any)\b(?!\s+[\d$\u20ac\u00a3])",  # "Did 28k last Wednesday": done
    re.IGNORECASE,
)
_NEED = r"(?:want|wanna|need)\s+(?:a|an|some|help|ideas?)"
_REQUEST = re.compile(
    # after an answer that says there is nothing to tell: "nothing really, tell me a penguin joke"
    r"^(?:(?:nothing|not much)(?: really| new)?,?\s+)?"
    r"(?:please|pls|plz|can you|could you|would you|will you|help me|tell me|remind me|let me know|"
    r"show me|give me|find me|book|recommend|suggest|write|draft|explain|translate|summari[sz]e|"
    r"ignore|forget|remember|note|make|list|check|send|set|add|create|schedule|"
    # a wish or a need said as what is asked for ("need a packing list", "..., and want a meal plan")
    + _NEED
    + r")\b(?!'s\b)",  # "schedule's sorted"
    re.IGNORECASE,
)
# An @-mention that opens a message: "@bot", "@assistant,"
_MENTION = re.compile(r"^@[\w.-]+[,:]?\s+")
# "my actual question: can you ...", "the question: ...": a heading, not the user's; what follows
# it is read on its own (a request, a question or a statement).
_QUESTION_HEADING = re.compile(
    r"^(?:(?:my|the|a|one)\s+)?(?:(?:actual|real|main|quick|last|other|one|big)\s+)?question\s*:\s*(?=\S)",
    re.IGNORECASE,
)
_PLEASANTRY = re.compile(
    r"^(?:(?:hi|hello|hey|heya|hiya|yo|sup|thanks|thank you|thx|ty|cheers|ok|okay|k|sure|great|cool|"
    r"nice|awesome|good (?:morning|afternoon|evening|night)|bye|goodbye|see you|lol|haha|yes|yeah|"
    r"yep|yup|please|welcome|noted|got it|sounds good|perfect|right|well|oh|ah|hmm|um|uh|"
    r"hola|bonjour|salut|hallo|olá|ola|oi|buenas|merci|gracias|danke|obrigad[oa]|so|anyway|"
    r"anyways|alright|all right|also|additionally|furthermore|moreover|plus|btw|by the way|fyi|quick update|"
    r"update|heads up|"
    r"news|(?:good|great|big|exciting|happy|some|bad|sad) news(?=\s*[,:!.;-])|fun fact|side note|long story short|honestly|basically|real talk|just so you know|"
    r"so yeah|oh and|and|but|ok so|okay so|love that(?: for me)?(?=\s*[,.!]))\b[\s,.!:;-]*)+",
    re.IGNORECASE,
)
# A request to keep what follows: "please remember that", "note that", "for the record".
_KEEP_THIS = re.compile(
    r"^(?:(?:can|could|would|will) you (?:please )?|please |pls |just )?(?:remember|note|keep in mind|"
    r"make a note|take note|be aware|update your (?:notes|memory|records)|for the record|for context|"
    r"just so you know|for your (?:info|information)|quick fyi|fyi)(?: that| of this| this)?[\s:,-]+"
    r"(?=(?:I|I'm|I've|my|we|we're|we've|our|My|We|Our)\b)|"
    # "remind me physio is twice a week": what to remember, not a reminder to set ("remind me to")
    r"^(?:(?:hey|hi|oh|and|also|pls|please),?\s+)*remind me(?: that)?\s+(?!(?:to|how|what|when|where|why|who|which|"
    r"of|about|again|later|tomorrow)\b)",
    re.IGNORECASE,
)
# "Change my email to x@y.com", "update my address to ...": the new value is the fact.
_SET_MINE = re.compile(
    r"^(?:please |can you |could you )?(?:change|update|set|switch) my ([\w' -]{2,30}?) to (.+?)[.!?]*$",
    re.IGNORECASE,
)
# Someone who sets what the user pays or earns, setting it: "landlord raised it €1,290 from
# april", "the gym put the membership up to 62", "boss bumped me to 2,300 a month". What was set
# is the user's: "My rent went up to €1,290 from april". `_PROVIDED` names what each one sets
# when the sentence says only "it", "me" or "us".
_PROVIDER_SET = re.compile(
    r"\b(?:my |the |our )?(?P<who>landlord|landlady|letting agent|gym|insurer|insurance company|boss|"
    r"manager|employer|nursery|daycare|creche|council)\s+(?:has |have |just |finally |also )?"
    r"(?P<verb>raised|put up|upped|increased|bumped|hiked|jacked up|put|moved|cut|lowered|dropped|reduced|"
    r"changed)\s+(?:(?P<it>it|me|us)|(?:the|my|our) (?P<what>[a-z]+(?: (?!to\b|by\b|up\b)[a-z]+)?))(?: up)?\s+(?:to\s+)?"
    r"(?=[£$€₹]\s?\d|\d)",
    re.IGNORECASE,
)
_PROVIDED = {
    "landlord": "rent",
    "landlady": "rent",
    "letting agent": "rent",
    "gym": "gym membership",
    "insurer": "insurance premium",
    "insurance company": "insurance premium",
    "boss": "pay",
    "manager": "pay",
    "employer": "pay",
    "nursery": "nursery fees",
    "daycare": "daycare fees",
    "creche": "creche fees",
    "council": "council tax",
}
_SET_DOWN = frozenset({"cut", "lowered", "dropped", "reduced"})


def _set_by_provider(match: re.Match[str]) -> str:
    verb = match.group("verb").lower()
    if match.group("what") and verb not in ("put", "moved", "changed"):
        return match.group(0)  # "landlord raised my rent to $1,600": the rewrite reads it as it is
    what = match.group("what") or _PROVIDED[match.group("who").lower()]
    went = (
        "went down to"
        if verb in _SET_DOWN
        else "is now"
        if verb in ("put", "moved", "changed")
        else "went up to"
    )
    return f"my {what} {went} "


# "I ..." that says something about the conversation, not about the user's life.
_NOT_A_FACT = re.compile(
    r"^I (?:"
    # "I see, thanks", "I see what you mean"; "I see a therapist on Wednesdays" is a fact
    r"think so|guess|suppose|see(?=\s*(?:[,.!?;:)-]|$|(?:what|why|how|that|your|now|so|ok|okay|thanks)\b))|know|agree|disagree|understand|mean|hope so|wonder|was wondering|"
    r"mixed (?:it|them|that|those) up|got (?:it|that|this) wrong|misspoke|misremembered|mistyped|"
    # "i gave you a wrong number", "i swapped the numbers", "i flipped it": about the telling
    r"gave you (?:a |the )?wrong|(?:swapped|flipped|mixed up|transposed) the (?:numbers|digits|dates)|"
    r"flipped (?:it|them)\b|"
    r"(?:do not|don't) know|appreciate|"
    # "i have an actual question", "I had a quick q": about the asking
    r"ha(?:ve|d) (?:a|an|one|one more|another|two|some|a few|a couple of)(?: (?:quick|small|actual|real|"
    r"random|dumb|silly|weird|follow-up|related|last|other|big|general|odd))? (?:questions?|qs?)\b(?! marks?\b)|"
    r"forgot|said|asked|meant|"
    r"need (?:you|help|to know|some|a (?:recipe|recommendation|suggestion|hand|favou?r))|"
    r"want (?:you|to know|to ask)|would like (?:you|to know|to ask)|"
    r"wanted to ask|have to go|will (?:check|think|get back)|just (?:wanted|asked|said)|"
    r"(?:love|like|hate) (?:it|that|this|your|the idea)\b|can't wait|cannot wait|bet|"
    r"feel (?:like|so|very|really|a bit|pretty)\b|think\b|believe\b|figured\b|was just|"
    r"had (?:a|an) (?:long|rough|great|good|bad|busy|crazy) (?:day|week|night|weekend)|"
    r"just had|need to|have to|gotta|got to|remember\b|read (?:that|somewhere)|heard\b|saw\b|noticed\b|wish\b)"
    r"|^I'd like (?:you|to know|to ask)|^I'll (?:check|think|get back|let you know|try)"
    r"|^I(?:'m| am) (?:(?:just |so |very |really |a bit |pretty |kind of |kinda |super )?(?:"
    r"fine|good|ok|okay|well|great|back(?! (?:in|at|on|with|to work)\b)|here|done(?! with\b)|ready|curious|confused|kidding|joking|asking|"
    r"wondering|sorry|glad|happy to hear|tired|hungry|thirsty|bored|sleepy|exhausted|in a hurry|"
    r"on my way|checking|not sure|listening|excited|nervous|busy today|stressed|worried|"
    r"looking for|trying to (?:figure|decide|understand|find)|sick of|so over|dying|dead|"
    r"jealous|lost|stuck|annoyed|frustrated|late|running late|about to|off to(?! (?-i:[A-Z]))|heading out|"
    r"writing|reaching out|messaging|back again|home now|out of|procrastinating|"
    r"in (?:a|the) (?:meeting|car|queue|line)|at the (?:airport|gym|store|office) (?:now|right now)))\b"
    r"|^My (?:bad|mistake|apologies|pleasure|question|point|guess)\b|^I'm (?:tired|sick) of\b"
    # about the asking, not the user's life: "asking in general", "I ask only out of curiosity",
    # "I'm not planning anything", "I have no plans whatsoever at present"
    r"|^(?:I(?:'m| am) |I )?(?:just |only )?ask(?:ing)?\b(?: \w+)? (?:in general|out of (?:pure )?curiosity|for a friend)\b"
    r"|^I (?:ask|asked) (?:\w+ )?(?:only |purely |just )?(?:out of|from) (?:pure )?curiosity\b"
    r"|^I(?:'m| am) not planning (?:anything|to)\b|^I have no (?:plans?|intention)\b"
    # what is said back to the assistant: "I was right", "I suspected as much", "I shall report back"
    r"|^I (?:was|were) right\b|^I suspected (?:as much|so)\b|^I (?:shall|will|'ll) report back\b"
    # a wish for the other's day: "have a nice weekend", "have a good one"
    r"|^(?:you |I )?have a (?:nice|good|great|lovely|wonderful) (?:one|day|weekend|week|evening|night)\b"
    # the assistant's idea praised, and no more: "a band fund sounds like a great idea" (taken
    # up, "..., we'll do that", it is the user's plan)
    r"|^(?:the |a |that |this )?[\w' -]{1,30}? (?:is|sounds like|seems like) an? (?:good|great|nice|smart|solid|brilliant) "
    r"idea[.!]*$",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(?:thinking (?:about|of)|considering|consider|might|maybe|perhaps|possibly|probably|"
    r"plan(?:s|ning)? (?:to(?! [$€£]?\d)|on \w+ing)|want(?:s)? to|wanna|would (?:like|love) to|'d (?:like|love) to|"
    r"hop(?:e|es|ing) to|not sure|unsure|someday|some day|one day|eventually|wonder(?:ing)?|"
    r"toying with|debating|on the fence|torn between|tempted|leaning towards?|undecided|"
    r"(?:could(?!n't| not\b)|should)(?!'ve\b)|fingers crossed|we'll see|who knows|(?:day)?dream(?:s|ing|ed)? (?:of|about)|"
    r"fantasi[sz](?:e|es|ing) about|"
    r"look(?:ing)? (?:into|at) (?:getting|buying|moving|switching|adopting)|if all goes well|"
    r"in the market for|weighing|mulling|pondering|interviewing (?:at|with|for)|"
    # an option looked at and not taken: "was eyeing the Pixel 8 too", "looked at Seattle too
    # before the move but", "benchmarked Mistral as well but it kept hallucinating"
    r"eyeing|eyed|h[eé]sit\w*|leaning(?! on\b)|thinking (?:we|I|we'll|I'll|that|maybe)|(?:looked at|benchmarked|trialled|trialed|considered|checked out) "
    r"[^,.;]{1,40}?\b(?:too|as well|also)\b(?=[^.;]*\bbut\b)|(?:looked at|benchmarked|considered) [^,.;]{1,40}?\bbut\b|"
    # someone else's wish or advice, not the user's: "my mate swears by Apivar", "a friend keeps
    # telling me to go to Postgres 17", "my sister's been on at me to come", "Kyle pushed for Saturdays"
    r"swears? by|keeps? (?:telling|saying|asking|nagging|pushing) (?:me|us|him|her|them)|"
    r"(?:been|is|'s) (?:on at|nagging|pushing|begging) (?:me|us)|pushed (?:hard |really hard )?for|"
    r"wanted (?:me|us|him|her|them) to|wants (?:me|us) to|thinks (?:I|we) should|"
    # "may" the modal, not the month: "in may", "from may", "since may", "last may" are dates
    r"(?<!\bin )(?<!\bfrom )(?<!\bsince )(?<!\buntil )(?<!\btill )(?<!\bby )(?<!\bmid )(?<!\bearly )"
    r"(?<!\blate )(?<!\bof )(?<!\bthis )(?<!\bnext )(?<!\blast )(?<!\bin early )"
    r"(?-i:\bmay\b)(?! \d))\b",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"^(?:if|imagine|what if|pretend|suppose|in another life|in my dreams|hypothetically)\b|"
    r"\bif (?:I|we|only)\b|\b(?:I|we)(?:'d| would)\b(?! (?:rather|prefer|like (?:you|my|our|it|replies|answers|to be called)))|"
    # "the team would riot": what others would do
    r"^(?:my|our|the) \w+(?: \w+)? would\b(?! (?:rather|prefer|like|love|enjoy)\b)|"
    r"\bjk\b|\bjust kidding\b|\bkidding\b|\bjoking\b|\bnot really\b|\bin theory\b|\blottery\b|"
    # "like what would rent even cost there, just curious": a question without its mark
    r"\bjust curious\b|\bout of curiosity\b|"
    r"\bwish (?:I|we)\b|\bwhen pigs fly\b|\bin (?:my|our) dreams\b",
    re.IGNORECASE,
)
_CORRECTION = re.compile(
    r"^(?:(?:oh|ah|oops|whoops|sorry|wait|hold on|hang on|no(?! longer\b| more\b)|nope|nah|actually|hmm|err|um|uh|ugh|"
    r"my bad|my mistake|correction|scratch that|strike that|I mean|I meant|let me correct "
    r"(?:that|myself)|or rather|rather|well|to be clear|typo|make (?:that|it))\b[\s,.:!-]*)+",
    re.IGNORECASE,
)
# The value a correction takes back: "it's 10 engineers not 9", "May 21, not the 12th"
_NOT_THAT_VALUE = re.compile(r"(?i),?\s+not (?:the )?([\w$£€:.-]*\d[\w:.-]*)\b")
# The user owning a mistake they made in what they told: "I gave you a wrong number", "i had
# it wrong", "I typed it wrong"
_OWNED_MISTAKE = re.compile(
    r"^(?:(?:ok|okay|so|and|also)[\s,]+)*I (?:gave you|told you|said|had|typed|wrote|put|got)"
    r"(?: (?:you|it|that|this|the|a|an|my|\w+)){0,4}? (?:(?:the |a )?wrong(?: \w+)?|incorrectly)\b"
    r"(?: (?:before|earlier|everywhere|last time))?\s*[,;:.!-]",
    re.IGNORECASE,
)
_STRONG_CORRECTION = re.compile(
    r"\b(?:oops|whoops|sorry|wait|hold on|hang on|my bad|my mistake|correction|scratch that|"
    r"strike that|I mean|I meant|let me correct|or rather|typo|make (?:that|it))\b|^(?:no|nope|nah)\b\s*[,.!]|"
    r"^(?:no|nope|nah)\s+(?:wait|actually)\b|^actually,?\s+no\b|^well,?\s+no\b|"
    r"^(?:um|uh|er|erm),?\s+no\s*,",
    re.IGNORECASE,
)
_BARE_NO = re.compile(r"^(?:no|nope|nah)\b[\s,.!]*$", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"^(?:I|I'm|I've|I'd|I'll|My|User and their)\b")
_WE = re.compile(r"^(?:[Ww]e|[Ww]e're|[Ww]e've|[Ww]e'll|[Ww]e'd|[Oo]ur)\b")
# "My wife and I bought a house", "me and my wife": one fact about both, its verb plural.
_TOGETHER = re.compile(r"\b(?:[Mm]y (\w+) and I|[Mm]e and my (\w+))\b(?!')")
# "I live with my boyfriend and I work as a nurse": after "with", an "and I" that a verb (or an
# adverb before one) follows starts a statement of its own
_AND_I_VERBS = frozenset(
    """work live am 'm was have 've had moved started got love loved like liked hate hated need needed
    go went do did teach run ran drive drove study think thought feel felt came saw met found made
    said told know knew want wanted""".split()
)


def _together(found: re.Match[str]) -> str:
    """ "My boyfriend and I moved" -> "User and their boyfriend moved"; not "with my boyfriend
    and I work as a nurse", two statements."""
    whom = found.group(1) or found.group(2)
    after = found.string[found.end() :].split()[:1]
    starts = bool(after) and (after[0].lower() in _AND_I_VERBS or _is_adverb(after[0].lower()))
    if found.group(1) and found.string[: found.start()].endswith("with ") and starts:
        return f"my {whom}, and I"
    return f"User and their {whom}"


_INNER_SUBJECT = re.compile(
    r"(?:^|(?<=[\s,]))(?:I|I'm|I've|I'll|[Ww]e|[Ww]e're|[Ww]e've)\s+(?!(?:mean|guess|think|know|"
    r"feel|suppose|hope|wonder|said|told|asked|was wondering)\b)"
)
# A verb that starts a statement with its "I" left out: "Just got promoted", "moved to Denver".
_SUBJECTLESS_PAST = re.compile(
    r"^(?:(?:just|finally|recently|also|then|officially|already)\s+)*(?:moved|started|got|switched|updated|settled in|"
    r"quit|left|joined|bought|sold|adopted|finished|upgraded|downgraded|changed|stopped|began|"
    r"became|landed|signed|graduated|married|retired|dropped|ditched|picked up|took up|gave up|"
    r"booked|hired|passed|completed|relocated|transferred|migrated|cancel(?:l)?ed|renewed|"
    r"subscribed|unsubscribed|traded|replaced|upgraded|enrolled|accepted|welcomed|lost|"
    r"moved back|made the switch|went back|hit|reached|turned|started using|switched over|made|"
    r"ripped out|got rid of|sold|bought|closed on|signed|handed in|put in|gave notice|withdrew|"
    r"pulled out of|dropped out of|pulled out|opened|upped|raised|increased|bumped|lowered|reduced|"
    r"paid off|paid|rented|found|won|ran|set up|built|launched|shipped|released|sent|earned|saved|"
    r"invested|deployed|rolled out|wrapped up|applied for|planted|renovated|killed|"
    r"swapped over|fixed|ended up|shifted|stepped down|stepped back|stepped away)\b(?!\s+(?:you|u)\b)(?!(?:\s+(?:it|that|this))?\s*(?:[.!,]|$))",
    re.IGNORECASE,
)
_SUBJECTLESS_ING = re.compile(
    r"^(?:(?:now|currently|also|still)\s+)?(?:switching|moving|migrating|starting|leaving|changing|up to|down to|"
    r"not (?:in|at|with|on) (?=\S+(?: \S+)? (?:any ?more|now)\b)|no longer (?:in|at|with|on)|"
    r"relocating|transitioning|heading|living|working|using|running|"
    # "on Linear now"; not a date ("on the 25th I start at Orchard Health", "on Friday we ...")
    r"on(?! (?:the \d+(?:st|nd|rd|th)|(?:mon|tues|wednes|thurs|fri|satur|sun)days?),? (?:I|we)\b)|based in|in the (?:middle|process) of|"
    r"halfway through|done with|over|into|big into|really into|super into|obsessed with|"
    r"(?:a )?(?:huge |big )?fan of|addicted to|hooked on|"
    r"(?!\w*thing\b|(?:morning|evening|spring|wedding|meeting|building|ceiling|sibling|king|ring|string|"
    r"clothing|pudding|painting|earring|offspring|asking|thinking|wondering|hoping|guessing)\b)"
    # "training for my first half marathon", "spiking Render this week"
    # ("swimming for Maya is wednesdays at five": the doing is what the sentence is about)
    r"\w+ing (?=(?:my|our|to|into|over|out|up|off|back|in|at|from|on)\b|[$€£\d]|"
    # ("going for easter" is a plan's when, not a doing)
    r"(?<!going )(?:for\b|(?-i:[A-Z]))(?![^,;.]*\b(?:is|are|was|were)\b)))"
    r"(?:\b|(?=[$€£\d]))"
    r"(?!\s+(?:it|that|this)\b)",
    re.IGNORECASE,
)
# "culling 3000 shots per wedding takes me ages": the doing is the subject of a verb whose object
# is the user, not what the user is doing now
_GERUND_SUBJECT = re.compile(
    r"^\w+ing\b[^,;]*?\s(?:takes|took|makes|made|gives|gave|costs|cost|kills|killed|drives|drove)\s+(?:me|us)\b",
    re.IGNORECASE,
)
# "..., not March 3" after a value: the misstatement is not kept.
# Only a value is taken back so ("March 13, not March 3", "at 4pm, not 3pm"): "drinks tea, not
# coffee" says what the user does not drink, and stays whole.
_NOT_THAT = re.compile(
    r"\s*(?:,\s*|\s+\()not (?!only|just|even|yet|sure|anymore|really)(?=[^,()]*(?:\d|\b[A-Z]))[^,()]+\)?\s*$"
)
# "I'm on sertraline 50mg if that matters for melatonin": why it is said, not what is so
_IF_IT_MATTERS = re.compile(
    r",?\s+(?:if|in case) (?:that|it|this) (?:matters|helps|is relevant|'s relevant|makes a difference)\b.*$",
    re.IGNORECASE,
)
# "in Melbourne not Sydney": one name in place of another, said without the comma
_NAME_NOT_NAME = re.compile(r"(\b[A-Z][\w'-]*)\s+not\s+[A-Z][\w'-]*(?: [A-Z][\w'-]*)*\s*$")
# A value the user takes back anywhere in a message: "Momo is 4 years old, not 3", "it's
# Wednesdays, not Thursdays", "Melbourne not Sydney" (the word before a bare "not" a value too)
_TAKEN_BACK = re.compile(
    r"(?P<before>[\w'-]+)(?P<comma>,?)\s+not (?!only|just|even|yet|sure|anymore|really|much|many|bad|too)"
    r"(?P<value>\d+(?:[.:]\d+)?(?:\s?(?:am|pm))?|[A-Z][\w'-]+(?: \d{1,2}(?:st|nd|rd|th)?\b)?)\b"
)
_FIRST_PERSON_WORDS = re.compile(
    r"(?i:\b(?:me|my|mine|myself|we|us|our|ours|yo|mi|mis|nosotros|nosotras|nuestro|nuestra|"
    r"nuestros|nuestras|je|moi|mon|ma|mes|nous|notre|nos|ich|mich|mir|mein|meine|meinen|meinem|"
    r"meiner|wir|uns|unser|unsere|unseren|eu|meu|minha|meus|minhas|nós|nosso|nossa|"
    r"ik|mijn|wij|ons|onze|io|mio|mia|miei|noi|nostro|nostra|nostri|nostre|"
    # "switched mom to eliquis": a parent or partner named as in the family, without "my"
    r"mom|mum|mommy|mummy|dad|daddy|hubby|wifey)\b|\bj')"
    r"|\bI\b|\bI'm\b|\bI've\b",
)
_A_NUMBER = re.compile(
    r"^(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty)\b[.!,]*$",
    re.IGNORECASE,
)
# A value a statement gives: a number, a time, a day, a month, a price (in words, those the
# normaliser reads as values).
_VALUE = re.compile(
    r"\d|[$\u20ac\u00a3]|\b(?:"
    + "|".join(sorted(VALUE_WORDS, key=len, reverse=True))
    + r")s?\b|\b(?:weekdays?|weekends?|midnight|half)\b|"
    # how often: "swimming twice a week instead"
    r"\b(?:once|twice|thrice|\w+ times) (?:a|per|every) (?:day|week|month|year)\b",
    re.IGNORECASE,
)
# A present state without its verb: "denver now", "12 now", "on linear since feb"; not "for
# now" or "right now", which say how long, nor "just now", which says when.
_STATE_NOW = re.compile(
    r"\w\s+(?<!for )(?<!right )(?<!just )(?<!until )(?<!by )(?:now|these days|at the moment)\b|\w\s+since \w+|"
    r"^no longer\b",  # "No longer with the choir": what has ended
    re.IGNORECASE,
)
# A list of what the user pays, earns or puts by, an amount to each ("my monthly budget: take
# home 3200, rent 1100, car payment 389, student loans 210, phone 45"): a fact to each, so that
# none is dropped and an amount said anew replaces its own, not the whole list.
_LISTED_SUM = (
    r"(?:(?:about|around|roughly|approx\.?|~)\s*)?[$\u20ac\u00a3]?\d[\d,]*(?:\.\d+)?\s*k?"
    r"(?P<per>\s*(?:/\s*|per\s+|an?\s+)(?:mo|month|wk|week|yr|year)\b)?"
)
_LISTED_ITEM = re.compile(
    r"^(?:(?:my|our|the)\s+)?(?P<label>[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){0,3}?)\s*"
    rf"(?:(?:is|are|at|of)\s+|[:=]\s*|-\s+)?(?P<sum>{_LISTED_SUM})$",
    re.IGNORECASE,
)
_LISTED_HEADING = re.compile(
    r"^(?:(?:my|our|the)\s+)?(?P<heading>[a-z][\w' -]{1,40}?)\s*:\s*(?=\S)", re.IGNORECASE
)
_LIST_SEPARATOR = re.compile(r"\s*(?:[,;]\s*(?:and\s+|plus\s+)?|\s(?:and|plus)\s+)")
# Words that say the list is money: one of them, or a currency sign, before a list is read so.
_MONEY_WORDS = frozenset(
    "rent mortgage payment payments loan loans bill bills budget salary pay wage wages income take "
    "takehome savings saving insurance phone internet broadband groceries food utilities electric "
    "electricity gas water fuel petrol childcare daycare nursery fees tuition subscription "
    "subscriptions debt credit tax spending spend expenses outgoings costs allowance pension "
    "contribution contributions investments".split()
)
# Who or how, not what for: "budget is 18k and we're somehow already at 16" is no list of sums.
_NOT_A_LABEL = frozenset(
    "i we you he she they it me us them this that there which who what already somehow still now "
    "just only also even almost nearly currently finally".split()
)
_PERIOD_OF_HEADING = {"monthly": " a month", "weekly": " a week", "yearly": " a year", "annual": " a year"}
# A heading that says only that a list of sums follows ("monthly budget", "bills"), not what of.
_LIST_HEADING_WORDS = frozenset(
    "my our the current new monthly weekly yearly annual budget bills expenses outgoings costs "
    "spending numbers breakdown".split()
)


_NAMED = r"[A-Z][\w.&+-]*(?: [A-Z0-9][\w.&+-]*){0,2}"
_OUT_IN = re.compile(
    rf"^(?P<old>{_NAMED})(?: is|'s) (?:out|gone|history|done)\s*[,;]\s*(?:and\s+)?(?P<new>{_NAMED})(?: is|'s) in\b"
)
# A label before what to keep: "Note for future bookings: aisle from now on", "For the record: ...".
_NOTE_LABEL = re.compile(
    r"^(?:note|fyi|for the record|for future reference|for reference|for next time)(?: for [\w ]{1,30}?)?\s*:\s+",
    re.IGNORECASE,
)
_SECOND_PERSON = re.compile(r"\b(?:you|you're|your|u|ur)\b", re.IGNORECASE)
# Someone of the user's world, by name, doing or being something: "Mateo quit guitar over the
# holidays", "Noor got a postdoc at Erasmus", "Ren turned five last week".
_PERSON_ACTS = re.compile(
    r"^(?:(?:[Aa]nd|[Bb]ut|[Aa]lso|[Pp]lus|[Ss]o|[Tt]hen)\s+)?(?!(?:I|The|This|That|It|There|Here|Thanks|"
    r"Sorry|Yes|Yeah|No|Ok|Okay|Sure|Hi|Hello|Hey|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|"
    r"Sunday|Today|Tomorrow|Yesterday|Please|Just|Anyway|Well)\b)"
    r"[A-Z][a-z]+\s+(?:(?:just|finally|now|also|still|already|recently|officially)\s+)?"
    r"(?:[a-z]+ed|got|quit|left|began|became|took|went|made|won|lost|turned|is|was|has|had|works|lives|"
    r"plays|takes|starts|goes|does)\b"
)
# What the user's world is now, said without "I" or a value: a change or an end ("LastPass is
# gone, subscription cancelled", "mid-migration from MySQL to Postgres", "still with Kranich",
# "the old rota doesn't work anymore"), or someone of it in the third person ("her teacher is
# Ms Okafor", "she's in linz", "maya joined to do level design").
_WORLD_STATE = re.compile(
    r"\b(?:any ?more|no longer|still (?:with|at|in|on|doing|using|remote|there)|is gone|are gone|done with|"
    r"(?:re)?joined|switched|migrat\w+|mid-\w+|cancel+ed|quit|retired|closed (?:down)?|shut down|"
    r"got (?:approved|signed|accepted|rejected|frozen|cancel+ed|hired|fired|promoted|married|engaged)|"
    r"signed|finished|wrapped up|went (?:up|down)|(?:is|are) over|decommissioned|deprecated|"
    # "priya got the job at the rspca", "Blue Card is finally done", "a guy called Callum"
    r"got (?:the|a|her|his|their) (?:new )?(?:job|offer|position|role|place|contract|visa|permit)|"
    r"(?:is|are) (?:finally|now|officially) (?:done|through|approved|sorted|official|granted)|"
    r"(?:a|the) (?:guy|man|woman|lady|girl|bloke|chap|doctor|dr) (?:called|named) [A-Z]\w*)\b|"
    # "New teacher is Mr. Abernathy at MacPhail": a new one of someone the user has
    r"^(?:(?:and|so|also|plus)\s+)?(?:the |our |my |his |her |their )?new \w+(?: \w+)? (?:is|'s)\b|"
    r"^(?:(?:and|but|so|also|plus|anyway|oh)\s+)?(?:(?:he|she|they)(?:'s|'re| is| are| has| had| was| were| got|"
    r" just| works| lives| goes| loves| hates| started| moved| left)|(?:his|her|their) \w+(?:'s| is| are| was| has))\b|"
    r"^(?:(?:and|but|so|also|plus|anyway|oh)\s+)?[a-z]{3,} (?:just |finally |also )?(?:joined|left|quit|moved|started|"
    r"retired|graduated)\b",
    re.IGNORECASE,
)
# A count as it is said in a sentence: "12", "twelve".
_SMALL_NUMBER = r"(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
# "vim is my editor", "Lisbon is our base now": the value first, whose thing after it.
_IS_MINE = re.compile(
    r"^(?P<value>(?!(?:it|that|this|there|he|she|they|what|who|which|everything|nothing)\b)[\w.+#-]+(?: [\w.+#-]+)?) "
    r"(?:is|are) (?P<whose>my|our) (?P<what>[a-z]+(?: (?!now\b|these\b)[a-z]+)?)(?P<rest> now| these days)?$",
    re.IGNORECASE,
)
# What a statement comes to, counted: "which makes six grandchildren in all", "that makes 3 cats".
_MAKES_N = re.compile(
    # "which makes six grandchildren in all", "so that's 7 students", "so that's nine hives now"
    r"\b(?:(?:which|that|this|so that) makes (?:it |us )?|so that's |so that is |so thats )"
    r"(?P<n>" + _SMALL_NUMBER + r") (?P<noun>[a-z]*children|[a-z]+s)\b"
    r"(?: in all| in total| altogether| now)?",
    re.IGNORECASE,
)
_NOT_COUNTED = frozenset(
    "years months weeks days hours minutes times euros dollars pounds miles km kilometres kilometers points".split()
)
# A thing the user (or their team) stopped using, as the rules word it: "User's team ditched jira".
_LEFT_THING = re.compile(
    r"^(?P<s>User(?:'s \w+)?) (?:finally |just |officially )?(?:(?:ditched|dropped|cancel(?:l)?ed|got off|moved off(?: of)?|"
    r"got rid of|stopped using|moved away from) (?:the |our |their )?(?P<x>[\w.+-]+(?: [A-Z][\w.+-]*)?)|"
    # the last of a tool's machines turned off: "switched off the last Jenkins box"
    r"(?:switched off|turned off|shut down|shut off|shut|decommissioned|retired) (?:the |our |their )?(?:last |old )?"
    r"(?P<off>[\w.+-]+(?: [A-Z][\w.+-]*)?) (?:box|boxes|server|servers|instance|instances)(?: down| off)?|"
    r"let (?:the |our |their )?(?P<let>[A-Z][\w.+-]*(?: [A-Z][\w.+-]*)?) go|"
    # where the user no longer is: "is not in Berlin any more", "no longer lives in Seville"
    r"(?:is not|isn't|is no longer|no longer lives?) (?:in|at) (?P<place>[A-Z][\w.+-]*(?: [A-Z][\w.+-]*)?)"
    r"(?: any ?more)?|"
    # a tool no longer used: "doesn't use Jira these days"
    r"(?:doesn't|does not|don't|do not|no longer) use (?:the |our |their )?(?P<tool>[A-Z][\w.+-]*(?: [A-Z][\w.+-]*)?)"
    r"(?: any ?more| these days| now)?|"
    # an employer left: "left Flipkart in March", "is not at Flipkart anymore"
    r"(?:left|quit|is not at|isn't at|is no longer at|no longer works at|doesn't work at|does not work at) (?P<job>[A-Z][\w.+-]*(?: [A-Z][\w.+-]*)?)"
    r"(?: any ?more)?)"
    r"(?P<when> over \w+| in \w+| last \w+| this \w+| at the (?:end|start|beginning) of \w+| in (?:early|mid|late) \w+|"
    r" on (?i:mon|tues|wednes|thurs|fri|satur|sun)day| yesterday)?$"
)


def _what_was_left(left: re.Match[str]) -> str:
    """The name a `_LEFT_THING` match says was left: a tool, a place or an employer."""
    return next(name for name in left.group("x", "off", "let", "place", "tool", "job") if name)


def _what_is_on_now(now: re.Match[str]) -> str:
    """The name a `_NOW_ON` match says is used or lived in now, without the stop after it."""
    return next((name for name in now.group("y", "it", "j") if name), "").rstrip(".,;:!")


# The thing used now, said after it: "been on linear since feb", "the whole squad moved to
# Linear", "the whole team lives in Linear now", "we've been on Octopus since December",
# "moved everything over to Linear", "I'm in Lisbon", "joined Swiggy in July".
_NOW_ON = re.compile(
    r"\b(?:been|now|we're|we are|moved|relocated|switched|lives|living|live|went|is|are|builds|runs|(?i:i'm|im|i am))\b"
    r"(?:\s+(?:all|fully|completely|over|everything|it|now|here)){0,2}"
    r"\s+(?:on|to|in|into|using|with)\s+(?!(?:the|a|an|our|my|their|it|this|that|since|now|board)\b)"
    r"(?P<y>[A-Za-z][\w.+-]*(?: [A-Z][\w.+-]*)?)|"
    r"\bit's (?P<it>[A-Z][\w.+-]*(?: [A-Z][\w.+-]*)?) now\b|"  # "we let Riverford go, it's Oddbox now"
    r"\b(?:joined|started at|am at|(?i:i'm) at|now at|work at|works at|working at) (?P<j>[A-Z][\w.+-]*(?: [A-Z][\w.+-]*)?)"
)
# What a later message's fact says the subject has now, by the kind of thing left before it:
# "User is in Lisbon", "User signed a lease in Austin"; "User is now a senior PM at Intercom",
# "User joined Starling"; "User's team is on Linear now", "User uses Obsidian now".
_NAME = r"(?P<y>[A-Z][\w.+-]*(?: [A-Z][\w.+-]*)?)"
_NOW_HELD = {
    "place": re.compile(
        r"^(?P<s>User(?:'s \w+)?) (?:is (?:now )?(?:in|based in|living in)|lives in|now lives in|"
        rf"(?:has )?(?:moved|relocated) to|signed a lease in|rents in) {_NAME}"
    ),
    "job": re.compile(
        r"^(?P<s>User(?:'s \w+)?) (?:is (?:now )?(?P<title>(?:an?|the) [\w -]+? )?at|(?:has )?joined|started at|"
        rf"works at|now works at|is working at) {_NAME}"
    ),
    "tool": re.compile(
        r"^(?P<s>User(?:'s \w+)?) (?:is (?:now )?(?:on|using)|uses|now uses|(?:has )?switched to) "
        rf"{_NAME}(?: now)?$"
    ),
}
# What may follow the value of a statement of the thing now held and add nothing to it.
_NOTHING_MORE = re.compile(r"(?:\s+now)?[\s.!,;]*")
# A thing said to be gone, kept as said: "LastPass is gone, subscription cancelled", "the
# Jenkins box is decommissioned", "Notion cancelled".
_GONE = re.compile(
    r"^User said: (?:(?:so|and|also|ok|well)\s+)?(?:the |our |my |old )*(?P<x>[A-Z][\w.+-]*(?: [A-Z][\w.+-]*)?)"
    r"(?: (?:box|boxes|server|servers|subscription|account|plan))? (?:is |are |'s |got |has been |was )?"
    r"(?:gone|cancel+ed|decommissioned|deleted|uninstalled|shut down|history)\b"
)
# "everything builds on GitHub Actions now": all of what the thing gone did.
_ALL_OF_IT = re.compile(r"^(?:(?:and|so|now)\s+)?(?:everything|all of it|it's all|all)\b", re.IGNORECASE)
# Kinds of names that are no thing used: people and where the user lives or works.
_NOT_THINGS = frozenset({"relatives", "people", "person", "place", "employer"})
# A statement that opens with the user: "I'm in Lisbon", "we've been on Linear", "moved to Leeds"
_OPENS_WITH_THE_USER = re.compile(
    r"^(?:(?:and|so|but|now|anyway)\s+)?(?:I|I'm|I've|I am|we|we're|we've|we are|been|now|moved|relocated|"
    r"switched|joined|started)\b",
    re.IGNORECASE,
)
# What a rewrite leaves of a clause it could not read: a subject alone, or with a bare verb.
_SAYS_NOTHING = re.compile(
    r"^User(?:'s [\w-]+| (?:works|is|has|does|did|talked|mistakes|caved|said|will|can|was|went|goes|got|"
    r"must|should|would|could))[.!]?$|"
    # a verb that wants what it is done to, said without it: "User likes", "User signed"
    r"^User (?:likes|loves|hates|wants|needs|signed|followed|feared|have|upgraded|checked|tried)[.!)]?$|"
    # a preposition or an auxiliary with nothing after it: "User worries about", "User can do"
    r"^User(?:'s [\w-]+)?(?: [\w'-]+){0,2} (?:about|in|on|at|to|of|for|with|from|by|into|onto|than|till|until|"
    r"not|already|do|have|has|had|is|are|was|can|could|would|should|will)[.!)]?$|"
    # a passing state: "User is knackered", "User is crying"
    r"^User (?:is|'s) (?:so |really |absolutely |completely |totally )?(?:knackered|wrecked|shattered|crying|"
    r"fine|drowning|buzzing|gutted|exhausted|tired|okay|ok)[.!)]?$|"
    # a number, or an ordinal, with nothing it counts: "User has 3", "User's first one"
    r"^User (?:has|had) \d+[.!)]?$|^User's (?:first|second|third|last|next) (?:one|full)[.!)]?$|"
    # a relative clause read as a statement, what it is about left before it ("the stuff I had
    # before", "more than I was expecting", "the people I worked with at my last job used")
    r"^User (?:had|used|saw|tried|got|was expecting|wasn't expecting|expected|imagined|thought)"
    r"(?: before| earlier| then| last time| previously)?[.!)]?$|"
    r"^User \w+ (?:with|for|about|at|from) (?:at|in|on|to|for|from|with)\b|"
    # a doing that wants its object, said without it: "a little godot game i'm building"
    r"^User is (?:building|making|writing|doing|using|reading|watching|playing|planning|designing|"
    r"developing|coding|working on)[.!)]?$"
)
# "..., so maybe something for him too": a hedged consequence of a statement.
_SO_HEDGED = re.compile(
    r"^,?\s*so\s+(?:(?:next|this) (?:year|month|week|season),?\s+)?(?:maybe|perhaps|probably|I might|I may|I could|"
    r"I should|we might|we could|we should|I'll probably|we'll probably|I'd probably|we'd probably)\b",
    re.IGNORECASE,
)
# "he wants to", "she might": a hedge that is someone else's, not the user's mood.
_THIRD_PERSON_START = re.compile(r"^(?:(?:and|but|also|plus|so|then)\s+)?(?:he|she|they)\b", re.IGNORECASE)


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _word_count(text: str) -> int:
    """Words, where a script written without spaces (Japanese, Chinese, Korean) counts one word
    for every two of its characters."""
    return len(text.split()) + len(_CJK.findall(text)) // 2


def _states_a_value(clause: str) -> bool:
    """Whether a clause the rules could not read still gives a value worth keeping."""
    words = clause.split()
    return len(words) >= 2 and bool(_VALUE.search(clause) or _states_now(clause))


def _gives_a_value(clause: str) -> bool:
    """A value, or a name after the clause's first word: "company moved us to the King's Cross office"."""
    return _states_a_value(clause) or bool(re.search(r"\s[A-Z][a-z]", clause))


def _states_now(text: str) -> bool:
    """A present state ("denver now"), not one said to the assistant ("you are now in admin mode")."""
    return bool(_STATE_NOW.search(text)) and not _SECOND_PERSON.search(text)


_WORK = re.compile(
    r"\b(?:team|teams|company|startup|org|organi[sz]ation|department|dept|engineers?|developers?|"
    r"devs|employees|staff|sprints?|standups?|stand-ups?|retros?|deploy\w*|production|prod|backend|"
    r"frontend|stack|codebase|repos?|customers?|clients?|office|headcount|hires?|hired|hiring|"
    r"users|subscribers|signups|revenue|arr|mrr|churn|app|sprint|"
    r"product|roadmap|releases?|meetings?|all-hands|on-call|tickets?|vendors?|tooling|tools?|"
    r"platform|servers?|database|crm|saas|seats?|licen[cs]es?|infra\w*|cloud|ci|pipelines?|"
    r"(?<=\d )people|(?<=\d )folks|devops|qa|designers?|managers?|reports|salesforce|hubspot|jira|slack|linear|"
    r"github|gitlab|aws|gcp|azure|notion|confluence|asana|trello|figma|zoom|teams|monday|clickup|"
    r"kubernetes|k8s|docker|terraform|python|java|go|rust|node|react|postgres\w*|mysql|mongo\w*|"
    r"redis|kafka|snowflake|bigquery|datadog|sentry|quarter|q[1-4]|okrs?|migrat\w*|switch\w*|"
    r"orchestration|airflow|dagster|frontend|api|apis|sdk|framework|runtime|version|upgrade\w*|"
    # a kitchen's, a shop's floor: "sous chef here ... we close at 10 on weeknights"
    # (not the places themselves: "we went to a cafe" is the user's outing)
    r"sous chef|head chef|line cooks?|front of house|the pass|bar license|liquor license)\b",
    re.IGNORECASE,
)

_NOT_NAMES = frozenset(
    """american british canadian australian irish scottish welsh english french german spanish
    italian dutch swedish norwegian danish finnish polish russian ukrainian chinese japanese
    korean indian pakistani mexican brazilian portuguese argentinian chilean colombian
    peruvian nigerian kenyan egyptian turkish greek jewish muslim christian catholic hindu
    buddhist vegan vegetarian back home here done fine good okay ok ready retired single
    married divorced pregnant""".split()
)
_EMPTY_VERBS = frozenset(
    "is was are has had does did agrees disagrees knows sees means guesses thinks hopes can will would".split()
)
_BASE_ED = frozenset("need feed seed bleed breed speed proceed succeed exceed shred wed embed heed".split())
_MODALS = frozenset(
    "can could will would should shall may might must can't couldn't won't wouldn't shouldn't "
    "mustn't cannot ought".split()
)
_ADVERBS = frozenset(
    "now just also recently finally still usually always often never sometimes mostly really "
    "actually currently already only even mainly generally basically definitely certainly "
    "probably rarely seldom occasionally totally absolutely officially literally honestly "
    "mostly primarily exclusively barely hardly scarcely nearly almost "
    # when, in a story: "I first met Sam in 2019", "we then moved to Leeds" (not "User firsts met")
    "first once then later soon last twice "
    # "I somehow agreed to ...", "I either find someone or ...": not "User somehows agreed"
    "somehow rather either not".split()
)
_IRREGULAR_PRESENT = {"am": "is", "are": "is", "have": "has", "do": "does", "go": "goes", "'m": "is"}
_IRREGULAR_PAST = frozenset(
    "was were had did went got made took came saw knew thought bought brought left felt kept "
    "began became broke chose drove fell found flew forgot gave grew held heard hurt lost met "
    "paid put quit ran read said sold sent set sat slept spent spoke stood stole swam taught "
    "told understood woke won wore wrote built caught dealt dug drew ate fed fought hid hit led "
    "lent let lit meant rode rang rose shook shot shut sang sank slid spun split spread stuck "
    "struck swore swept swung tore threw withdrew overdrew undertook overtook forgave foresaw "
    "mistook overcame became bore blew bled bred clung crept fled flung froze ground hung knelt "
    "leapt overslept overspent rebuilt resold retook rewrote sought shone shrank sprang stank "
    "stung strove strode upheld withheld wove wept wound".split()
)
_OBJECT_PRONOUNS = {
    "my": "their",
    "me": "them",
    "mine": "theirs",
    "myself": "themselves",
    "i": "they",
    "i'm": "they're",
    "i've": "they've",
    "i'd": "they'd",
    "i'll": "they'll",
    "our": "their",
    "us": "them",
    "ours": "theirs",
    "we": "they",
    "we're": "they're",
    "we've": "they've",
    "ourselves": "themselves",
}
_SWITCH = (
    r"\b(?:switch\w*|migrat\w*|ditch\w*|dropp\w* \w+ for|upgrad\w*|downgrad\w*|replac\w*|"
    r"mov\w+ (?:\w+ )?over to|on \w+ now|trad\w+ in|swapp\w*|gave up \w+ for)\b"
)
_TOPICS = (
    ("work", r"^User's (?:team|company|startup|employer|manager|boss|org|department)\b"),
    ("preferences", _SWITCH + r"(?!.*\b(?:shifts?|role|job|position|team|department)\b)"),
    (
        "location",
        r"\b(?:lives?|living|lived|relocat\w*|based in|hometown|apartment|flat|neighbou?rhood|"
        r"house|mov(?:ed|ing|es?) (?:back |out |away |abroad |house )?(?:to|from|into|in|out)\b"
        r"(?! \d| (?:mon|tues|wednes|thurs|fri|satur|sun)days?| the \d| (?:noon|midnight)))|"
        # "shifted to pune": a move as Indian English says it, not a shift's hours or a way of working
        r"\bshifted (?:house |homes |base )?to (?!nights?|days?|mornings?|evenings?|remote|hybrid|wfh|part|full)",
    ),
    (
        "work",
        r"\b(?:work(?:s|ed|ing)?|job|employer|company|hired|promot\w*|boss|colleague|office|role|"
        r"position|career|salary|freelanc\w*|startup|retired|engineer|developer|designer|manager|"
        r"nurse|teacher|lawyer|doctor|consultant|analyst|shifts?|reports|clients|intern\w*|"
        r"staff|senior|junior|lead|director|head of|ceo|cto|founder)\b",
    ),
    (
        "family",
        r"\b(?:sister|brother|mother|father|mom|mum|dad|wife|husband|partner|son|daughter|kids?|"
        r"children|child|parents?|grandm\w*|grandf\w*|married|engaged|boyfriend|girlfriend|baby|family)\b",
    ),
    ("pets", r"\b(?:dogs?|cats?|pupp(?:y|ies)|kittens?|pets?|parrots?|hamsters?|rabbits?|horses?|fish)\b"),
    (
        "food",
        r"\b(?:vegan|vegetarian|eat|eats|ate|eating|drink|drinks|coffee|tea|food|cook\w*|meat|diet|"
        r"pescatarian|gluten|dairy)\b",
    ),
    ("travel", r"\b(?:travel\w*|trip|flight|vacation|holiday|visit\w*)\b"),
    (
        "preferences",
        r"\b(?:use[sd]?|using|prefer\w*|like[sd]?|love[sd]?|hate[sd]?|favou?rite|switched|enjoy\w*|"
        r"editor|fan of|into|app|tool)\b",
    ),
)


@dataclass(frozen=True)
class Found:
    """One fact found in a conversation: its content, the messages it came from (a correction's
    fact: the corrected one's and the correction's; an answer's: the question's and the
    reply's), the span of the last of them it was read from, and how it was found (`rules` or
    `verbatim`)."""

    content: str
    message_indexes: tuple[int, ...]
    quote: str | None = None
    method: str = RULES

    @property
    def message_index(self) -> int:
        return self.message_indexes[-1]


# What may follow a comma and still belong to the fact: a place's region ("Portland, Oregon"),
# a year, a list or a phrase that goes on from it. Anything else is another statement.
_GOES_ON = re.compile(
    r"^(?:[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,2}$|\d|(?:and|or|including|plus|with|in|at|on|for|"
    r"from|near|to|both|each|all|mostly|mainly|usually|every|twice|once|mainly|especially|"
    r"named|called|aged|ages|since|starting|effective|as of|not)\b|"
    r"(?:around|about|roughly|approximately|by|until|till|before|after)\s+[\d$\u20ac\u00a3])"  # ", around 6pm"
)


# "... and everything is in Figma which is fine": a statement about something else.
_OTHER_CLAUSE = re.compile(
    r"\s+(?:and|but|so)\s+(?:honestly\s+|also\s+|plus\s+|tbh\s+|anyway\s+|luckily\s+|sadly\s+)?"
    r"(?=(?:everything|it|it's|that|this|there|which|everyone|nobody|the \w+ "
    r"(?:is|was|are|were|has|had))\b)"
)


# "lost 2 to rugby so 12 now": what it comes to, a count now, is the fact's own end.
_COUNT_NOW = r"(?:it's |that's |we're |there's |it is |that is )?" + _SMALL_NUMBER + r" now\b"
# Why, and what the user thinks of it, is not the fact: "... because Chase fees are ridiculous".
_WHY = re.compile(
    r",?\s+(?:because|cause|cuz|since (?!\d|the \d|year|last|" + _MONTH + r"\b|then|"
    r"the (?:start|beginning|spring|summer|fall|autumn|winter|holidays|new year|move)|"
    # "since spring break", "since Christmas": a time too
    r"(?:spring|summer|fall|autumn|winter|christmas|xmas|easter|half[- ]term|new year)\b)|which (?:is|was|has|means|makes|feels|honestly)|"
    r"so that|so (?!far|much|many|long|" + _COUNT_NOW + r")|though|although|even though|"
    r"(?:lol|haha)(?! so " + _COUNT_NOW + r")|"
    r"after (?:the|a|an|some|all|our|my|their) (?!" + _MONTH + r"\b))\b"
)
# Words that say how it was said, not what: they only dilute a fact.
_FILLER_WORDS = re.compile(
    r"\b(?:honestly|basically|actually|literally|totally|seriously|definitely|lowkey|highkey|"
    r"kind of|sort of|pretty much|officially|finally|like(?= (?:\d|a |an |the |two|three|four|five|six|ten))|"
    r"you know|I guess|I think)\s+",
    re.IGNORECASE,
)


def _own_statement(fact: str) -> str:
    """The fact up to a comma after which another statement starts: "User is switching to
    1Password this week, LastPass had one breach too many" -> "User is switching to 1Password
    this week"."""
    return _FILLER_WORDS.sub("", _own_part(fact))


# A sum said bare after a statement: "day rate £400", "pay 12.50 an hour", "rent about 1450". A
# rate, budget or fee names its currency or its period ("rate 2 days a week" is no sum).
_SUM_PERIOD = r"(?:an? |per |/ ?)(?:hour|hr|h|day|week|wk|month|mo|year|yr|session|lesson|class)\b"
_BARE_SUM = re.compile(
    r"^(?:my |our )?(?P<what>(?:day |daily |hourly |monthly |weekly |annual |base )?"
    r"(?:(?P<priced>rate|budget|fees?)|" + _USERS_OWN_SUMS + r"))(?: (?:is|of|at))? "
    r"(?P<sum>(?:about |around |roughly |~)?(?P<currency>[$\u20ac\u00a3])?\s?\d[\d,.]*\s?[kK]?\b"
    r"(?P<period>\s?" + _SUM_PERIOD + r")?[^,;]*)$",
    re.IGNORECASE,
)
# A statement with a subject of its own: "TP1347 is 6:40 not 7:40", "the flight's at 9".
_OWN_STATEMENT = re.compile(r"^[\w'&.-]+(?: [\w'&.-]+){0,3}? (?:is|are|was|were|'s) \S", re.IGNORECASE)


# A tail that says something of its own though not "X is Y": "A1c came back 6.4", "put 6% into
# my 401k", "gave up the allotment because zero time"; not a part of the statement before it
# ("since the weekend", "same 5pm", "due in July"), which has no verb of its own.
_STANDS_ALONE = re.compile(
    r"^(?!(?:a|an|ok|okay|pls|please|since|until|till|due|same|like|lol|which|who|where|when|whose|in|at|on|for|from|to|"
    r"with|by|about|around|as|than|then|or|and|but|so|because|cause|if)\b)"
    r"[\w'&.%$\u20ac\u00a3-]+(?: [\w'&.%$\u20ac\u00a3-]+){0,3}? "
    r"(?:\w+ed|came|went|got|gave|put|made|took|left|began|sold|bought|paid|won|lost|grew|fell|rose|"
    r"runs|costs|pays|takes|starts|ends|has|have|had|does|did|goes)\b \S",
    re.IGNORECASE,
)
# What the user is doing, said after a comma without "I'm": "staying 5 nights", "paying 1200 for it".
_DOING_WITHOUT_I = re.compile(
    r"^(?:staying|working|living|running|training|taking|paying|earning|making|spending|flying|"
    r"leaving|driving|teaching|studying|renting|saving|sleeping|riding|cycling|swimming|lifting|"
    r"doing|getting|going)\s+(?!to\b|on\b|about\b)\S",
    re.IGNORECASE,
)
# The link word before a tail: "so that's 7 students", "because two of the players got Friday shifts".
_LEADING_LINK = re.compile(r"^(?:and|but|so|because|cause|plus|also|then)\s+(?:also\s+)?", re.IGNORECASE)


# ", " outside brackets: "a dog (a beagle, Max)" is one statement, whose aside goes with it
_COMMA_OUTSIDE_BRACKETS = re.compile(r", (?![^()]*\))")


def _cut_tail(clause: str) -> str:
    """What `_own_statement` leaves out of a clause: the other statement after its own."""
    return clause[len(_own_part(clause)) :].strip(" ,;:.")


def _own_part(text: str) -> str:
    """The start of the text up to where another statement starts (fillers still in it)."""
    head = _OTHER_CLAUSE.split(text, maxsplit=1)[0]
    head = _WHY.split(head, maxsplit=1)[0]
    parts = _COMMA_OUTSIDE_BRACKETS.split(head)
    kept = 1
    while kept < len(parts) and _GOES_ON.match(_FILLER_WORDS.sub("", parts[kept])):
        kept += 1
    return ", ".join(parts[:kept])


# A cut statement that says what changed: "..., company moved us to the King's Cross office",
# "got a raise so since the 1st it's five hundred euros a month"; not "since 2019", which says
# how long a state has held
_CHANGED_TAIL = re.compile(
    r"\b(?:now|anymore|any more|no longer|since the \d+(?:st|nd|rd|th)|as of|moved|switched|ditched|upgraded|"
    r"changed|bumped|raised|went up|went down)\b",
    re.IGNORECASE,
)


_CHANGE_WITHOUT_VALUE = re.compile(
    r"\b(?:switched|changed) (?:jobs|roles|teams|companies|careers|gyms|schools|banks|doctors)$|\bgot a new job$|"
    # "did the PG upgrade over the weekend, straight to 16": what it was upgraded to comes after
    r"\b(?:did|finished|completed|done with) (?:the |our |a )?(?:[\w.+-]+ )?(?:upgrade|migration|cutover|switch)\b"
)
# "Big change at work -", "News:", "Update on the flat -": what leads in the news.
_NEWS_HEADING = re.compile(
    r"^(?:(?:big|small|quick|some|an?|little|huge)\s+)?(?:change|changes|news|update|updates)"
    r"(?:\s+(?:at|on|from|about)\s+[\w' ]{1,30}?)?\s*[-:\u2013\u2014]\s+",
    re.IGNORECASE,
)
# The last word of a title given or held ("team lead", "head of design", "Band 6 sister"): ranks
# no other sense shares when they follow "made me" or "as".
_RANKS = (
    r"(?:lead|head|manager|director|supervisor|chef|captain|partner|principal|engineer|editor|officer|"
    r"coordinator|chair|president|vp|associate|consultant|analyst|architect|foreman|sergeant|skipper|sister|"
    r"specialist|owner|nurse|teacher|lecturer|professor|prof|developer|designer|scientist|researcher|accountant)"
)
# "they made me team lead for the SME pod", "my boss just made me shift supervisor".
_GIVEN_TO_ME = re.compile(
    r"(?:^|(?<=, )|(?<=; )|(?<=\band ))(?:they|he|she|management|my (?:boss|manager|chef|director)|"
    r"the (?:boss|company|firm))\s+"
    r"(?:just |finally |officially )?(?:made|gave|handed|promoted|bumped|moved) me (?:up )?(?:to )?"
    r"(?:the |a |an )?(?P<title>[\w -]*?\b" + _RANKS + r")"
    r"(?=$|[,.;!]| (?:for|at|of|on|in|last|this|yesterday|today|when|after)\b)",
    re.IGNORECASE,
)


# A title: capitalised words ("Staff Engineer", "Associate Partner") or a known rank's last word.
_TITLE = (
    r"(?P<title>(?-i:[A-Z][\w-]*(?: (?:of |and )?[A-Z][\w-]*){0,4})|"
    r"(?:[a-z-]+ ){0,3}" + _RANKS + r"(?: of [a-z]+(?: [a-z]+)?)?)"
)
# a first day still to come is no title held
_NOT_YET = r"(?!.*\b(?:tomorrow|next|starts?|starting|will|'ll|going to|gonna|soon)\b)"
# "first month as Staff Engineer and ...", "my first week as head of design,"
_FIRST_PERIOD_AS = re.compile(
    r"^"
    + _NOT_YET
    + r"(?:(?:it's |its )?(?:my )?)first (?:day|week|month|fortnight|year|shift|term|quarter) as (?:a |an |the )?"
    + _TITLE
    # "first week as charge nurse done": the period over, said after the title
    + r"(?: (?:done|over|complete|completed|finished|survived)\b)?"
    + r"(?=$|[,.;!]| and\b| at\b| in\b| for\b)",
    re.IGNORECASE,
)
# "Since making Associate Partner in November I've got ...": the title reached, then the rest
_SINCE_REACHING = re.compile(
    r"^since (?:making|becoming|being (?:made|promoted to)|getting promoted to|my promotion to) (?:a |an |the )?"
    + _TITLE
    + r"(?P<when> (?:in|on|last|this) \w+)?,?\s+(?=\w)",
    re.IGNORECASE,
)
# "Aoife's first week at Greenfield Educate Together went grand": Aoife started there
_FIRST_PERIOD_AT = re.compile(
    r"^" + _NOT_YET + r"(?:(?P<who>(?:my |our )?[A-Z][\w-]+)'s |(?:(?:it's |its )?my )?)"
    r"(?-i:first) (?:day|week|month|term|year|semester) at "
    r"(?P<place>[A-Z][\w'&-]*(?: [A-Z][\w'&-]*)*)"
    # how it went is said of the week, not of the place
    r"(?: (?:went|was|has been|is going|seems|done|over|behind me)\b[^,.;!]*)?(?=[,.;!]|$)",
)


_WEEKS_IN_AT = re.compile(
    r"^(?i:(?:so|and|well|ok|okay)[, ]+)?(?i:two|three|four|five|six|seven|eight|nine|ten|a few|\d+) "
    r"(?i:weeks|months) in at (?P<place>[A-Z][\w'&-]*(?: [A-Z][\w'&-]*)*)"
)


def _article(title: str) -> str:
    if re.match(r"[A-Z]{2,4}\b", title):  # an acronym is read letter by letter: "an ER nurse", "a QA lead"
        return "an" if title[0] in "AEFHILMNORSX" else "a"
    return "an" if title[:1].lower() in "aeiou" else "a"


def _lowered_start(words: str) -> str:
    """ "Software engineer": capitalised as a sentence's start; an acronym keeps its case."""
    return words if re.match(r"[A-Z]{2,4}\b", words) else words[0].lower() + words[1:]


# What is moved that says nothing of what it is for without who moved it ("my slot", "my shift")
_GENERIC_SLOTS = frozenset(
    "slot slots shift shifts session sessions spot time day days hours schedule".split()
)
# Who moves a thing of the user's and is no place or organisation it belongs to
_PEOPLE = frozenset(
    "they he she boss manager landlord landlady coach teacher trainer dentist doctor gp wife husband "
    "partner mum mom dad sister brother supervisor company work".split()
)
# "Landlord raised my rent to $1,600": the change is the user's rent's.
_DONE_TO_MINE = re.compile(
    r"^(?!(?:I|we|We)\b)(?:the |my |our )?(?P<agent>[\w'-]+(?: [\w'-]+)?) (raised|lowered|increased|cut|moved|changed|bumped|"
    r"pushed|switched|cancel(?:l)?ed|upgraded|downgraded|rescheduled|reduced|doubled|hiked|dropped) "
    r"(?:(?:my|our) |the (?=(?:\w+ )?(?:rent|lease|standup|stand-up|retro|meeting|sync|class|lesson|practice|"
    r"appointment|shift|salary|pay|rate|fee|price|premium|membership|subscription|plan|bill|budget|"
    r"deadline|launch|release|mortgage|insurance|tuition|allowance|bonus|headcount)\b)|"
    # "landlord bumped rent to 1600": a sum that is only ever someone's, said bare
    r"(?=(?:" + _USERS_OWN_SUMS + r") (?:to|from|up|by)\b))"
    r"([\w'-]+(?: [\w'-]+)?) ((?:to|from|up|down|back|by)\b.*)$",
    re.IGNORECASE,
)
# "Standup got moved to 10am": a thing of the user's world, and what changed about it.
_THING_CHANGED = re.compile(
    r"^(?:the |my |our )?((?:[a-z][\w-]* ){0,2}(?:standup|stand-up|retro|"
    r"1:1|one-on-one|meeting|sync|lesson|class|practice|appointment|shift|rent|lease|salary|pay|"
    r"paycheck|commute|gym|membership|subscription|plan|bill|flight|deadline|launch|release|"
    r"office|team|budget|mortgage|insurance|premium|bus|train|pickup|delivery|school run|"
    r"allowance|rate|fee|price|tuition|contract|trial|renewal|headcount|revenue|arr|mrr|user count|"
    r"customer count|team size|hourly rate|day rate|commission|bonus|savings|yoga|pilates|lessons?|"
    r"club|book club|choir|rehearsal|training|therapy|session|prod|production|staging|backend|"
    r"frontend|app|website|site|server|cluster|database|bedtime|dropoff|drop-off|swim|"
    r"date night|dinner|check-in|check-ins|on-call|shifts|classes|meetings|sprints?|deploys?))\s+"
    r"((?:got |was |has been |is being |just |officially |now )*(?:moved|changed|switched|"
    r"rescheduled|pushed|bumped|raised|lowered|increased|cut|reduced|went up|went down|dropped|"
    r"shifted|cancel(?:l)?ed|extended|renewed|upgraded|downgraded|is now|are now|now|starts|"
    r"begins|is on|is at|is in|are on|are at|runs on|runs|meets|moves|"
    r"(?:is|are|was) (?=[$€£\d]|now\b|(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    r"up to|down to|at \d))(?:\b|(?<=\s)).*)$",
    re.IGNORECASE,
)


_OF_US = re.compile(
    r"^(?:there(?:'s| are| is)|it's|we're|we are)\s+(?:now\s+|currently\s+)?(?:a (?:team|group) of\s+)?"
    # "it's 2-2-3 now" is a schedule, "it's 7:30" a time: no count of anyone
    r"(\d[\d,]*|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b(?: of us\b|(?!\s+\w|[\d,:./x-]))(.*)$",
    re.IGNORECASE,
)
# "Spotify is 14 euros a month for me now": the user's Spotify.
_FOR_ME = re.compile(
    r"^([A-Z][\w.+-]*(?: [A-Z][\w.+-]*)?) (is|costs|runs|comes to|went up to|is now) (.+?) (?:for|to) (?:me|us)\b(.*)$"
    r"|^([A-Z][\w.+-]*(?: [A-Z][\w.+-]*)?) (costs|charges) (?:me|us) (.+?)()$"
)
# "now I live in Porto": the "now" goes last, so the statement starts with its subject.
_NOW_FIRST = re.compile(
    r"^(now|these days|nowadays|currently|today|since then|since " + _MONTH + r"|"
    r"since last \w+),?\s+(?=(?:I|we|my|our|the)\b)",
    re.IGNORECASE,
)


def _third_person_verb(word: str) -> str:
    lower = word.lower()
    if lower in _MODALS or lower in _IRREGULAR_PAST or (lower.endswith("ed") and lower not in _BASE_ED):
        return word
    if lower in _IRREGULAR_PRESENT:
        return _IRREGULAR_PRESENT[lower]
    if lower.endswith("n't"):  # don't -> doesn't, haven't -> hasn't
        base = lower[:-3]
        return {"do": "doesn't", "have": "hasn't", "am": "isn't", "are": "isn't", "were": "wasn't"}.get(
            base, word
        )
    if not lower.isalpha():
        return word
    if re.search(r"(?:s|sh|ch|x|z|o)$", lower):
        return word + "es"
    if re.search(r"[^aeiou]y$", lower):
        return word[:-1] + "ies"
    return word + "s"


# The verbs a sentence gives one speaker two of ("lives in Toronto and works at a bank": two
# facts of one subject), in their base form; the third person's forms are made from them.
_ONE_SPEAKERS_VERBS = (
    "work live use drive play own speak teach study run love like hate prefer take write read make "
    "manage lead coach volunteer attend rent pay earn walk ride cook eat drink keep wear watch listen "
    "belong report commute travel visit stay edit shoot train sell host bike cycle swim sleep"
).split()


_SECOND_VERB = re.compile(
    r"\s+(?:and|but)\s+(?:she\s+|he\s+|they\s+)?(?:also\s+|now\s+|still\s+)?(?=(?:"
    + "|".join(sorted({_third_person_verb(verb) for verb in _ONE_SPEAKERS_VERBS} - set(_ONE_SPEAKERS_VERBS)))
    # ("read" is its own past too, which _third_person_verb leaves as it is)
    + r"|reads|has|is|goes|does|needs|wants|owes|moved|started|bought|sold|joined|left|quit|got|switched|"
    r"adopted|became)\b)"
)


# "User is 34 and live in Leeds": the second of two verbs of one speaker, said in the first
# person's form ("I'm 34 and live in Leeds"); not after an infinitive ("likes to cook and read").
_SECOND_VERB_AS_SAID = re.compile(
    r"(?P<join>\s+(?:and|but)\s+(?:also\s+|now\s+|still\s+)?)(?P<verb>"
    + "|".join(_ONE_SPEAKERS_VERBS)
    + r")(?=\s+(?:at|in|on|for|from|as|with|a|an|the|my|their|our|\w+)\b)"
)


def _second_verb_in_the_third_person(found: re.Match[str]) -> str:
    if re.search(r"\bto \w+$", found.string[: found.start()]):
        return found.group(0)  # "likes to cook and read": one infinitive's second verb
    return found.group("join") + _third_person_verb(found.group("verb"))


def _split_subject(fact: str) -> list[str]:
    """ "User's sister lives in Toronto and works at a bank" -> two facts about her."""
    found = re.match(r"^(User's \w+|User and their \w+|User)\s+", fact)
    if not found:
        return [fact]
    first_verb = fact[found.end() :].split(" ", 1)[0]
    if not found.group(1).startswith("User and") and (
        first_verb in ("is", "has", "was") or re.fullmatch(r"[a-z]+[^s]s", first_verb)
    ):
        # one speaker's verbs, the first in the third person: so is the second
        fact = _SECOND_VERB_AS_SAID.sub(_second_verb_in_the_third_person, fact)
    parts = _SECOND_VERB.split(fact)
    if len(parts) == 1 and not re.search(r"\s+and\s+(?:the\s+)?[a-z]+ (?:is|are|was|were) ", fact):
        return [fact]
    subject = found.group(1)
    out = [parts[0]]
    own = re.split(r"\s+and\s+(?:the\s+)?(?=(?:[a-z]+) (?:is|are|was|were) )", parts[0], maxsplit=1)
    # not a pronoun: "told their boss and he was fine with it" is not "User's he ..."
    not_owned = ("it", "that", "this", "there", "everything", "everyone", "he", "she", "they", "we", "you")
    if len(own) == 2 and own[1].split()[0] not in not_owned:
        out = [own[0], f"User's {own[1]}"]
    for part in parts[1:]:
        part = _moved_into_the_place_named(out[-1], part)
        if len(part.split()) >= 2:
            out.append(f"{subject} {part}")
        else:
            out[-1] = f"{out[-1]} and {part}"
    return out


# "bought a place in Quorn and moved in 2 weeks ago": moved in, without where or with whom, is
# into the home just named, whose place the second fact keeps ("moved to Quorn 2 weeks ago")
_HOME_GOT_IN = re.compile(
    r"\b(?:bought|closed on|got the keys (?:to|for)|got|rented|found)\s+(?:a|an|our|my|their|the)\s+"
    r"(?:new\s+|first\s+|own\s+)?(?:place|" + HOMES + r")\s+in\s+"
    r"(?P<place>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)$"
)
_MOVED_IN_BARE = re.compile("^" + MOVED_IN_BARE)


def _moved_into_the_place_named(before: str, part: str) -> str:
    home = _HOME_GOT_IN.search(before)
    if home is None or not _MOVED_IN_BARE.match(part):
        return part
    return f"moved to {home.group('place')}{part[len('moved in') :]}"


_SUBJECTLESS_PRESENT = re.compile(
    r"^(?:(?:still|now|also|currently|mostly|usually)\s+)?(?:(?:work|live|love|hate|prefer|drive|own|rent|"
    r"manage|lead|" + _HABITS + r")\s+(?!(?:is|are|was|were)\b|\w*thing\b)"
    # "run 4x/week", "work 3 days a week": a count of times
    r"(?=(?:at|in|for|from|as|on|with|a|an|the|my|our|remote|remotely|\w+ing)\b|(?-i:[A-Z])|\d)|"
    # a habit said by where or when: "sleep during the day", "swim at the lido", "cycle to work"
    r"(?:" + _HABITS_BY_WHERE_OR_WHEN + r")\s+(?=(?:at|in|for|on|with|during|to|every)\b|\d))"
    # "run the numbers for me please": a request
    r"(?![^.!?]*\b(?:for me|for us|please|pls|plz)\b)",
    re.IGNORECASE,
)
# Family without "my": "dad finally retired", "mom's moving to Florida".
_KIN_FIRST = re.compile(
    r"^(mom|mum|dad|hubby|husband|wife|girlfriend|boyfriend|fiancée?|sis|bro|grandma|grandpa|nan|gran|"
    r"the kids|the wife|the husband|"
    r"the boss|boss|the team|team|the company|company|the startup|the office)\b",
    re.IGNORECASE,
)
# "'s" before what only follows "is": "my husband's a chef", "my son's 6", "standup's at 9:15".
_IS_CONTRACTED = re.compile(
    r"\b(\w+)'s (?=(?:a|an|the|in|at|on|from|with|not|still|now|really|very|so|also|always|never|only|"
    r"just|about|over|up|down|into|like|going|getting|moving|working|living|doing|starting|leaving|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b|\d|[$€£])"
)
_NOT_A_NOUN = frozenset("it that what there here he she let who where how".split())
_AT_A_NAME = re.compile(r"\b(?:at|to|from|near|in)\s+(?:St\.?\s+|Saint\s+)?[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?$")


def _place_named_for(match: re.Match[str]) -> bool:
    """ "he's at St Anne's now": a place named for someone, whose "'s" is not "is"."""
    return bool(match.group(1)[:1].isupper() and _AT_A_NAME.search(match.string[: match.end(1)]))


# "'s" before a past participle is "has": "the team's grown to 9".
_HAS_PARTICIPLE = re.compile(
    r"\b(\w+)'s (?=(?:grown|gone|been|got|gotten|become|moved|changed|switched|started|doubled|"
    r"tripled|shrunk|dropped|finished|left|hired|raised|upgraded|decided)\b)"
)
# Incidents of the day, not facts to keep: "my laptop died twice", "landlord fixed the heating".
# Not a rate or a term that is fixed ("the loan is fixed for 10 years at 4.1%").
_INCIDENT = re.compile(
    r"^User's (?!team|company)[\w' -]{1,40}? (?:finally |just |also )?(?:died|broke|broke down|crashed|"
    r"fixed(?! (?:for|at|until|till|rate|term)\b)|leaked|flooded|froze|stopped working|was late|ran late|"
    r"got delayed|was delayed|"
    r"thinks|says|said|told them|keeps|is driving them|drives them)\b"
)
# "User's dog Biscuit", "User's dog named Bruno": the user has a dog of that name.
_PET_NAMED = re.compile(
    r"^User's (dog|cat|puppy|kitten|rabbit|hamster|parrot|horse|bird|fish|tortoise|turtle) "
    r"(?:(?:is )?(?:named|called) )?([A-Z][\w-]*)$"
)


_HOME = re.compile(
    r"\b(?:mov(?:e|ed|ing)|live|living|lived|house|home|apartment|flat|adopt\w*|baby|babies|kids|"
    r"married|wedding|honeymoon|vacation|holiday|trip|dog|cat|puppy|kitten|closed on|mortgage|"
    r"rent(?:ed|ing)?|bought a|neighbou?rhood|garden|car|unpack\w*|"
    # a home's keys handed over: "we got the keys last week" (not a tool's "the API keys")
    r"(?:got|get|picked up|collected|have) (?:the|our) keys)\b",
    re.IGNORECASE,
)


# "We moved to Portland": where the move goes decides whose it is (a place: the user's home).
_MOVED_TO = re.compile(r"\b(?:moved|moving|relocat\w*)\s+(?:back\s+)?to\s+((?:[A-Z][\w'-]*\s*){1,3})")


def _moves_to_a_place(clause: str) -> bool:
    from aurra_core.text_analysis.kinds import kinds_of

    found = _MOVED_TO.search(clause)
    return found is not None and kinds_of(found.group(1)) <= {"place"} and bool(kinds_of(found.group(1)))


# "we" beside the user's family is the household, whatever else the message is about, unless
# the clause names the work itself
_WORK_NAMED = re.compile(
    r"\b(?:team|company|startup|office|engineers?|developers?|employees|staff|sprints?|standups?|"
    r"clients?|customers?|colleagues?)\b",
    re.IGNORECASE,
)
# The user's relatives by the pronoun that stands for them ("my sister, she lives in Graz")
_SHE = frozenset(
    """sister mother mom mum wife girlfriend daughter aunt niece grandma grandmother fiancee
    stepmother stepdaughter""".split()
)
_HE = frozenset(
    "brother father dad husband boyfriend son uncle nephew grandpa grandfather fiance stepfather stepson".split()
)
_FAMILY = re.compile(
    rf"\b(?:{'|'.join(sorted(_SHE | _HE))}|kids?|children|baby|partner|parents|family|grandkids|grandchildren|"
    r"the (?:girls|boys|twins))\b",
    re.IGNORECASE,
)


# A self-description said without its "I'm", where a sentence about the user gives it: "I'm 29,
# software tester in Pune", "just off shift (sous chef at a bistro in Mile End)", "quick
# background: large-animal vet in Galway, married to Colm, allergic to penicillin". A job's
# title, with where it is held, or a state said of a person; what stands before it names nobody
# else ("my sister, a nurse in Leeds" is hers).
# Words no job title is qualified by: the words of a clause, not of a title ("we hired a designer")
_NOT_A_QUALIFIER = (
    r"(?i:i|me|we|us|you|he|she|it|they|them|is|was|are|were|be|been|has|have|had|do|did|said|says|"
    r"got|gets|get|the|my|our|his|her|their|your|its|this|that|and|or|but|so|to|of|for|with|at|in|on|"
    r"need|needs|want|wants|hire|hired|hiring|met|meet|call|called|ask|asked|tell|told|like|love|hate|"
    r"made|make|making|became|become|took|went|left|joined|started|quit|as|from|by|now|new|still|"
    # a greeting or a word of address: "Dear assistant", "hey assistant"
    r"dear|hi|hey|hello|ok|okay|thanks|thank|well|oh|um|yes|no|btw|"
    r"(?!(?:registered|qualified|certified|licensed|chartered|trained|experienced)\b)[a-z-]+ed)\b"
)
_ROLE_HEADS = "|".join(sorted(ROLE_NOUNS | {"driver"}, key=len, reverse=True))
_DESCRIPTION = re.compile(
    r"(?P<lead>^|[,:;]\s+|\s*\(\s*)"
    r"(?P<what>(?:(?:an?)\s+)?(?:(?!"
    + _NOT_A_QUALIFIER
    + r")(?:[A-Za-z][a-z-]*|[a-z][\w-]*|[A-Z]{2,4})\s+){0,3}?(?:"
    + _ROLE_HEADS
    + r")(?=\s+(?:at|in|for|with|on)\s|\s*(?:[,;)]|$))"
    r"|(?:married|engaged) to (?=[A-Z])|originally from (?=[A-Z])|allergic to (?=\w))"
)
_DESCRIBED_TAIL = re.compile(r"[^,;()]*")
# "wedding photographer here (Cape Town).": an aside right after "here" says more of who it is
_INTRODUCED_HERE = re.compile(
    r"^(?P<who>[\w' -]{2,80}?)\s+here(?:\s*\((?P<aside>[^()]{1,60})\))?"
    r"\s*(?:[.!]*\s*$|[,:;-]\s*(?P<rest>\S.*)$)"
)
_AGE_BEFORE_A_TITLE = re.compile(
    r"^(?P<age>[1-9]\d)(?:\s?(?:yo|y/o|yrs? old|years? old))?\s*,\s+(?P<rest>\S.*)$", re.IGNORECASE
)
_STILL_A_TITLE = re.compile(r"^(still|now|currently)\s+(?=[a-z])", re.IGNORECASE)
_NOT_A_PLACE_WORD = re.compile(
    r"\b(?:is|was|are|were|has|have|had|said|says|told|thinks|will|would|can|could|he|she|they|you|I|we)\b"
)


# How many of the household's animals or children there are, said as what there is: "also fyi
# there are three cats now" is the user's three cats (not "there are 40 people on the list")
_THERE_ARE_OURS = re.compile(
    r"(?P<lead>^|[,;:]\s+|\b(?:and|so|also|fyi|btw|now)\s+)there(?:'s| is| are|'re) (?:now )?"
    r"(?P<n>\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) "
    r"(?P<what>cats|dogs|kittens|puppies|hens|chickens|ducks|rabbits|guinea pigs|horses|goats|hives|colonies|"
    r"kids|children)\b(?= now\b| in the house\b| at home\b)",
    re.IGNORECASE,
)


def _as_a_title(words: str) -> str | None:
    """ "solo dev", "junior dev at klarna": a job's title said whole, with the article it takes
    ("a solo dev"); None when the words are no title or say something of someone."""
    if not words or not _DESCRIPTION.match(words) or _NOT_A_PLACE_WORD.search(words):
        return None
    article = "" if re.match(r"(?i)an?\s", words) else _article(words) + " "
    return article + _lowered_start(words)


# What a list of the user's own ("I'm 41, vegetarian, two cats") names after its first item,
# said without its verb: a state they are in, or the children or animals they have
_LISTED_STATE = re.compile(
    r"(?i)(?:type [12] )?(?:diabetic|coeliac|celiac|vegan|vegetarian|pescatarian|asthmatic|married|single|"
    r"divorced|widowed|engaged|retired|left-handed)"
)
_LISTED_HOUSEHOLD = re.compile(
    r"(?i)(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a|an) (?:grown |young |little |teenage |"
    r"adult |small )?(?:kids?|children|child|sons?|daughters?|boys?|girls?|cats?|dogs?|grandkids|"
    r"grandchildren|stepkids)(?: and (?:a|an|one|two|three|four) (?:cats?|dogs?|kids?|sons?|daughters?))?"
)
_LIST_ITEMS = re.compile(r"\s*((?:[^,;(]|\([^)]*\))+)")


# Whom a list is about, by its first item: the user ("I'm 41"), a relative ("my dad is 72", "my
# dad's 72") or whom "he" or "she" stands for ("He's 72")
_LIST_SUBJECT = re.compile(r"^(?:(?P<me>I'm)|(?P<who>[Mm]y \w+|[Hh]e|[Ss]he)(?:'s| is)) ")
_THEIR_NEXT_VERB = re.compile(r"^and (?=(?:also |still |now )?[a-z]+s\b)")


def _list_with_its_verbs(statement: str) -> str:
    """ "I'm 41, vegetarian, two cats and a dog" -> "I'm 41, I'm vegetarian, I have two cats and a
    dog": the list's items said as its subject's own, each with the verb it leaves out; "my dad
    is 72, retired, and lives alone" -> "..., my dad is retired, and my dad lives alone"."""
    items = [m.group(1).strip() for m in _LIST_ITEMS.finditer(statement) if m.group(1).strip()]
    subject = _LIST_SUBJECT.match(items[0]) if len(items) >= 2 else None
    if subject is None:
        return statement
    who = subject.group("who")
    be, have = ("I'm", "I have") if subject.group("me") else (f"{who} is", f"{who} has")
    out, said = [items[0]], False
    for item in items[1:]:
        bare = re.sub(r"\s*\([^)]*\)$", "", item).rstrip(".!")
        if _LISTED_STATE.fullmatch(bare):
            item, said = f"{be} {item}", True
        elif _LISTED_HOUSEHOLD.fullmatch(bare):
            item, said = f"{have} {item}", True
        elif who and said and _THEIR_NEXT_VERB.match(item):
            item = f"and {who} {item[4:]}"  # "..., and lives alone": the list's subject's too
        out.append(item)
    return ", ".join(out) if said else statement


def _descriptions_as_statements(sentence: str) -> str:
    """The sentence with each self-description it gives as a fragment said as the user's own
    ("I'm a software tester in Pune"), and the list it opens ("..., vegetarian, two kids"), for
    the clauses to read; the sentence as it is else."""
    return _list_with_its_verbs(_self_descriptions(sentence))


def _self_descriptions(sentence: str) -> str:
    # "52, high school chemistry teacher in Dayton": an age said bare before the title it opens
    aged = _AGE_BEFORE_A_TITLE.match(sentence)
    if aged:
        rest = aged.group("rest")
        title = re.split(r"[,;(]", rest, maxsplit=1)[0].strip()
        said_as = _as_a_title(title)
        if said_as:
            described = _self_descriptions(rest)  # its list is read with the whole sentence's
            if described == rest:  # the title alone: "31 yo, mechanical engineer"
                described = f"I'm {said_as}{rest[len(title) :]}"
            return f"I'm {aged.group('age')}, {described}"
    # "solo dev here.", "architect at a small practice in Wellington here": who is writing
    introduced = _INTRODUCED_HERE.match(sentence)
    said_as = _as_a_title(introduced.group("who")) if introduced and not introduced.group("rest") else None
    if introduced and said_as:
        return f"I'm {said_as}" + (f" ({introduced.group('aside')})" if introduced.group("aside") else "")
    # "still junior dev at klarna": the title held, its "I'm" left out
    kept_as = _STILL_A_TITLE.match(sentence)
    said_as = _as_a_title(sentence[kept_as.end() :]) if kept_as else None
    if kept_as and said_as:
        return f"I'm {kept_as.group(1).lower()} {said_as}"
    out, last = [], 0
    for match in _DESCRIPTION.finditer(sentence):
        before = sentence[: match.start()]
        if _SOMEONE_ELSE_SAID.search(before) or _FAMILY.search(before) or re.search(r"\w's\b", before):
            break  # from here on, who is described is not sure
        if _CHANGE_WITHOUT_VALUE.search(before.rstrip(" ,;:(")):
            continue  # "I switched jobs, data engineer at Monzo": the change's value, kept with it
        if match.start() == 0 and not _FIRST_PERSON_WORDS.search(sentence) and "," not in sentence:
            continue  # "Nurse at the desk was lovely": a sentence of its own, not a description
        # a name right before it, not a place's ("in Galway, married to Colm")
        named = re.search(r"(?:^|(?P<word>\w+)\s)(?!I\b)[A-Z][\w'-]*$", before.rstrip(",:;( "))
        if (
            named
            and (named.group("word") or "").lower() not in ("in", "at", "to", "from", "of", "near", "on")
            and ("(" in match.group("lead") or named.start() > 0)
        ):
            continue  # "Lasse (head chef) is particular": a description of whom it follows
        tail = _DESCRIBED_TAIL.match(sentence, match.end())
        if tail is not None and _NOT_A_PLACE_WORD.search(tail.group(0)):
            continue  # "a nurse at the clinic said it's fine": a statement about someone
        what = _lowered_start(match.group("what"))  # "Software engineer at Stripe"
        title = not re.match(r"(?:married|engaged|originally|allergic)\b", what)
        article = "" if not title or re.match(r"an?\s", what) else _article(what) + " "
        lead = match.group("lead")
        opened = "(" in lead
        out.append(sentence[last : match.start()])
        out.append(("" if match.start() == 0 else ", ") + "I'm " + article + what)
        last = match.end()
        if opened:
            close = sentence.find(")", last)
            if close != -1:
                out.append(sentence[last:close])
                last = close + 1
    if not out:
        return sentence
    out.append(sentence[last:])
    return "".join(out)


def _about_work(clause: str, work_context: bool) -> bool:
    if _moves_to_a_place(clause) or (_FAMILY.search(clause) and not _WORK_NAMED.search(clause)):
        return False
    if _HOME.search(clause) and not re.search(
        r"\b(?:moved|moving|migrat\w*) (?:\w+ ){0,3}?(?:over )?to\b(?! (?:a |the )?(?:new )?(?:house|home|apartment|flat))"
        r"|\b(?:moved|moving|migrat\w*) off\b",  # "we moved off Asana": a tool left, not a home
        clause,
    ):
        return False
    # what the clause says before a comma: "we're going to Denver instead, her company has an
    # office there" is a move of the household's
    return bool(_WORK.search(clause.split(",")[0])) or work_context


# Verbs that end in "ly" like an adverb of manner does
_LY_VERBS = frozenset("apply reply supply comply multiply rely ally bully fly sully tally rally".split())


def _is_adverb(word: str) -> bool:
    """ "really", "genuinely", "seriously": said before the verb, not the verb."""
    return word in _ADVERBS or (word.endswith("ly") and len(word) > 4 and word not in _LY_VERBS)


def _subject_and_verb(tokens: list[str], subject: str) -> tuple[list[str], list[str]]:
    """`subject` in place of "I" or "we", and the first verb after any adverbs in the third person."""
    out = [subject]
    rest = list(tokens)
    while rest and (
        _is_adverb(rest[0].lower().strip(",")) or [w.lower() for w in rest[:2]] == ["no", "longer"]
    ):
        out.append(rest.pop(0))
        if out[-1].lower() == "no" and rest:
            out.append(rest.pop(0))
    if rest:
        out.append(_third_person_verb(rest.pop(0)))
    return out, rest


# The group a conversation says the user is one of: "our startup", "we're a four-piece indie
# band", "I work at a small architecture practice", "I play in a band"
# Groups "we" may be, named as the user's memories name them ("User's band ...")
_GROUP_NOUNS = frozenset(
    "company startup org organization organisation firm agency lab department school band choir orchestra "
    "practice studio team".split()
)
# Groups whose "we" is theirs whatever the message speaks of: a band rehearses, a choir sings
_COLLECTIVES = frozenset({"band", "choir", "orchestra"})
_GROUP_NAMED = re.compile(
    r"\b(?:[Oo]ur|[Ww]e(?:'re| are) (?:an?|the)|I(?:'m| am) in (?:an?|the)|I (?:play|sing) in (?:an?|the)|"
    r"I work (?:at|for|in) (?:an?|the))\s+(?:[\w'-]+\s+){0,3}?"
    r"(?P<noun>" + "|".join(sorted(_GROUP_NOUNS)) + r")\b"
)


def _counts_us(tokens: list[str]) -> bool:
    """ "we're 12 now", "we are twelve", "we are with 5": how many the group is, wherever it is said (as the
    user's own, "User is 12 now" would be an age)."""
    words = [t.lower() for t in tokens[:4]]
    if words[1:2] == ["with"] or words[2:3] == ["with"]:  # "we are with 5" (a calque of "we are five")
        words.remove("with")
    count = words[1:2] if words[:1] == ["we're"] else words[2:3] if words[:2] == ["we", "are"] else []
    return bool(count) and bool(_A_NUMBER.match(count[0]))


_WE_ARE_A_GROUP = re.compile(
    r"^(?:(?:so|and|but|now)\s+)?[Ww]e(?:'re| are)\s+(?:now\s+)?"
    r"(?P<what>an? (?:\w+-piece|(?:[\w-]+ ){0,2}(?P<named>band|duo|trio|quartet|choir))\b.*)$"
)


def _rewrite(clause: str, group: str = "team", work_context: bool = False) -> str | None:
    """A first-person clause in the third person, or None when it is not one. "We" is the
    user's `group` when the clause (or, `work_context`, its message) is about work."""
    text = clause.strip().strip(" ,-—").rstrip(".!;: ")
    text = _PLEASANTRY.sub("", text).strip()
    text = re.sub(r"^my\b", "My", text)
    text = re.sub(r"^our\b", "Our", text)
    inverted = _IS_MINE.match(text)
    if inverted:  # "vim is my editor": the user's editor is Vim
        text = (
            f"{inverted.group('whose').capitalize()} {inverted.group('what')} is {inverted.group('value')}"
            f"{inverted.group('rest') or ''}"
        )
    # "we've both gone vegetarian": the two of them, not a second thing
    text = re.sub(r"^((?:[Ww]e|[Ww]e've|[Ww]e're|[Ww]e'll))\s+both\b", r"\1", text)
    # "we're a four-piece indie band", "so we're a five-piece!": the user's band is one
    text = _WE_ARE_A_GROUP.sub(
        lambda m: f"Our {'choir' if m.group('named') == 'choir' else 'band'} is {m.group('what')}", text
    )
    now = _NOW_FIRST.match(text)
    if now:
        # before a comma, where the statement it dates ends ("the training is 4pm now, same days")
        statement, comma, after = text[now.end() :].partition(",")
        when = now.group(1)[:1].lower() + now.group(1)[1:]  # "Since June": the month keeps its capital
        text = f"{statement} {when}{comma}{after}"
    if not text or _NOT_A_FACT.match(text):
        return None
    if re.match(
        r"^(?:(?:just|also|now)\s+)?been\s+(?!there\b|here\b|through\b|told\b|a while\b|ages\b|forever\b|so long\b)\w",
        text,
        re.IGNORECASE,
    ):
        text = "I've " + text  # "been vegan for 4 years", "been learning Rust since June"
    if _SUBJECTLESS_PAST.match(text) and not _FIRST_PERSON.match(text):
        text = "I " + text[:1].lower() + text[1:]
    elif _SUBJECTLESS_ING.match(text) and not _FIRST_PERSON.match(text) and not _GERUND_SUBJECT.match(text):
        text = "I'm " + text[:1].lower() + text[1:]
    if _SUBJECTLESS_PRESENT.match(text) and not _FIRST_PERSON.match(text):
        text = "I " + text[:1].lower() + text[1:]
    kin = _KIN_FIRST.match(text)
    if kin and not _FIRST_PERSON.match(text):
        noun = re.sub(r"^the ", "", kin.group(1).lower())
        noun = {
            "mum": "mom",
            "hubby": "husband",
            "sis": "sister",
            "bro": "brother",
            "nan": "grandma",
            "gran": "grandma",
        }.get(noun, noun)
        text = f"My {noun}{text[kin.end() :]}"
    done = _DONE_TO_MINE.match(text)
    if done:
        what = done.group(3)
        if (
            what.lower() in _GENERIC_SLOTS
            and done.group("agent").islower()
            and done.group("agent") not in _PEOPLE
        ):
            what = f"{done.group('agent')} {what}"  # "food bank moved my slot to sundays": the food bank slot
        text = f"My {what} was {done.group(2).lower()} {done.group(4)}"
    thing = _THING_CHANGED.match(text)
    if thing and not _FIRST_PERSON.match(text) and not _WE.match(text):
        text = f"My {thing.group(1).lower()} {thing.group(2)}"
    mine = _FOR_ME.match(text)
    if mine and not _FIRST_PERSON.match(text) and not _WE.match(text):
        name, verb, value, rest = mine.groups()[:4] if mine.group(1) else mine.groups()[4:]
        text = f"My {name} {verb} {value}{rest}".rstrip()
    # "There are 12 of us on the team now", "we're a team of 6": how many the user's group is
    many = _OF_US.match(text)
    if many:
        text = f"We're {many.group(1)} people{many.group(2)}"
    named = re.match(r"^I(?:'m| am) ([A-Z][a-z]+)$", text)
    if named and named.group(1).lower() not in _NOT_NAMES:
        text = f"My name is {named.group(1)}"
    if not _FIRST_PERSON.match(text) and not _WE.match(text):
        return None
    if _NOT_A_FACT.match(text):
        return None
    tokens = text.split()
    head = tokens[0]
    lower = head.lower()
    out: list[str]
    if text.startswith("User and their"):
        out, rest = tokens[:3], tokens[3:]
    elif head == "My" or lower == "our":
        out, rest = ["User's"], tokens[1:]
    elif head in ("I'm", "I've", "I'd", "I'll"):
        out = ["User", {"I'm": "is", "I've": "has", "I'd": "would", "I'll": "will"}[head]]
        rest = tokens[1:]
    elif lower in ("we're", "we've", "we'll", "we'd"):
        subject = f"User's {group}" if _counts_us(tokens) or _about_work(text, work_context) else "User"
        out = [subject, {"we're": "is", "we've": "has", "we'll": "will", "we'd": "would"}[lower]]
        rest = tokens[1:]
    elif lower == "we":
        out, rest = _subject_and_verb(
            tokens[1:], f"User's {group}" if _counts_us(tokens) or _about_work(text, work_context) else "User"
        )
    else:  # "I": the first verb after any adverbs takes the third person
        out, rest = _subject_and_verb(tokens[1:], "User")
    for token in rest:
        bare = token.lower().strip(",.;:!?\"'()")
        if bare in _OBJECT_PRONOUNS:
            replacement = _OBJECT_PRONOUNS[bare]
            token = token.replace(token.strip(",.;:!?\"'()"), replacement)
        out.append(token)
    fact = " ".join(out)
    # "User drives now a Tesla" (a translation's word order): the adverb before its verb
    fact = re.sub(
        r"^(User(?:'s \w+)?) ((?!(?:is|has|was|does)\b)\w+s) (now|still|also) (?=(?:a|an|the|their|[A-Z])\b|(?-i:[A-Z]))",
        r"\1 \3 \2 ",
        fact,
    )
    fact = _IF_IT_MATTERS.sub("", fact)
    fact = _own_statement(_NAME_NOT_NAME.sub(r"\1", _NOT_THAT.sub("", fact))).rstrip(" ,.!;:")
    if _INCIDENT.match(fact):
        return ""  # said, and never kept: not a statement to keep as said either
    pet = _PET_NAMED.match(fact)
    if pet:
        fact = f"User has a {pet.group(1)} named {pet.group(2)}"
    words = fact.split()
    if len(words) < 2 or (len(words) == 2 and words[1].lower() in _EMPTY_VERBS):
        return None  # "User is", "User agrees": nothing to keep
    if len(words) <= 5 and words[-1].lower() in ("that", "it", "this", "them", "those"):
        return None  # "User has been charging that": what it names is elsewhere
    return fact[:MAX_CONTENT_CHARS]


# A change of something: what was changed decides the topic, not the verb ("moved from Vim to
# Emacs" is about an editor, "switched from Berlin to Lisbon" about where the user lives).
_CHANGE_OF = re.compile(
    r"\b(?:mov(?:ed|es|ing)|switch(?:ed|es|ing)|relocat\w*|migrat\w*|went|changed|transferr\w*)\b",
    re.IGNORECASE,
)


def _changed_thing_topic(fact: str) -> str | None:
    """The topic of a change by the kinds of things it names (text_analysis/kinds.py): a place
    alone makes it a move (`location`); a tool, app or device and no place makes it
    `preferences` (`work` when the change is the team's or company's). None otherwise."""
    if not _CHANGE_OF.search(fact):
        return None
    if re.search(r"\b(?:switched|changed) (?:jobs|roles|careers|employers|companies)\b", fact, re.IGNORECASE):
        return "work"  # "switched jobs": of the job, whatever the verb
    from aurra_core.text_analysis.kinds import kinds_of

    named = kinds_of(fact)
    if not named:
        return None
    if named <= {"place", "home", "address", "timezone"}:
        return "location"
    if "place" not in named and named & _SWITCHABLE_KINDS:
        return "work" if re.match(_TOPICS[0][1], fact) else "preferences"
    return None


# Kinds of things someone uses one of, and changes for another (the classifier's tool kinds).
_SWITCHABLE_KINDS = frozenset(
    """accounting_software ai_assistant browser calendar cloud cloud_storage code_hosting crm
    database design_tool editor email fitness_app food_tracker framework maps messaging monitoring
    music_streaming notes office_docs operating_system package_manager password_manager phone
    search_engine shell test_framework tracker video_call vpn wearable computer car telecom
    bank programming_language dev_tooling social_media video_streaming news_source""".split()
)


def _topic(fact: str) -> str:
    sensitive = sensitive_topic(fact)
    if sensitive:
        return sensitive
    changed = _changed_thing_topic(fact)
    if changed is not None:
        return changed
    for topic, pattern in _TOPICS:
        if re.search(pattern, fact, re.IGNORECASE):
            return topic
    return "general"


def _inner_statement(clause: str) -> str | None:
    """The statement inside a clause that starts elsewhere: "the reason I'm writing is that I
    started a new job" -> "I started a new job"; "after all the drama I left Shopify" -> "I left
    Shopify". The last subject of the clause starts its main statement."""
    # not a subject of a clause about where, when or what ("greener than where I lived before")
    starts = [
        m.start() for m in _INNER_SUBJECT.finditer(clause) if not _RELATIVE_BEFORE.search(clause[: m.start()])
    ]
    if not starts or starts[-1] == 0:
        return None
    return clause[starts[-1] :]


_RELATIVE_BEFORE = re.compile(
    r"\b(?:where|when|what|which|who|whom|how|if|than|whether|wherever|whenever|whatever)\s+$", re.IGNORECASE
)


def _hedged_by_someone_else(clause: str) -> list[str]:
    """The parts of a clause that are a hedge about a third party ("he wants to play drums now"),
    when every hedged part of it is: not the user's mood, so they leave the rest a statement.
    A hypothetical, a question or a request is never someone else's. Empty when there is none."""
    parts = [p for p in re.split(r",\s*", clause.strip()) if p]
    hedged = [p for p in parts if _filtered(p)]
    if not hedged or len(hedged) == len(parts):
        return []
    # (a part starting "he", "she" or "they" is never a question's or a request's start)
    for part in hedged:
        if not (
            _THIRD_PERSON_START.match(part)
            and _HEDGE.search(part)
            and not _HYPOTHETICAL.search(part)
            and not part.endswith("?")
        ):
            return []
    return hedged


def _without(text: str, parts: list[str]) -> str:
    """`text` with `parts` taken out, and the commas they leave side by side made one."""
    for part in parts:
        text = text.replace(part, "")
    return re.sub(r"\s*,(?:\s*,)+", ",", text).strip(" ,;:")


# "moved it to neoforge so they could have create": what a change was for, not a hedge on it
_PURPOSE = re.compile(
    r",?\s+so(?: that)? (?:they|he|she|it|I|we|you|everyone) (?:could|can|would|might)\b.*$", re.IGNORECASE
)


# "gonna be swimming instead I guess": a plan, hedged
_GUESSED_PLAN = re.compile(
    r"\b(?:gonna|going to|will|'ll)\b.*\bI (?:guess|suppose)\b|\bI (?:guess|suppose)\b.*\b(?:gonna|going to|will|'ll)\b",
    re.IGNORECASE,
)


# A question asked without its mark: "where do I start", "should we wait", "can you redo it"
_ASKED = re.compile(
    r"^(?:(?:where|what|how|when|why|which|who)\s+)?(?:do|does|did|can|could|should|would|will|shall|am|is|are)\s+"
    r"(?:I|we|you)\b",
    re.IGNORECASE,
)


def _filtered(clause: str) -> bool:
    """A clause never kept: a hedge, a hypothetical or joke, a question or a request."""
    text = clause.strip()
    return bool(
        _HEDGE.search(_PURPOSE.sub("", text))
        or _GUESSED_PLAN.search(text)
        or _HYPOTHETICAL.search(text)
        or text.endswith("?")
        or _QUESTION_START.match(text)
        or _REQUEST.match(text)
    )


# ------------------------------------------------------------------------- corrections

_VALUE_KINDS = (
    ("time", r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\bnoon\b|\bmidnight\b|"
             r"\b(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s*o'clock\b"),
    ("day", r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\bweekends?\b"),
    ("date", r"\b\d{1,2}(?:st|nd|rd|th)\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)\w* \d{1,2}\b"),
    ("amount", r"[$€£]\s?\d[\d,]*(?:\.\d+)?\s?[kKmM]?\b|\b\d[\d,]*(?:\.\d+)?\s?(?:euros?|dollars?|pounds?|usd|eur|gbp|bucks)\b"),
    # "Python 3.12", not "is 4.1" or "it's 3.85"
    ("version", r"\b(?!(?:is|s|was|at|to|of|on|in|by|from|not|now|and|or|about|around|than|like)\b)"
                r"[A-Za-z][\w+#]*\s+v?\d+(?:\.\d+)+\b"),
    # "on 150 now, no wait, 100 milligrams": a number with its unit replaces the number
    ("percent", r"\b\d+(?:[.,]\d+)?\s?%"),
    ("number", r"\b\d+(?:\.\d+)?(?:\s?(?:mg|milligrams?|mcg|micrograms?|ml|units?|kg|kilos?|km|miles?)\b)?|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b"),
    # "St. Luke's", "Dr. Okafor": the abbreviation's full stop ends no sentence
    ("name", r"(?<!^)(?<![.!?]\s)\b(?:(?:St|Dr|Mt|Ft|Mr|Mrs|Ms)\.\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*"),
)  # fmt: skip
_VALUE_RES = [
    (kind, re.compile(pattern, re.IGNORECASE if kind != "name" else 0)) for kind, pattern in _VALUE_KINDS
]


def _values(text: str) -> dict[str, list[re.Match[str]]]:
    found: dict[str, list[re.Match[str]]] = {}
    taken: list[tuple[int, int]] = []
    for kind, pattern in _VALUE_RES:
        for match in pattern.finditer(text):
            if any(a < match.end() and match.start() < b for a, b in taken):
                continue
            if kind == "name" and match.group(0) in ("User", "User's", "I", "I'm", "It's", "It"):
                continue
            taken.append(match.span())
            found.setdefault(kind, []).append(match)
    return found


# The value a correction said after an aside gives: "(no wait, sorry, just looked at the box,)
# it's 850 mg", "(no, wait,) I look in the letter: it is 11 o'clock"
_VALUE_SAID = re.compile(
    r"(?:^|[:,;]\s*)((?:it'?s|it is|it was|that'?s|that is|they'?re|they are)\s+[^,;:]+?)[.!]*$",
    re.IGNORECASE,
)
# "it's 3.85% not 4.1": the value after "not" is the one taken back, not the correction
_TAKEN_BACK_VALUE = re.compile(r"\b(?:not|instead of|rather than)\s+(?:the\s+)?$", re.IGNORECASE)


def corrected(previous: str, correction: str) -> str | None:
    """The previous fact with the correction's values in place of its own of the same kind:
    "User's standup is on Tuesdays at 3pm" corrected by "it's Thursdays" gives "...on Thursdays
    at 3pm". None when the correction names no value the fact has."""
    new_values: dict[str, list[re.Match[str]]] = {}
    for kind, matches in _values(correction).items():
        kept = [m for m in matches if kind == "name" or not _TAKEN_BACK_VALUE.search(correction[: m.start()])]
        if kept:
            new_values[kind] = kept
    old_values = _values(previous)
    result = previous
    changed = False
    for kind, matches in new_values.items():
        olds = old_values.get(kind)
        if not olds:
            continue
        if kind != "name" and len(matches) == len(olds) > 1:
            # "Tuesdays and Fridays", corrected to "Tuesdays and Thursdays": value for value
            for target, match in zip(olds, matches, strict=True):
                if target.group(0).lower() != match.group(0).lower():
                    result = result.replace(target.group(0), match.group(0), 1)
                    changed = True
            continue
        replacement = matches[0].group(0)
        target = olds[-1] if kind == "name" else olds[0]
        if target.group(0).lower() == replacement.lower():
            continue
        result = result.replace(target.group(0), replacement, 1)
        changed = True
    return result if changed else None


def _taken_back(previous: str, correction: str) -> str | None:
    """ "it's amoxicillin, not penicillin" (or a lone "amoxicillin") after "User is allergic to
    penicillin": the word it names in place of the one taken back, or of the fact's last word."""
    said = re.sub(
        r"^(?:it's|it is|it was|that's|I meant|I mean|make that|rather|the)\s+",
        "",
        correction.strip(),
        flags=re.I,
    ).rstrip(" .!")
    # "it's tree nuts, not peanuts"; "it's tree nuts, peanuts are fine"
    pair = re.match(r"^(.+?),?\s+not\s+(?:the\s+)?(.+)$", said) or re.match(
        r"^([^,]+),\s+(?:the\s+)?([^,]+?)\s+(?:is|are|was|were)\s+(?:fine|ok|okay|no problem)\b", said, re.I
    )
    # "not St. Luke's anymore, Makati Med since June, old habit": the old one, then the new
    taken = re.match(r"^not\s+(?:at\s+|in\s+|the\s+)?(.+?)(?:\s+any\s?more)?,\s+([^,]+)", said, re.I)
    if taken and not pair:
        old, new = taken.group(1).strip(), taken.group(2).strip()
        if re.search(rf"\b{re.escape(old)}(?!\w)", previous, re.IGNORECASE):
            return re.sub(rf"\b{re.escape(old)}(?!\w)", new, previous, count=1, flags=re.IGNORECASE)
        return None
    if pair:
        new, old = pair.group(1).strip(), pair.group(2).strip()
        if old and re.search(rf"\b{re.escape(old)}\b", previous, re.IGNORECASE):
            return re.sub(rf"\b{re.escape(old)}\b", new, previous, count=1, flags=re.IGNORECASE)
        return None
    # "on day shifts now", then "mid shifts": the phrase of the same head noun, replaced
    phrase = said.split(",")[0].split()
    if 2 <= len(phrase) <= 3 and all(re.fullmatch(r"[a-z][\w'-]*", w) for w in phrase):
        modifiers = r"\s+".join([r"[\w'-]+"] * (len(phrase) - 1))
        head = re.search(rf"\b{modifiers}\s+{re.escape(phrase[-1])}\b", previous, re.IGNORECASE)
        if head and head.group(0).lower() != " ".join(phrase):
            return previous[: head.start()] + " ".join(phrase) + previous[head.end() :]
    if re.fullmatch(r"[\w'-]+", said) and said.lower() not in ("no", "yes", "sorry", "wait", "oops"):
        words = previous.split()
        if len(words) >= 3 and words[-1].isalpha() and words[-1].lower() != said.lower():
            return " ".join([*words[:-1], said])
    return None


# ------------------------------------------------------------------------- answers to questions

_PREPOSITION_OF = {
    "live": "in",
    "work": "at",
    "study": "at",
    "bank": "with",
    "shop": "at",
    "park": "at",
    "train": "at",
}
_QUESTIONS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), template)
    for pattern, template in (
        (r"^what do you do(?: for (?:work|a living))?\?$", "User works as {a}"),
        (
            r"^where (?:do|did) you (live|work|study|bank|shop|park|train)(?: now| these days)?\?$",
            "User {v} {p} {a}",
        ),
        (
            r"^where are you (based|located|living|working|staying)(?: now| these days)?\?$",
            "User is {v} in {a}",
        ),
        (r"^where are you from\?$", "User is from {a}"),
        (r"^(?:so )?where are you (?:now|these days)\?$", "User is in {a}"),
        (
            r"^(?:what|which) (\w+(?: \w+)?) (?:do|are) you (?:using|use|on|running|driving|drive|playing)(.*)\?$",
            "User uses {a}{r}",
        ),
        (r"^what (?:are|do) you (?:using|use|running|on)(.*)\?$", "User uses {a}{r}"),
        (r"^how many (\w+(?: \w+)?) (?:do|did) you have(.*)\?$", "User has {a} {n}{r}"),
        (
            r"^how many (\w+(?: \w+)?) (?:are|is) (?:there )?(?:on|in) your (\w+)(.*)\?$",
            "User's {o} has {a} {n}{r}",
        ),
        (r"^how (?:big|large) is your (team|company|startup|org)(.*)\?$", "User's {o} has {a}{r}"),
        (r"^how old are you\?$", "User is {a}"),
        (r"^how old is your (\w+)\?$", "User's {o} is {a}"),
        (r"^(?:what time|when) is your (.+?)(?: now| these days)?\?$", "User's {o} is at {a}"),
        (r"^(?:what|which) day is your (.+?)(?: now| these days)?\?$", "User's {o} is on {a}"),
        (r"^(?:what|who)(?:'s| is) your (.+?)(?: now| these days)?\?$", "User's {o} is {a}"),
        # about someone or something of the user's the question names: "What time is Leo's football?"
        (
            r"^(?:what time|when) (?:is|are) (?!(?:your|you|it|that|this|there)\b)(.+?)(?: now| these days)?\?$",
            "User said: {o} is at {a}",
        ),
        (
            r"^(?:what|which) days? (?:is|are) (?!(?:your|you|it|that|this|there)\b)(.+?)(?: on)?"
            r"(?: now| these days)?\?$",
            "User said: {o} is on {a}",
        ),
        # a short name of a thing ("the stack"), not advice asked for ("the best way to learn Rust")
        (
            r"^what(?:'s| is) the (?!(?:best|easiest|quickest|fastest|right|plan)\b)"
            r"((?:(?!like\b|to\b|for\b|of\b)[\w-]+\s?){1,3})(?: now| these days)?\?$",
            "User's {o} is {a}",
        ),
        (r"^how much (?:do you pay|are you paying)(?: for)? (.+?)\?$", "User pays {a} for {o}"),
        (r"^how much is your (.+?)(?: now| these days)?\?$", "User's {o} is {a}"),
    )
)
# "node and go" is one answer; "Lisbon, and I love it" or "Lisbon and we love it" ends it
_ANSWER_STOP = re.compile(
    r"[,;.!]|\s+(?:but|because|since|though|lol|haha)\s+|\s+-\s+|"
    r"\s+and\s+(?=(?:I|I'm|I've|we|we're|my|our|it|it's|he|she|they|there)\b)",
    re.IGNORECASE,
)
_NOT_AN_ANSWER = re.compile(
    r"^(?:no|nope|nah|not|none|nothing|never|idk|dunno|i don't know|not sure|maybe|perhaps|probably|"
    r"it depends|depends|why|what|huh|hmm|good question|none of your)\b",
    re.IGNORECASE,
)


def answered(question: str, reply: str) -> str | None:
    """The fact a short reply states as the answer to the agent's question: "Where do you live
    now?" -> "Lisbon, since March" gives "User lives in Lisbon". Only questions that ask for a
    value (where, what, which, how many, how old, when, who) and replies that give one: never a
    yes or no, a refusal, a hedge or a question back. The question frames the fact; the value is
    the user's own words."""
    reply = _PLEASANTRY.sub("", reply.strip()).strip()
    if not reply or reply.endswith("?") or _NOT_AN_ANSWER.match(reply) or _HEDGE.search(reply):
        return None
    value = _ANSWER_STOP.split(reply, maxsplit=1)[0].strip()
    value = re.sub(
        r"^(?:it's|its|it is|that's|that would be|we use|I use|mostly|probably)\s+", "", value, flags=re.I
    )
    when = re.search(r"\s+(now|these days|currently|at the moment|right now|nowadays|mostly)$", value, re.I)
    if when:
        value = value[: when.start()]
    if not value or len(value.split()) > 6:
        return None
    question = _PLEASANTRY.sub("", question.strip()).strip()
    question = re.sub(
        r"^(?:and|so|also|btw|by the way|out of curiosity|just curious),?\s+", "", question, flags=re.I
    )
    for pattern, template in _QUESTIONS:
        match = pattern.match(question)
        if not match:
            continue
        groups = [g for g in match.groups()]
        verb = groups[0] if groups and "{v}" in template else ""
        noun = groups[0] if groups and "{n}" in template else ""
        owned = groups[0] if groups and "{o}" in template and "{n}" not in template else ""
        if "{n}" in template and "{o}" in template:
            noun, owned = groups[0], groups[1]
        rest = groups[-1] if groups and "{r}" in template and groups[-1] else ""
        if "{n}" in template:
            if not re.search(
                r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a dozen)\b",
                value,
                re.I,
            ):
                return None
            if noun.split()[-1].rstrip("s") in value.lower():
                noun = ""
        fact = template.format(
            a=value,
            v=_third_person_verb(verb)
            if verb not in ("based", "located", "living", "working", "staying")
            else verb,
            p=_PREPOSITION_OF.get(verb.lower(), "in"),
            n=noun,
            o=owned.replace("your ", "their "),
            r=rest.replace(" you ", " they ").rstrip(),
        )
        fact = re.sub(r"\b(in|at|on) (in|at|on|from)\b", r"\2", fact)
        if when and when.group(1).lower() != "mostly":
            fact = f"{fact} {when.group(1).lower()}"
        return re.sub(r"\s+", " ", fact).strip()
    return None


# "retro got moved" then "which day is it now?": "it" is what the user just said was moved
_MOVED_THING = re.compile(
    r"^User's ([\w -]{2,30}?) (?:got |was |has been |is being )?(?:moved|changed|rescheduled|shifted)\b"
)


# "moved standup so ppl can do drop-off, it's at 10:15", "swimming changed for Wanjiru, it's
# Sundays now": what moved, then "it" for it
_MOVED_THEN_IT = re.compile(
    r"^(?P<head>(?:.*?\b(?:moved|changed|rescheduled|shifted|pushed|bumped)\s+(?:the\s+|our\s+|my\s+)?"
    r"(?!(?:to|from|for|with|in|into|on|at|up|down|back|over|out|away|it|that|this|everything)\b)"
    r"(?P<object>[a-z][\w-]+)|.*?\b(?P<subject>[a-z][\w-]+)\s+(?:got\s+|has\s+|was\s+)?"
    r"(?:moved|changed|rescheduled|shifted|pushed|bumped)(?:\s+for\s+(?P<whose>[A-Z][\w-]+))?)"
    r"\b[^,;]*[,;]\s+)it(?:'s|\u2019s| is)\s+",
    re.IGNORECASE,
)
# Words that are no thing that moves: "it changed everything", "moved to Leeds"
_NOT_MOVED_THINGS = frozenset(
    "to from in into on up down back over out away house home flat everything things it that this "
    "we i they he she my our me us them jobs job mind plans plan".split()
)


# "switched gyms, I'm at Rockhouse Junction now", "Ines changed jobs, she is at the Royal Free
# now", "moved offices, kings cross now", "changed coworking, now I go to Copernico": the kind of
# place changed, then the one it is now, said in the statement after it
_KIND_HEAD = (
    r"(?P<head>(?:(?:and|so|also)\s+)?(?:I|we|she|he|they|[A-Z][a-z]+|my \w+|our \w+)?\s*"
    r"(?:'ve\s+|have\s+|has\s+)?(?:just\s+|finally\s+|also\s+)?)"
    r"(?P<verb>switched|changed|moved|swapped)\s+(?P<kind>gym|job|office|coworking(?: space)?|school|dentist|"
    r"doctor|gp|club|studio|bank|clinic|pharmac(?:y|ie)|vet|nurser(?:y|ie)|daycare|church|pool|salon|"
    r"barber|hospital|practice|team|stall|climbing gym|yoga studio)s?"
)
_KIND_SWITCHED = re.compile(
    rf"^{_KIND_HEAD}\s*(?:[,;:!.\u2013\u2014-]+|\s+and)\s+"
    r"(?P<then>(?:(?:and|so)\s+)?(?:(?P<lead>now)\s+)?(?:(?:I|we|she|he|they)(?:'m|'re|'s| am| are| is)?\s+)?"
    r"(?:(?:go|goes|going)\s+)?(?:at|to|in|with)?\s*)"
    r"(?P<value>(?:the\s+)?[\w'&-]+(?:\s+[\w'&-]+){0,4}?)"
    r"(?:(?P<when>\s+(?:now|these days|instead))\b|\s*(?=[,;!?]|\.(?:\s|$)|$))",
    re.IGNORECASE,
)
# The same switch said as a sentence of its own ("WE MOVED OFFICES. kings cross now.")
_KIND_HEADLINE = re.compile(rf"^{_KIND_HEAD}\s*[.!]*$", re.IGNORECASE)
# "I basically live in figma all day": where the day goes, not a home
_LIVE_IN_ALL_DAY = re.compile(
    r"\b(?P<verb>live|lives|living) in (?P<what>[\w.+-]+(?: [\w.+-]+)?) (?P<when>all day|all the time|24/7)\b",
    re.IGNORECASE,
)
_SPEND = {"live": "spend", "lives": "spends", "living": "spending"}
_ON_BEHALF_OF = re.compile(
    r"^I(?:'m| am) (?:writing|asking|messaging|here) (?:on behalf of|for) (?P<whom>(?:my|our) \w+),? who\s+(?=\S)",
    re.IGNORECASE,
)
_TURNED_OFF = re.compile(
    r"^(?:(?:and|so|also)\s+)?(?:the |our )?(?:last |old )?(?P<x>[\w.+-]+) (?P<what>box|boxes|server|servers|instance|instances) "
    r"(?:got|was|were|has been|have been|is|are) (?:finally )?(?:switched off|turned off|shut down|shut off|decommissioned|retired)",
    re.IGNORECASE,
)
_DECIDED_LEAD_IN = re.compile(
    r"^(?:(?:ok(?:ay)?|so|well|yep|yeah)\W+)*(?:(?P<who>I|we)\s+)?(?:(?:finally|just|eventually)\s+)?"
    r"(?:went for it|went ahead|pulled the trigger|bit the bullet|caved|took the plunge|did it|made the jump|"
    r"made the leap)(?:\s+(?:in the end|finally|at last))?\s*(?:[,:;!\u2014-]+|(?P<and>\s+and))\s+(?=\S)",
    re.IGNORECASE,
)
_NOW_A_TITLE = re.compile(r"^now (?=(?:an?|the) [\w -]+? (?:at|for|with) [A-Z])", re.IGNORECASE)
_NOW_THAT_RUN_ON = re.compile(
    r"^now that (?P<held>(?:I|I'm|I am|we|we're|we are|my|our)\b[^,;]+?)\s+"
    r"(?P<next>(?:they|he|she)(?:'ve|'re|'s|'ll|'d| have| has| are| is| will| had)\s)",
    re.IGNORECASE,
)
# What follows "switched gyms, " that is no place: "it's closer", "which is great", "no idea why"
_NO_KIND_VALUE = frozenset(
    "it its it's this that which there here no not so still but because though way much more less "
    "really finally anyway my our their his her".split()
)


def _kind_switched_to(sentence: str) -> str:
    """ "Switched gyms, I'm at Rockhouse Junction now, 5 min from work" reads "Switched gyms to
    Rockhouse Junction, 5 min from work": one switch, the place it is now named in it. A job
    reads "works at X now", which says whom they work for (and "now" that it changed). Only a
    place said to hold now ("now", "these days", "now I go to"): "changed gyms, worst decision"
    is no place. What is done there ("climbing at X now") stays a statement of its own."""
    said = _KIND_SWITCHED.match(sentence)
    if said is None or not (said.group("lead") or said.group("when")):
        return sentence
    value = said.group("value")
    first = value.split()[0].lower()
    if first in _NO_KIND_VALUE or first.endswith("ing") or " at " in value or len(value) < 3:
        return sentence  # "climbing at X now": what is done there, a statement of its own
    kind = said.group("kind").lower()
    rest = sentence[said.end() :]
    if kind == "job":
        head = said.group("head")
        who = head.split()[-1].lower() if head.split() else "i"
        head = head if head.strip() else "I "
        return f"{head}{'work' if who in ('i', 'we', 'they') else 'works'} at {value} now{rest}"
    plural = (
        kind
        if kind.endswith(("coworking", "coworking space"))
        else re.sub(r"(?<=[^aeiou])y$", "ie", kind) + "s"
    )
    return f"{said.group('head')}{said.group('verb')} {plural} to {value}{rest}"


_IN_A_PLACE_MOVED = re.compile(
    r"\b(?P<lead>I'm|I am|[Ww]e're|[Ww]e are) (?:now )?in (?P<place>[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2}), "
    r"(?:(?:I|we) )?moved(?: here| there)? (?P<when>(?:in|last|this) [\w-]+)"
)
_A_VALUE_NEXT = re.compile(
    r"(?:at|on|in|every|from|now|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|noon|midnight|"
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b|[A-Z\d]"
)


def _it_is_what_moved(sentence: str) -> str:
    """The sentence with its "it" named, when it follows what it says moved: "our PM moved
    standup so ppl can do drop-off, it's at 10:15" reads "... , our standup is at 10:15"."""
    said = _MOVED_THEN_IT.match(sentence)
    if said is None:
        return sentence
    what = (said.group("object") or said.group("subject")).lower()
    if what in _NOT_MOVED_THINGS or not _A_VALUE_NEXT.match(sentence[said.end() :]):
        return sentence  # "they moved the deadline, it's brutal": how it feels, not where it went
    if said.group("object") and what.endswith("s") and not what.endswith("ss"):
        what = what[:-1]  # "changed banks, it's Monzo now": the one bank it is now
    if said.group("whose"):
        owner = f"{said.group('whose')}'s"  # "swimming changed for Wanjiru": hers
    else:
        owner = "our" if re.search(r"\b(?:we|our|us)\b", said.group("head"), re.IGNORECASE) else "my"
    return f"{said.group('head')}{owner} {what} is {sentence[said.end() :]}"


def _it_named(question: str, found: list[Found]) -> str:
    """The agent's question with its "it" named, when the user's last fact says what moved."""
    moved = _MOVED_THING.match(found[-1].content) if found else None
    if moved is None or not re.search(r"\b(?:is|was) it\b", question, re.IGNORECASE):
        return question
    named = re.sub(r"\b(is|was) it\b", rf"\1 your {moved.group(1)}", question, count=1, flags=re.IGNORECASE)
    return re.sub(r"^(?:sure|ok|okay|got it|great|no problem)[,!.]?\s+", "", named, flags=re.IGNORECASE)


_STILL = re.compile(r"(?:\b(?P<who>are you|do you)\s+)?\bstill\s+(?P<what>[^?]+)\?$", re.IGNORECASE)
_NO_LONGER = re.compile(r"^(?:no|nope|nah|not anymore|not any more|not really)\b[\s,.!-]*", re.IGNORECASE)
_STILL_KINDS = ("day", "time", "amount", "number", "name")
_ANSWER_THEN_STATEMENT = re.compile(
    r",\s+(?:(?:and|but|so|also|plus)\s+)?(?=(?:I|I'm|I've|we|we're|we've|my|our)\b)", re.IGNORECASE
)


def still_changed(question: str, reply: str) -> tuple[str, str] | None:
    """The agent asked whether a value still holds and the reply gives another: "is that still
    Thursdays in Hackney?" -> "nope Tuesdays now" gives "User said: Tuesdays in Hackney now". The
    question's words frame the fact, with the reply's value in place of the one it asked about.
    Returns the fact and what the reply says after its answer, to be read as any statement."""
    asked = _STILL.search(question.strip())
    reply = _PLEASANTRY.sub("", reply.strip()).strip()
    if asked is None or not reply or reply.endswith("?") or _HEDGE.search(reply):
        return None
    # "ten o'clock now, we got flexible hours": the answer, then a statement of its own
    answer, *rest = _ANSWER_THEN_STATEMENT.split(reply, maxsplit=1)
    denied = _NO_LONGER.match(answer)
    said = answer[denied.end() :] if denied else answer
    if not denied and not re.search(r"\bnow\b", said, re.IGNORECASE):
        return None
    if len(said.split()) > 12 or _FIRST_PERSON_WORDS.search(said):
        return None
    what = asked.group("what").strip()
    # a name is never the first word of a text (`_values`); the reply's may be ("Globex now")
    olds, news = _values(what), _values(f"- {said}")
    for kind in _STILL_KINDS:
        if not olds.get(kind) or not news.get(kind):
            continue
        old, new = olds[kind][0].group(0), news[kind][0].group(0)
        if old.lower() == new.lower() or new.lower() in what.lower():
            continue
        statement = what.replace(old, new, 1)
        statement = re.sub(
            r"\b(?:you|your)\b", lambda m: {"you": "they", "your": "their"}[m.group(0)], statement
        )
        who = (asked.group("who") or "").lower()
        if who == "are you":  # "are you still starting at 8:30?": the user is
            fact = f"User is {statement} now"
        elif who == "do you":  # "do you still teach on Mondays?": the user does
            verb, _, tail = statement.partition(" ")
            fact = f"User {_third_person_verb(verb)} {tail} now"
        else:  # "is that still Thursdays in Hackney?": what "that" is, the conversation says
            fact = f"{SAID}{statement} now"
        return fact[:MAX_CONTENT_CHARS], " ".join(rest).strip()
    return None


# ------------------------------------------------------------------------- the conversation


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.split(text) if s and s.strip()]


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence of `text` starts and ends (`_SENTENCES.split`, with positions)."""
    spans, start = [], 0
    for separator in _SENTENCES.finditer(text):
        if separator.end() == separator.start() == start:
            continue
        spans.append((start, separator.start()))
        start = separator.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]


# A value said alone with "now", a sentence of its own: "$81k now.", "12 of us now!"
_VALUE_NOW_ALONE = re.compile(r"^[$\u20ac\u00a3]?\d[\w.,]*(?:\s+\w+){0,2}\s+now\s*[.!]*$", re.IGNORECASE)


def _kind_headlines_joined(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """Each sentence's span and text; a switch said on its own ("WE MOVED OFFICES.") and the
    sentence after it that says where it is now ("kings cross now.") are one sentence, the
    switch's words made plain ("We moved offices, kings cross now.")."""
    joined: list[tuple[int, int, str]] = []
    skip = False
    for (start, end), after in zip(spans, [*spans[1:], None], strict=True):
        if skip:
            skip = False
            continue
        headline = text[start:end].strip()
        if after is not None and _KIND_HEADLINE.match(headline):
            if headline.isupper():
                headline = headline.capitalize().replace(" i ", " I ")
            together = f"{headline.rstrip(' .!')}, {text[after[0] : after[1]].strip()}"
            if _kind_switched_to(together) != together:
                joined.append((start, after[1], together))
                skip = True
                continue
        if (
            after is not None
            and not headline.endswith("?")
            and _VALUE_NOW_ALONE.match(text[after[0] : after[1]].strip())
        ):
            # "raise went through!! $81k now.": the news, then its value said alone
            joined.append((start, after[1], f"{headline.rstrip(' .!')}, {text[after[0] : after[1]].strip()}"))
            skip = True
            continue
        joined.append((start, end, text[start:end]))
    return joined


def _plain(text: str) -> str:
    """A sentence as the rules read it: informal English plain, contractions of "is" and "has"
    spelled out, a name beside the person, a heading gone."""
    text = plain_english(text)
    text = re.sub(r"\b([Mm]y|[Oo]ur) (name|names)'s\b", r"\1 \2 is", text)
    text = _HAS_PARTICIPLE.sub(r"\1 has ", text)
    text = _IS_CONTRACTED.sub(
        lambda m: (
            m.group(1) + ("'s " if m.group(1).lower() in _NOT_A_NOUN or _place_named_for(m) else " is ")
        ),
        text,
    )
    # "my boss, Karen, is based in Denver": the name goes with the person
    text = re.sub(r"\b([Mm]y|[Oo]ur) (\w+), ([A-Z][\w-]+), ", r"\1 \2 \3 ", text)
    # "Freelancing update: landed a contract", "update on the ex stuff: ...": the heading is not
    # the statement
    return _HEADING.sub("", text)


_HEADING = re.compile(
    r"(?im)^[\w ]{0,30}?\b(?:update|news|note|psa|status)(?: (?:on|about|re) [\w' ]{1,30})?\s*[:\-]\s*"
)


_QUOTE_TRIM = " \t\n,;:-\u2014\u2013"


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """`text[start:end]` without the spaces and punctuation around it."""
    while start < end and text[start] in _QUOTE_TRIM:
        start += 1
    while end > start and text[end - 1] in _QUOTE_TRIM + ".!?":
        end -= 1
    return start, min(end, start + MAX_QUOTE_CHARS)


# The reason a question or a request gives, when it is a statement of the user's: "now that my
# rent is $1,600", "since we upgraded to Python 3.12", "given that my shifts start at 7am".
_EMBEDDED = re.compile(
    r"\b(?:now that|since|because|as|given that|seeing as|considering)\s+"
    r"((?:I|I'm|I've|we|we're|we've|my|our|(?:the\s+)?\w+\s+(?:is|are)\s+now)\b(?:[^?,;]|,(?=\d))*)",
    re.IGNORECASE,
)


# "my iPhone 15", "my 2019 Civic", "my Galaxy S23 Ultra": a model of a thing the user has, by
# its name; never one of old or someone else's ("my old iPhone 12", "my dad's Kindle").
_OWNED_MODEL = re.compile(
    r"\bmy (?!(?:old|previous|former|ex|last|first|late|dead|broken|stolen|\w+'s)\b)"
    r"(?P<thing>(?:(?:19|20)\d\d )?[A-Za-z][\w+-]*(?: (?:[A-Z0-9][\w+-]*|pro|max|mini|plus|air|ultra|lite)){0,3})\b"
)
# Things a person has one or a few of, whose model they name.
_OWNED_KINDS = frozenset(
    {"phone", "computer", "tablet", "wearable", "car", "two_wheeler", "camera", "game_console", "audio"}
)


# "how do I set up a bank rule in Xero", "how can we share a vault with Bitwarden": a question
# about doing something in a tool says the user works in it; not about leaving it or moving
# what is in it ("how do I export my notes from Notion", "how do I cancel in Spotify")
_WORKS_IN = re.compile(
    r"\bhow (?:do|can|should|would) (?:i|we) (?!(?:\w+ ){0,3}?(?:cancel|delete|leave|quit|export|migrate|move|"
    r"switch|uninstall|get rid|close|stop using)\b)(?:[\w'-]+ ){1,8}?(?:in|on|with|using|inside) "
    r"(?!(?:a|an|the|my|our|this|that|it)\b)(?P<thing>[A-Za-z][\w.+-]*(?: [A-Z0-9][\w.+-]*)?)(?=\s*[?.!,]|\s*$)",
    re.IGNORECASE,
)
# Kinds of software one works in (text_analysis/kinds.py)
_SOFTWARE_KINDS = frozenset(
    """accounting_software ai_assistant browser calendar cloud_storage code_hosting crm database
    design_tool editor email notes office_docs password_manager task_manager tracker helpdesk
    website_platform music_production cad video_editor budgeting_app newsletter_tool messaging
    video_call monitoring fitness_app food_tracker""".split()
)


# Words for such a kind rather than one of its tools ("how do I do this in a spreadsheet")
_SOFTWARE_WORDS = frozenset(
    """spreadsheet spreadsheets sheets docs slides notes tickets tracker email e-mail mail inbox
    calendar browser database editor chat messages video video-call video-calls calls maps crm
    markdown terminal shell app apps""".split()
)


def _is_software(thing: str) -> bool:
    """A tool by its name ("Xero", "bitwarden"), of a kind one works in."""
    from aurra_core.text_analysis import kinds

    words = thing.lower().split()
    return not set(words) <= _SOFTWARE_WORDS and bool(kinds.kinds_of(thing) & _SOFTWARE_KINDS)


def _is_a_named_model(thing: str) -> bool:
    """A name (a capital or a number in it, not just the kind's word) of a kind people own."""
    from aurra_core.text_analysis import kinds

    return bool(re.search(r"[A-Z0-9]", thing)) and bool(kinds.kinds_of(thing) & _OWNED_KINDS)


# Someone of the user's life by their role and their name ("my coach Mikkel"); not a doctor, a
# therapist or a lawyer, whose name would say what the user is treated or advised for
_NAMED_IN_PASSING = re.compile(
    r"\b[Mm]y (?P<rel>coach|manager|boss|trainer|mentor|tutor|landlord|landlady|flatmate|roommate|"
    r"housemate|cofounder|co-founder|business partner|teammate|line manager|team lead|editor|agent|"
    r"wife|husband|girlfriend|boyfriend|fiancée?|partner|son|daughter|sister|brother|mum|mom|dad|"
    r"grandma|grandpa|niece|nephew|cousin|aunt|uncle|best friend) (?P<name>[A-Z][a-z]{2,})\b(?!['\u2019]s\b)"
)
_NOT_A_NAME = frozenset(
    "The This That And But Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April "
    "June July August September October November December Just Also Still Now Today Yesterday".split()
)
# Whom "she" or "he" at the start of a clause names: the user's one relative of that gender
# named so far in the conversation ("can you help me plan a trip to see my sister, she lives in Graz").
# "My sisters" names no one relative.
_RELATIVE = re.compile(
    r"\b(?:my|our)\s+(?:(?:little|big|older|younger|baby|eldest|oldest|youngest|twin)\s+)?"
    rf"(?P<rel>{'|'.join(sorted(_SHE | _HE))})\b(?!'s)",
    re.IGNORECASE,
)
# "mum's moved", "Update on mum:": a parent or a partner named without "my"
_RELATIVE_BARE = re.compile(
    r"(?:^|\b(?:on|about|re|from|with)\s+)(?P<rel>mum|mom|mother|dad|father|wife|husband|girlfriend|boyfriend|"
    r"grandma|grandpa)\b(?!'s (?:friend|partner|boss|colleague))",
    re.IGNORECASE,
)
# "so I joined The Gym Group there": a clause that ends (or pauses) on the place said before it. Not "up
# there", "out there" or "over there", which point at somewhere else.
_THERE_AT_END = re.compile(
    r"^(?P<body>(?!there\b).*\S)(?<!\bup)(?<!\bout)(?<!\bover)(?<!\bdown) there(?P<tail>(?: now| instead| too)?(?:[.!]*|,.*))$",
    re.IGNORECASE,
)
# the place said before it in the sentence: "the office moved to Salford Quays so", "new job's
# in canary wharf so" (in lower case, only before what ends a clause)
_PLACE_SAID = re.compile(r"\b(?:in|to) (?P<place>(?-i:[A-Z][\w'-]*)(?: (?-i:[A-Z][\w'-]*)){0,2})\b")
_PLACE_SAID_LOWER = re.compile(
    r"\b(?:in|to) (?P<place>[a-z][\w'-]*(?: [a-z][\w'-]*)?)(?= (?:so|and|but|which|where)\b|\s*[,;])"
)
_NO_PLACE_THERE = frozenset(
    """the a an my our their his her your this that it work home school town bed hospital office uni
    college time charge touch person bits total general fact case march""".split()
)
_PRONOUN_START = re.compile(
    r"^(?P<lead>(?:(?:oh|ah|and|but|so|also|anyway|plus|btw|good news,?|update:?)\s+)*)(?P<pronoun>she|he|his|her)\b(?!\s*[,.!?]|$)",
    re.IGNORECASE,
)
_POSSESSIVE = {"his": "he", "her": "she"}
# "she's been", "he's got": the "'s" is "has"
_HAS_AFTER = re.compile(
    r"(?:been|got|gone|had|left|moved|started|finished|done|taken|become|grown|given|made|seen)\b|"
    r"(?:never|just|already|recently|finally|not yet|always) \w+(?:ed|en)\b"
)
# Someone besides the user's relatives named before a "she" or "he": a name, or a person by
# their role ("my colleague", "our neighbour"). Then the pronoun may be theirs, and what the
# user's memories know is no guide to it.
_SOMEONE_BY_ROLE = re.compile(
    r"\b(?:friend|colleague|co-?worker|boss|manager|neighbou?r|partner|flatmate|roommate|housemate|"
    r"teacher|coach|mentor|client|landlord|landlady|doctor|therapist|cousin|mate|buddy)s?\b",
    re.IGNORECASE,
)
_NAME_INSIDE = re.compile(r"\b(?!I\b|I'm\b|I've\b|I'll\b|I'd\b)[A-Z][a-z]+")
# The word after "User's sister" that is no name of hers
_NOT_A_NAME_AFTER = frozenset(
    """is was are has had have lives lived works worked does did got gets just started starts moved
    moves says said loves loved likes hates wants needs goes went takes took plays teaches runs
    and also still now who and the with from will would can could may might never always often
    recently finally only really very new old little big older younger eldest youngest birthday
    name job flat house place school work""".split()
)
# A sentence's first word that is no name
_NOT_A_NAME_FIRST = frozenset(
    """the so and ok okay update good news just my our we it this that well yeah yes no hey hi quick
    anyway oh um btw fyi sorry haha lol thanks right then today yesterday last next still now they he
    she his her also but a an in on at after before since as if when i i'm i've what how why where who
    big small great bad sad happy finally guess turns things everything nothing""".split()
)


# Before a capitalised word, what makes it a place, a thing or a time rather than a person:
# "moved to Portland", "joined the Rockhouse Junction gym", "since March"
_NOT_BEFORE_A_PERSON = frozenset("in at to from near on into onto via the a an of for by since until".split())
_TIME_NAMES = MONTH_NAMES | WEEKDAY_NAMES | {"christmas", "easter"}


def _a_person_named(word: str, before: str) -> bool:
    """Whether a capitalised word inside a sentence may be someone's name: not after a word of
    place, an article or another capitalised word, not a month or a day, not a place, tool or
    company the lexicon knows."""
    from aurra_core.text_analysis import kinds

    return (
        before.lower() not in _NOT_BEFORE_A_PERSON
        and not before[:1].isupper()  # the second word of a name judged by its first
        and word.lower() not in _TIME_NAMES
        and not kinds.kinds_of(word)
    )


def _names_someone_else(text: str) -> bool:
    """Whether `text` names someone, by a name or a role, who may be the "she" or "he" after it."""
    for sentence in re.split(r"(?<=[.!?:])\s+|\n+", text):
        words = sentence.split()
        if not words:
            continue
        first = re.sub(r"[^\w']", "", words[0])
        if first[:1].isupper() and first.lower().split("'")[0] not in _NOT_A_NAME_FIRST | _TIME_NAMES:
            return True
        if _SOMEONE_BY_ROLE.search(sentence):
            return True
        for before, word in pairwise(words):
            name = _NAME_INSIDE.match(word)
            if name is not None and _a_person_named(name.group(0), re.sub(r"[^\w']", "", before)):
                return True
    return False


def known_relatives(relations: Collection[tuple[str, str]]) -> tuple[dict[str, set[str]], dict[str, str]]:
    """The user's relatives their memories name (("sister", "lives"), ("boyfriend", "marco")),
    by the pronoun that stands for each, and the names they give them ("marco": "my boyfriend")."""
    known: dict[str, set[str]] = {}
    names: dict[str, str] = {}
    for relation, after in relations:
        if relation in _SHE or relation in _HE:
            known.setdefault("she" if relation in _SHE else "he", set()).add(f"my {relation}")
            if len(after) >= 3 and after.isalpha() and after not in _NOT_A_NAME_AFTER:
                names[after] = f"my {relation}"
    return known, names


_NEED_ASKED = re.compile(rf"^{_NEED}\b", re.IGNORECASE)
# a value said after a comma or a colon: a day, a time, an amount, a count, a name
_DETAILS_AFTER_COMMA = re.compile(r"[,:]\s*[^,]*?(?:\d|[$\u20ac\u00a3]|\b[A-Z][a-z])")
# "my rent is $1,850 and the landlord sent a renewal at +12%??": "??" or "?!" after a sentence
# that starts as the user's own statement is surprise, not a question (read as "!!", the same length)
_SURPRISED_STATEMENT = re.compile(
    r"(?:^|(?<=[.!?]\s))((?:I|I'm|I've|[Mm]y|[Ww]e|[Ww]e're|[Ww]e've|[Oo]ur)\b[^.!?\n]*?)((?:\?\?|\?!|!\?)[?!]*)"
)
# ", what time should I leave", ", how do we speed it up", ", any tips": a question that ends the
# sentence without its question mark (not "..., where I work as a nurse")
_UNMARKED_QUESTION = re.compile(
    r",\s+(?:(?:what|how|when|where|which|who|why)(?: [\w']+){0,3}? (?:should|can|could|would|do|does|did|"
    r"is|are|will|shall) (?:I|we|you|it|they|he|she)\b|any (?:tips|ideas|advice|recs|suggestions)\b)[^,]*$",
    re.IGNORECASE,
)
_WHOM_I_REPORT_TO = re.compile(
    r"\bthe (?:person|one|guy|woman|lady|man) I (?:now )?report to(?: now)? is\b", re.IGNORECASE
)
_PET_NAMED_BARE = re.compile(
    r"^(?:an? |one )?(?P<pet>dog|cat|puppy|kitten|rabbit|hamster|parrot|horse|tortoise|guinea pig|budgie)"
    r" (?:named|called) (?=[A-Z])",
    re.IGNORECASE,
)
_ALLERGIC_BARE = re.compile(r"^(?=(?:severely |very |mildly |deathly )?allergic to\b)", re.IGNORECASE)
_BARE_TITLE = re.compile(r"^(?P<title>[A-Za-z][\w' -]{1,60}?)(?=\s+(?:at|for|with|in|on)\s+\S)")
_SAID_AS_I = re.compile(r"^(?:I|I'm|I've|I am)\b")
_STATEMENT_AFTER_COMMA = re.compile(
    # "can you redo my budget, take home is about 3200": a sum that is only ever the user's, bare
    r",\s+(?=(?:she|he|I|I'm|I've|we|we're|we've|my|our|(?:" + _USERS_OWN_SUMS + r") (?:is|are))\b)",
    re.IGNORECASE,
)


def _owned_things(relations: Collection[tuple[str, str]]) -> re.Pattern[str] | None:
    """'the <thing>' opening a statement, for each thing the user's memories call the user's own
    ("User's flight is on june 12": "flight"; "User's car payment is 389": "car payment"); not
    a relative or a group, which are read apart."""
    things = set()
    for relation, after in relations:
        if not relation.isalpha() or relation in _SHE or relation in _HE or relation in _GROUP_NOUNS:
            continue
        named_by_two = after.isalpha() and after not in _NOT_A_NAME_AFTER and after not in _NOT_OWNED_AFTER
        things.add(f"{relation} {after}" if named_by_two else relation)
    if not things:
        return None
    return re.compile(
        rf"\bthe (?P<thing>{'|'.join(re.escape(t) for t in sorted(things, key=len, reverse=True))})"
        r"(?=\s+(?:is|was|'s|has|got|moved|changed|went|now)\b)",
        re.IGNORECASE,
    )


# Words after "User's <thing>" that are no part of its name ("User's flight got moved")
_NOT_OWNED_AFTER = frozenset("got gets isn't wasn't keeps kept broke needs needed seems costs cost".split())


class _Reader:
    """Reads a conversation's user messages in order, keeping the facts found so far, so that
    a correction can change the fact it corrects. Each fact keeps the span of the message it was
    read from: its clause as the message has it, or its whole sentence when the rules reworded
    the clause past finding."""

    def __init__(self, relations: Collection[tuple[str, str]] = ()) -> None:
        self.found: list[Found] = []
        # whom the user's memories name, by pronoun: a "she" or "he" the conversation does not
        # explain is theirs when they name one of that gender and the conversation no one else
        self.known, self.known_names = known_relatives(relations)
        # the relatives' names as a message may say them ("Ines changed jobs")
        self.names_said = (
            re.compile(rf"\b(?:{'|'.join(map(re.escape, sorted(self.known_names)))})\b", re.IGNORECASE)
            if self.known_names
            else None
        )
        self.read_before = ""  # the user's words read before the message being read
        self.question: str | None = None  # the agent's question the next message may answer
        self.question_index: int | None = None
        # Reading the first sentence of a reply to the agent's question: its "nope," answers
        # the question and corrects nothing the user said before it.
        self.answering = False
        self.previous: str | None = None  # the sentence of the message read before this one
        # whom "we" at work names: "our company runs on Slack" makes it the company; a group the
        # user's memories name ("User's band rehearses ...") is the one a new conversation means
        named = sorted(
            {relation for relation, _ in relations if relation in _GROUP_NOUNS},
            key=lambda noun: (noun not in _COLLECTIVES, noun != "team", noun),
        )
        self.group = named[0] if named else "team"
        self.owned = _owned_things(relations)
        self.work_context = False  # the message is about work: "we" is the group
        self.relatives: dict[str, set[str]] = {}  # "she" / "he" -> the relatives of that gender named
        # The message read (as sent, and with plain apostrophes) and the span of the sentence
        # being read, in it.
        self.message = self.normalized = ""
        self.sentence_span = (0, 0)
        # A correction said before its value: "no wait, sorry, just looked at the box, it's 850
        # mg": the next clause that gives a value is what it corrects to
        self.correcting = False
        self.corrected_before = False  # the sentence being read corrected a fact said before it

    def read(self, text: str, index: int) -> None:
        # Apostrophes made plain keep the message's length: positions in it are the message's.
        normalized = text.replace("\u2019", "'").replace("\u2018", "'")
        whole = _plain(normalized)
        # "How's the team?" then "We're 10 now": the question says what "we" is
        # A message that names the user's family makes "we" the household unless the clause
        # itself is about work ("my wife's company has an office there. We're going to Denver")
        # A relative named by the name the user's memories give them counts as family: "Ines
        # changed jobs ... so we finally get weekends together" is the couple, not a team
        family = bool(_FAMILY.search(whole) or (self.names_said and self.names_said.search(whole)))
        self.work_context = bool(
            (_WORK.search(whole) and not family) or (self.question and _WORK.search(self.question))
        )
        # What "we" is stays what the conversation last named it: "we're a four-piece band"
        # then, a message later, "we've taken a lockout room" is the band's
        group = _GROUP_NAMED.search(whole)
        if group:
            self.group = group.group("noun").lower()
        self.work_context = self.work_context or (self.group in _COLLECTIVES and not family)
        self.message, self.normalized = text, normalized
        self.correcting = False
        number, first = 0, len(self.found)
        read: list[str] = []
        for start, end, said in _kind_headlines_joined(normalized, _sentence_spans(normalized)):
            self.sentence_span = _trimmed(normalized, start, end)
            said = _SURPRISED_STATEMENT.sub(lambda m: m.group(1) + m.group(2).replace("?", "!"), said)
            for heading in _HEADING.finditer(said):
                self._named_relatives(heading.group(0))  # "Update on mum: she sold the house"
            for sentence in _sentences(_plain(said)):
                deadline.check()
                self.previous = read[-1] if read else None
                read.append(sentence)
                if number == 0 and self.question and not _FIRST_PERSON_WORDS.search(sentence):
                    named = _it_named(self.question, self.found)
                    fact = answered(named, sentence)
                    if fact is not None and named != self.question and not fact.endswith(" now"):
                        fact += " now"  # the answer about what was just moved is where it moved to
                    if fact is not None:
                        asked = () if self.question_index is None else (self.question_index,)
                        self._keep(fact, (*asked, index), self._sentence_quote())
                        number += 1
                        continue
                if number == 0 and self.question:
                    changed = still_changed(self.question, sentence)
                    if changed is not None:
                        asked = () if self.question_index is None else (self.question_index,)
                        self._keep(changed[0], (*asked, index), self._sentence_quote())
                        sentence = changed[1]
                self.answering = number == 0 and self.question is not None
                number += 1
                if sentence:
                    self._sentence(sentence, index)
                self.answering = False
        self._named_in_passing(normalized, index, first)
        self._switch_said_apart(read, first)
        self._gone_said_apart(read, first)
        self.read_before += normalized + "\n"
        self.question = None
        self.question_index = None

    def heard(self, text: str, index: int) -> None:
        """The agent's message: only its last question is kept, as what the next reply may answer."""
        sentences = _sentences(text.replace("\u2019", "'"))
        self.question = sentences[-1] if sentences and sentences[-1].endswith("?") else None
        self.question_index = index if self.question is not None else None

    def _named_in_passing(self, normalized: str, index: int, first: int) -> None:
        """ "my coach Mikkel wants me to track my lifts": who someone in the user's life is, kept
        when nothing kept of the message names them (what they want or ask is not the user's)."""
        kept = " ".join(f.content for f in self.found[first:])
        for named in _NAMED_IN_PASSING.finditer(normalized):
            name = named.group("name")
            if name in _NOT_A_NAME or re.search(rf"\b{re.escape(name)}\b", kept):
                continue
            relation = named.group("rel").lower()
            self._keep(f"User's {relation} is {name}", (index,), self.message[named.start() : named.end()])
            kept += f" {name}"

    def _sentence_quote(self) -> str:
        start, end = self.sentence_span
        return self.message[start:end]

    def _clause_quote(self, clause: str) -> str:
        """The clause as the message has it, when its words are there in its sentence (case and
        spacing aside); else the sentence."""
        words = clause.strip(_QUOTE_TRIM).rstrip(".!?" + _QUOTE_TRIM).split()
        start, end = self.sentence_span
        if words:
            pattern = re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)
            found = pattern.search(self.normalized, start, end)
            if found is not None:
                return self.message[found.start() : found.end()]
        return self._sentence_quote()

    def _listed_sums(self, sentence: str, index: int) -> bool:
        """A list of sums, a label to each, kept as a fact to each (`_LISTED_ITEM`); False when
        the sentence is no such list."""
        body = sentence.strip().rstrip(".!")
        heading = _LISTED_HEADING.match(body)
        if heading is not None:
            body = body[heading.end() :]
        parts = [part for part in _LIST_SEPARATOR.split(body) if part]
        items = [item for item in map(_LISTED_ITEM.match, parts) if item is not None]
        if len(items) < 2 or len(items) < len(parts):
            return False
        labels = [item.group("label") for item in items]
        if any(label[0].isupper() and not set(label.lower().split()) & _MONEY_WORDS for label in labels):
            return False  # "we split it: Tom $40, Ana $60": who paid, not what for
        words = {w for label in labels for w in label.lower().split()}
        heading_words = set(heading.group("heading").lower().split()) if heading is not None else set()
        contracted = any("'" in w and not w.endswith("'s") for w in words)  # "we're", "i'm"
        if (
            contracted
            or words & _NOT_A_LABEL
            or not ((words | heading_words) & _MONEY_WORDS or re.search(r"[$\u20ac\u00a3]", body))
        ):
            return False
        period = next((p for w, p in _PERIOD_OF_HEADING.items() if w in heading_words), "")
        what = heading.group("heading").split() if heading is not None else []
        while what and what[0].lower() in _LIST_HEADING_WORDS:
            what.pop(0)  # "budget for the Lisbon trip": what the list is for, without the heading's noun
        for item in items:
            label, amount = item.group("label"), item.group("sum")
            label = label if label.isupper() else label[0].lower() + label[1:]  # "Rent 1100"
            # "take home 3200" is the pay that comes home, not a home: said whole, no classifier
            # reads it as where the user lives
            label = re.sub(r"^take[- ]?home(?: pay)?$", "take-home pay", label, flags=re.IGNORECASE)
            verb = "are" if label.endswith("s") and not label.endswith("ss") else "is"
            said_period = "" if item.group("per") else period  # "3400/mo" says its own
            content = f"User's {label} {verb} {amount}{said_period}" + (
                f" ({' '.join(what)})" if what else ""
            )
            self._keep(content, (index,), self._clause_quote(item.group(0)))
        return True

    def _keep(self, content: str, indexes: tuple[int, ...], quote: str, method: str = RULES) -> None:
        if content.startswith(SAID):
            # "@assistant our EKS clusters are on 1.27": whom the message was addressed to is no
            # word of what was said
            content = SAID + _MENTION.sub("", content[len(SAID) :], count=1)
        if self.found and self.found[-1].content == content:
            return  # the same statement read twice (a request's reason, then its clause)
        if _SAYS_NOTHING.match(content):
            return  # "User's wife", "User works": a clause's subject and no more; the sentence stays
        self.found.append(Found(content, tuple(sorted(set(indexes))), quote or None, method))

    def _sentence(self, original: str, index: int) -> None:
        original = _LIST_ITEM.sub("", original)
        if original.rstrip().endswith(":"):
            self._named_relatives(original)  # "Update on mum:": whom the list is about
            return  # what leads in a list ("Couple of updates before you book Saturday:"), not an item
        language = language_of(original)
        sentence = to_english(original, language) if language else original
        sentence = _TOGETHER.sub(_together, sentence)
        sentence = _PLEASANTRY.sub("", sentence.strip()).strip()
        headed = _QUESTION_HEADING.match(sentence)
        sentence = sentence[headed.end() :] if headed else sentence
        letters = [c for c in sentence if c.isalpha()]
        if (
            len(sentence.split()) >= 2
            and len(letters) >= 8
            and sum(c.isupper() for c in letters) > 0.8 * len(letters)
        ):
            # "MARCO GOT HEAD CHEF!!!": shouted, read as a sentence
            sentence = sentence[0] + sentence[1:].lower()
        sentence = self._resolved(sentence)
        if self.owned is not None:
            # "the flight is june 21 not the 12th", when the user's memories say "User's flight ...":
            # the user's own
            sentence = self.owned.sub(lambda m: f"my {m.group('thing')}", sentence)
        # "PROMOTED mid-level dev as of today": the user got promoted to it
        sentence = re.sub(r"^promoted\s+(?:to\s+)?", "got promoted to ", sentence, flags=re.IGNORECASE)
        # "the person I report to is Kofi Mensah": whom the user reports to
        sentence = _WHOM_I_REPORT_TO.sub("I report to", sentence)
        # "Big change at work - they made me team lead": the heading of the news is no part of it
        sentence = _NEWS_HEADING.sub("", sentence)
        # "they made me team lead", "Guess who got bumped up to head chef": a title given the user
        sentence = _GIVEN_TO_ME.sub(lambda m: f"I was made {m.group('title')}", sentence)
        # "first month as Staff Engineer and I'm drowning": a title the user holds now;
        # "Since making Associate Partner in November I've got a target": one reached
        sentence = _FIRST_PERIOD_AS.sub(
            lambda m: f"I'm now {_article(m.group('title'))} {m.group('title')}", sentence
        )
        sentence = _SINCE_REACHING.sub(
            lambda m: f"I made {m.group('title')}{m.group('when') or ''}, ", sentence
        )
        # "Aoife's first week at Greenfield went grand": she started there; "first week at
        # Stripe done!": the user did
        sentence = _FIRST_PERIOD_AT.sub(
            lambda m: f"{m.group('who') or 'I'} started at {m.group('place')}", sentence
        )
        # "Three weeks in at Orchard Health and I love it": there, since weeks ago
        sentence = _WEEKS_IN_AT.sub(lambda m: f"I started at {m.group('place')}", sentence)
        sentence = re.sub(r"^guess who\s+(?=got|just|is|made|finally)", "I ", sentence, flags=re.IGNORECASE)
        # "Please remember that I moved to Berlin", "can you note that we're 12 now?": the
        # request is to keep the statement, which is the fact
        kept = _NOTE_LABEL.sub("", _KEEP_THIS.sub("", sentence)).strip()
        if kept != sentence:
            sentence = kept.rstrip("?").strip()
        sentence = _SET_MINE.sub(lambda m: f"My {m.group(1)} is {m.group(2)}", sentence)
        sentence = _PROVIDER_SET.sub(_set_by_provider, sentence)
        sentence = _kind_switched_to(_it_is_what_moved(sentence))
        # "I'm in Astoria, moved in december": where the user is, said as the move that took them there
        sentence = _IN_A_PLACE_MOVED.sub(
            lambda m: (
                f"{'we' if m.group('lead').lower().startswith('we') else 'I'} moved to "
                f"{m.group('place')} {m.group('when')}"
            ),
            sentence,
        )
        # "Now a senior PM at Intercom.": a title the user holds now, its "I'm" left out
        sentence = _NOW_A_TITLE.sub("I'm now ", sentence)
        # "dog named Haggis (yes really)", "allergic to penicillin": an item of a list about the
        # user, its "I have" or "I'm" left out
        sentence = _PET_NAMED_BARE.sub(lambda m: f"I have a {m.group('pet').lower()} named ", sentence)
        sentence = _ALLERGIC_BARE.sub("I'm ", sentence)
        bare_title = _BARE_TITLE.match(sentence)
        if bare_title and self.previous and _SAID_AS_I.match(self.previous):
            # "I live in Kreuzberg. UX designer at a fintech.": after a sentence of the user's own,
            # a title said bare is theirs (after "My sister got a job." it would be hers)
            said_as = _as_a_title(bare_title.group("title"))
            if said_as:
                sentence = f"I'm {said_as}{sentence[bare_title.end('title') :]}"
        # "last jenkins box got switched off on friday": who turned it off is the user's side
        sentence = _TURNED_OFF.sub(
            lambda m: (
                f"{'we' if self.work_context else 'I'} switched off the {m.group('x')} {m.group('what')}"
            ),
            sentence,
        )
        # "I am writing on behalf of my mother, who is eighty-one and lives alone in Bournemouth":
        # who the writing is for, and what is said of them
        sentence = _ON_BEHALF_OF.sub(lambda m: f"{m.group('whom')} ", sentence)
        sentence = _LIVE_IN_ALL_DAY.sub(
            lambda m: f"{_SPEND[m.group('verb').lower()]} {m.group('when')} in {m.group('what')}", sentence
        )
        # "we bit the bullet, the whole office is on Revit 2024 now": the decision's words say
        # nothing the statement after them does not
        # (its "we" stays with a verb it shares: "we caved and moved the office over to Revit")
        sentence = (
            _DECIDED_LEAD_IN.sub(
                lambda m: f"{m.group('who')} " if m.group("who") and m.group("and") else "", sentence
            )
            or sentence
        )
        introduced = _INTRODUCED_HERE.match(sentence)
        if not language and introduced and introduced.group("rest") and _as_a_title(introduced.group("who")):
            # "sous chef here, need to plan a brunch menu ...": who is writing, then the rest read
            # on its own
            aside = f" ({introduced.group('aside')})" if introduced.group("aside") else ""
            self._sentence(introduced.group("who") + " here" + aside, index)
            self._sentence(introduced.group("rest"), index)
            return
        if not language:  # a translation's fragments are read as its sentence is (below)
            sentence = _descriptions_as_statements(sentence)
            sentence = _THERE_ARE_OURS.sub(
                lambda m: f"{m.group('lead')}I have {m.group('n')} {m.group('what')}", sentence
            )
        run_on = _NOW_THAT_RUN_ON.match(sentence)
        if run_on is not None:
            # "now that I'm associate prof they've put me on the hiring committee": what holds
            # now, then what followed from it, run on without a comma: each read on its own
            self._sentence(f"{run_on.group('held')} now", index)
            self._sentence(sentence[run_on.start("next") :], index)
            return
        if not sentence:
            return
        if not language and self._listed_sums(sentence, index):
            return
        unmarked = _UNMARKED_QUESTION.search(sentence)
        if unmarked is not None and not sentence.endswith("?"):
            # "I get the Line 1 from Finch, it's packed, what time should I leave": a question
            # asked without its mark, read as one asked with it
            sentence = sentence.rstrip(" .!") + "?"
            original = original.rstrip(" .!") + "?"
        asked = sentence
        if sentence.endswith("?"):
            # "I just moved to Denver, any tips?": the statement before the question stays
            head = re.split(r",\s+(?=[^,]*\?$)", sentence)
            if len(head) < 2 or headed:  # "My question: for the export to the US, do we need ...?"
                self._embedded(sentence, index)
                return
            sentence = head[0]
        swapped = _OUT_IN.match(sentence)
        if swapped is not None:
            # "QuickBooks is out, Xero's in": a switch, said as the old thing gone and the new one come
            self._keep(
                f"User switched from {swapped.group('old')} to {swapped.group('new')}",
                (index,),
                self._sentence_quote(),
            )
            sentence = sentence[swapped.end() :].strip(" ,;:.!")
            if not sentence:
                return
        if (
            _DROPPED_I.match(sentence)
            and not asked.rstrip().endswith("?")
            and "," not in sentence
            and not _ADDRESSED.search(sentence)
        ):
            # "Did two splits last week so I'm running six colonies now.": a statement that drops
            # its "I", not a question (no question mark, nobody asked)
            asked = sentence = "I " + sentence[0].lower() + sentence[1:]
        if (
            _QUESTION_START.match(sentence)
            and not _REQUEST.match(sentence)
            and not asked.rstrip().endswith("?")
        ):
            # "where did the time go, Ava turned 4 in august!!": a question said as an
            # exclamation; what follows its comma is a statement
            exclaimed, *rest = re.split(r",\s+", sentence, maxsplit=1)
            if rest:
                self._named_relatives(exclaimed)
                self._embedded(exclaimed, index)
                self._sentence(rest[0], index)
                return
        if _QUESTION_START.match(sentence) or _REQUEST.match(sentence) or _NOT_A_FACT.match(sentence):
            self._embedded(asked, index)
            request, *tail = _STATEMENT_AFTER_COMMA.split(sentence, maxsplit=1)
            self._named_relatives(request)
            if _REQUEST.match(sentence) and not sentence.endswith("?") and tail:
                # "can you help me plan a trip to see my sister, she lives in Graz": a statement
                # after the request is the user's, read on its own
                self._sentence(tail[0], index)
            elif (
                _NEED_ASKED.match(sentence)
                and _DETAILS_AFTER_COMMA.search(sentence)
                and not original.rstrip().endswith("?")
            ):
                # "need a poster for our summer concert, 14 June 7pm at Llandaff Cathedral": what is
                # asked for is no fact, but the details given with it are the user's; kept as said
                said = " ".join(original.split()).rstrip(" ,;:")
                self._keep(f"{SAID}{said}"[:MAX_CONTENT_CHARS], (index,), self._sentence_quote(), VERBATIM)
            if not _NOT_A_FACT.match(sentence):
                return
        before = len(self.found)
        self.corrected_before = False
        skipped = False
        others_hedged: list[str] = []  # someone else's hedge: "he wants to play drums now"
        unread: list[str] = []  # clauses the rules could not read that give a value
        stated_unread: list[str] = []  # statements before a hedge the rules could not read
        # (not beside someone of the family, whose doing it may be, as with a clause's tail)
        said_as_i = bool(_SAID_AS_I.match(sentence.strip())) and not _FAMILY.search(sentence)
        for part in _CORRECTION_SPLIT.split(sentence):
            for position, clause in enumerate(_clauses(part)):
                deadline.check()
                if position and said_as_i and _DOING_WITHOUT_I.match(clause.strip()):
                    # "I'm a pharmacist at Boots, renting a flat in Clarendon Park": what the user
                    # is doing, said after their own statement without its "I'm"
                    clause = f"I'm {clause.strip()}"
                others = _hedged_by_someone_else(clause)
                if others:
                    others_hedged.extend(others)
                    clause = _without(clause, others)
                outcome = self._clause(clause, index)
                stated = _statement_before_hedge(clause) if outcome == "skipped" else None
                if (
                    stated is not None
                    and self._clause(stated, index) == "none"
                    and self._verbatim_worthy(stated, stated)
                ):
                    # the statement is kept though the hedge after it is not (and no memory
                    # of the whole sentence is: it would say the hedge too)
                    stated_unread.append(stated)
                if outcome == "skipped" and _NOT_A_FACT.match(_PLEASANTRY.sub("", clause).strip()):
                    continue  # "and I love it": said about the conversation or in passing, no mood of the rest
                if outcome == "skipped" and _SO_HEDGED.match(clause.strip()):
                    # "Ren turned five, so maybe something for him too": what the user may do
                    # about it, not the mood of what they said
                    others_hedged.append(clause)
                    continue
                skipped = skipped or outcome == "skipped"
                if outcome == "none" and (
                    _states_a_value(clause)
                    or _PERSON_ACTS.match(clause.strip())
                    # translated, a clause the rules could not read is as likely a statement
                    # ("trabalho com react native numa fintech"): the sentence is kept as said
                    or (language and _word_count(clause) >= 3 and not _filtered(clause))
                ):
                    unread.append(clause)
        self._switch_said_in_two(sentence, before)
        total = _MAKES_N.search(sentence)
        if total and total.group("noun").lower() not in _NOT_COUNTED:
            # "... a baby boy, which makes six grandchildren in all": the count it comes to
            self._keep(f"User has {total.group('n')} {total.group('noun')}", (index,), self._sentence_quote())
        # A question is never kept, even after a statement: then the statement alone is (in the
        # user's words when it was translated).
        said = sentence if original.rstrip().endswith("?") and not language else _before_question(original)
        if others_hedged and not skipped:
            # the statement without what someone else only wants or plans
            said, sentence = _without(said, others_hedged), _without(sentence, others_hedged)
        for stated in stated_unread:
            stated = " ".join(stated.split()).strip(" ,;:")
            self._keep(f"{SAID}{stated}"[:MAX_CONTENT_CHARS], (index,), self._clause_quote(stated), VERBATIM)
        if len(self.found) == before:
            if self.corrected_before:
                return  # it corrected a fact of an earlier sentence: nothing of it is unread
            if not skipped and self._verbatim_worthy(said, sentence):
                said = " ".join(said.split()).rstrip(" ,;:")
                self._keep(f"{SAID}{said}"[:MAX_CONTENT_CHARS], (index,), self._sentence_quote(), VERBATIM)
            return
        # The rules read some of it: a clause they left that gives a value is kept as said, on
        # its own ("made the move!! denver now, ..."), so the clauses they read are not kept twice;
        # never beside a clause that was a hedge, a hypothetical or a question, whose mood the
        # clause may share.
        if skipped:
            return
        if language:
            # A fact the phrase table left half in the user's language ("User has zelf last of
            # their onderrug") says neither what they said nor what it means; nor does a clause
            # of the translation the rules could not read, nor a clause of it kept "as said" in
            # the translation's words: the sentence is kept as said, in the user's, instead.
            if unread or any(
                f.method == VERBATIM or untranslated(f.content, original) for f in self.found[before:]
            ):
                # one memory of the sentence: what the rules read of it beside it would be a
                # second, and a later change retires only one of the two
                del self.found[before:]
                said = " ".join(_before_question(original).split()).rstrip(" ,;:")
                self._keep(f"{SAID}{said}"[:MAX_CONTENT_CHARS], (index,), self._sentence_quote(), VERBATIM)
            return
        for clause in unread:
            clause = " ".join(clause.split()).strip(" ,;:")
            if not _filtered(clause) and not _NOT_A_FACT.match(clause) and not _CORRECTION.match(clause):
                self._keep(
                    f"{SAID}{clause}"[:MAX_CONTENT_CHARS], (index,), self._clause_quote(clause), VERBATIM
                )

    def _switch_said_in_two(self, sentence: str, before: int) -> None:
        """ "we finally ditched jira, been on linear since feb": the thing left and the thing now
        used, said apart, are one switch. The fact that names the thing left becomes "User's
        team switched from Jira to Linear" (the statement of the new one stays as it is)."""
        for position in range(before, len(self.found)):
            found = self.found[position]
            left = _LEFT_THING.match(found.content)
            if left is None:
                continue
            old = _what_was_left(left)
            at = sentence.lower().find(old.lower())
            now = _NOW_ON.search(sentence, at + len(old)) if at >= 0 else None
            new = _what_is_on_now(now) if now else ""
            if not new or new.lower() == old.lower():
                continue
            self._as_switch(position, left, old, new)
            return

    def _switch_said_apart(self, sentences: list[str], first: int) -> None:
        """ "Not in Berlin any more. We're in Lisbon since May.": the thing left in one sentence
        and the one now in a later statement of the user's own, in one message, are one switch
        as well. Only a statement that opens with the user ("I'm", "we've been", "moved"): "my
        sister is in Paris" is hers."""
        for position in range(first, len(self.found)):
            left = _LEFT_THING.match(self.found[position].content)
            if left is None:
                continue
            old = _what_was_left(left)
            at = next((i for i, said in enumerate(sentences) if old.lower() in said.lower()), None)
            if at is None:
                continue
            for said in sentences[at + 1 :]:
                # the first word's capital is the sentence's, not a name's
                # or all of what the user runs: "everything's on GHA now"
                opens = _OPENS_WITH_THE_USER.match(said) or _ALL_OF_IT.match(said)
                now = _NOW_ON.search(said[:1].lower() + said[1:]) if opens else None
                new = _what_is_on_now(now) if now else ""
                if new and new.lower() != old.lower():
                    self._as_switch(position, left, old, new)
                    return

    def switches_across_messages(self) -> None:
        """ "so I'm not in Berlin any more" ... (the agent asks where) ... "Lisbon. Alfama, tiny
        flat": a thing left in one message and, in a later message of the conversation, the one
        of the same kind the same subject now has are one switch too. The kind must agree: a
        place left with a place now, an employer with an employer, a tool with a tool."""
        for position, found in enumerate(self.found):
            left = _LEFT_THING.match(found.content)
            if left is None:
                continue
            kind = "place" if left.group("place") else "job" if left.group("job") else "tool"
            old = _what_was_left(left)
            said = found.message_indexes[-1] if found.message_indexes else -1
            for later in self.found[position + 1 :]:
                if not later.message_indexes or min(later.message_indexes) < said:
                    continue
                # the same message as well: its sentences were read as one (`_switch_said_apart`),
                # and what they left apart ("left Stripe in January ... I'm now a senior PM at
                # Intercom") its facts still join
                now = _NOW_HELD[kind].match(later.content)
                if now is None or now.group("s") != left.group("s") or now.group("y").lower() == old.lower():
                    continue
                self._as_switch(position, left, old, now.group("y"))
                joined = self.found[position]
                self.found[position] = Found(
                    joined.content,
                    tuple(sorted({*joined.message_indexes, *later.message_indexes})),
                    joined.quote,
                    joined.method,
                )
                # "User is in Portland" says nothing the switch does not: kept, it would be a
                # second current memory of one fact, which the request never compares with the
                # first (a request never supersedes what it wrote). More said stays.
                if not now.groupdict().get("title") and _NOTHING_MORE.fullmatch(later.content[now.end() :]):
                    self.found.remove(later)
                break

    def _gone_said_apart(self, sentences: list[str], first: int) -> None:
        """ "I moved everything to Bitwarden. LastPass is gone, subscription cancelled.": a
        thing said to be gone and, in another sentence of the user's own in the same message
        (before it or after), the one now used, both known things of one kind (two password
        managers, two databases), are one switch. The kinds decide: "Priya is gone" names no
        thing, and "moved to Leeds" is no password manager."""
        from aurra_core.text_analysis.kinds import kinds_of

        for position in range(first, len(self.found)):
            gone = _GONE.match(self.found[position].content)
            if gone is None:
                continue
            old = gone.group("x")
            kinds = kinds_of(old) - _NOT_THINGS
            if not kinds:
                continue
            for said in sentences:
                if old.lower() in said.lower() or not (
                    _OPENS_WITH_THE_USER.match(said) or _ALL_OF_IT.match(said)
                ):
                    continue
                now = _NOW_ON.search(said[:1].lower() + said[1:])
                new = _what_is_on_now(now) if now else ""
                if new and kinds_of(new) & kinds:
                    found = self.found[position]
                    self.found[position] = Found(
                        f"User switched from {old} to {new}", found.message_indexes, found.quote, RULES
                    )
                    break

    def _as_switch(self, position: int, left: re.Match[str], old: str, new: str) -> None:
        found = self.found[position]
        if left.group("place"):
            changed = f"moved from {old} to {new}"  # "not in Berlin any more, I'm in Lisbon"
        elif left.group("job"):
            changed = f"left {old} for {new}"  # "not at Flipkart anymore, joined Swiggy"
        else:
            changed = f"switched from {old} to {new}"
        when = left.group("when") or ""  # "left Stripe in January": when stays with the switch
        self.found[position] = Found(
            f"{left.group('s')} {changed}{when}", found.message_indexes, found.quote, found.method
        )

    def _named_relatives(self, text: str) -> None:
        """Remember the user's relatives `text` names, for a "she" or "he" after it."""
        for named in (*_RELATIVE.finditer(text), *_RELATIVE_BARE.finditer(text)):
            relation = named.group("rel").lower()
            gender = "she" if relation in _SHE else "he"
            self.relatives.setdefault(gender, set()).add(f"my {relation}")
        # "MARCO GOT HEAD CHEF": the boyfriend the user's memories name Marco
        for word in re.findall(r"[a-z]+", text.lower()):
            whom = self.known_names.get(word)
            if whom is not None:
                relation = whom.removeprefix("my ")
                self.relatives.setdefault("she" if relation in _SHE else "he", set()).add(whom)

    def _resolved(self, text: str) -> str:
        """`text` with the "she", "he", "his" or "her" that opens it as whom it stands for: the
        one relative of that gender the conversation named before it ("my mother ... my sister
        ... she" is no one), or else, when the conversation names no one else before it, the
        one the user's memories name ("she's in linz" -> "my sister is in linz"). A name that
        opens it, which the user's memories give one of their relatives, is that relative's."""
        pronoun = _PRONOUN_START.match(text)
        if pronoun is None:
            # "Marco got head chef": the boyfriend the user's memories name Marco
            first = re.match(r"(?P<name>[A-Za-z]+)\b(?!'|\s+(?:and|&)\s+(?:I|me)\b)", text)
            whom = self.known_names.get(first.group("name").lower()) if first else None
            return f"{whom} {text}" if whom is not None else text
        said = pronoun.group("pronoun").lower()
        gender = _POSSESSIVE.get(said, said)
        named = self.relatives.get(gender, set())
        if not named and not self._someone_else_before(text):
            named = self.known.get(gender, set())
        if len(named) != 1:
            return text
        whom, rest = next(iter(named)), text[pronoun.end() :]
        if said in _POSSESSIVE:
            whom += "'s"
        elif rest.startswith("'s "):
            rest = (" has " if _HAS_AFTER.match(rest[3:]) else " is ") + rest[3:]
        elif rest.startswith(("'d ", "'ll ")):  # "she'd love a cooking class": not "sister'd"
            rest = (" would " if rest.startswith("'d") else " will ") + rest.split(" ", 1)[1]
        return f"{pronoun.group('lead') or ''}{whom}{rest}"

    def _there_resolved(self, clause: str) -> str:
        """`clause` with the "there" it ends on as the place its sentence named before it: "new
        job's in canary wharf so I switched to the PureGym there" -> "I switched to the PureGym in
        canary wharf". As said when the sentence names no place before it, or more than one."""
        there = _THERE_AT_END.match(clause)
        if there is None:
            return clause
        start, end = self.sentence_span
        at = self.normalized.find(clause[:20], start, end)
        before = self.normalized[start : at if at >= 0 else start]
        places = {
            m.group("place")
            for m in (*_PLACE_SAID.finditer(before), *_PLACE_SAID_LOWER.finditer(before))
            if m.group("place").split()[0].lower() not in _NO_PLACE_THERE | _TIME_NAMES
        }
        if len(places) != 1:
            return clause
        return f"{there.group('body')} in {places.pop()}{there.group('tail')}"

    def _someone_else_before(self, clause: str) -> bool:
        """Whether the user's words before `clause` name anyone its "she" or "he" may be."""
        start, end = self.sentence_span
        at = self.normalized.find(clause[:20], start, end)
        before = self.normalized[: at if at >= 0 else start]
        return _names_someone_else(self.read_before + before)

    def _embedded(self, sentence: str, index: int) -> None:
        """The statement a question or a request gives as its reason: "help me budget now that
        my rent is $1,600", "can you update it since we're 12 now?"."""
        found = _EMBEDDED.search(sentence)
        if found is not None and not _filtered(found.group(1).rstrip("?")):
            self._clause(found.group(1).rstrip(" ?.!"), index)
        # "how do i stop my iPhone 15 suggesting contacts?": a named thing of theirs, asked about
        owned = _OWNED_MODEL.search(sentence)
        if owned is not None and _is_a_named_model(owned.group("thing")):
            thing = owned.group("thing")
            self._keep(f"User has {_article(thing)} {thing}", (index,), self._clause_quote(owned.group(0)))
        # "how do i share a login with hana in bitwarden?": the tool the user works in, asked about
        used = _WORKS_IN.search(sentence)
        if used is not None and _is_software(used.group("thing")):
            # "we" at work is the user's team ("how can we track sprints in Jira")
            ours = used.group(0).lower().split()[2] == "we" and self.work_context
            who = f"User's {self.group}" if ours else "User"
            self._keep(f"{who} uses {used.group('thing')}", (index,), self._clause_quote(used.group(0)))

    def _verbatim_worthy(self, original: str, sentence: str) -> bool:
        """A statement about the user's life the rules could not rewrite: a first-person word or
        a value in it (users drop the "I" and the "my": "gym at 6am every weekday", "down to 17
        from 22"), three words or more, and nothing that is never kept."""
        if _word_count(original) < 3 or not (
            _FIRST_PERSON_WORDS.search(original)
            or _VALUE.search(sentence)
            or _states_now(sentence)
            or _PERSON_ACTS.match(sentence)
            or _WORLD_STATE.search(sentence)
        ):
            return False
        # after a correction's words the sentence is the correction's; after "actually" or
        # "well" alone, a statement of its own ("Actually, it's March 14 now"), kept when no
        # earlier fact took it. A "no" answers something, most often the assistant.
        marker = _CORRECTION.match(sentence)
        answered_or_corrected = marker and (
            _STRONG_CORRECTION.search(marker.group(0))
            or re.search(r"(?i)\b(?:no|nope|nah)\b", marker.group(0))
        )
        if _filtered(sentence) or _NOT_A_FACT.match(sentence) or answered_or_corrected:
            return False
        return not re.match(r"^(?:I|we)\s*(?:'re|'m| am| are)?\s*(?:\w+\s*)?$", sentence, re.IGNORECASE)

    def _clause(self, clause: str, index: int) -> str:
        clause = clause.strip().strip(",;:")
        if not clause:
            return "empty"
        clause = self._there_resolved(self._resolved(clause))
        self._named_relatives(clause)  # after its own "she": "she moved nearer to my sister"
        marker = _CORRECTION.match(clause)
        owned = self._owned_mistake(clause[marker.end() :] if marker else clause, index)
        if owned is not None:
            return owned
        value_said = _VALUE_SAID.search(clause) if self.correcting and not marker else None
        if value_said and self._correction(value_said.group(1), index, value_first=True) == "fact":
            self.correcting = False
            return "fact"
        if self.correcting and not marker and self._restates_the_last_fact(clause):
            # "Scratch that, we use Linear": the statement after a correction said alone
            # replaces the last fact when it is of the same subject and gives a value of its kind
            self.correcting = False
            return self._correction(clause, index)
        anew = _VALUE_SAID.match(clause[marker.end() :].strip()) if marker else None
        if (
            marker
            and anew
            and self._last_was_read()
            and self._correction(anew.group(1), index, value_first=True) == "fact"
        ):
            # "My rent is 1200 a month. Actually it's 1250": a value said anew, of the last fact's
            # kind, after "actually"
            return "fact"
        if marker and _STRONG_CORRECTION.search(marker.group(0)):
            if not (self.answering and _BARE_NO.match(marker.group(0))):
                return self._correction(clause[marker.end() :].strip(), index)
            # "Are you keeping the Civic?" -> "nope, the Hilux only": an answer, not a correction
            clause = clause[marker.end() :].strip()
            if not clause:
                return "skipped"
        if _filtered(clause):
            return "skipped"
        # "next up read replicas, where do I start": a question after a comma is not read as a
        # statement ("User starts")
        parts = _COMMA_OUTSIDE_BRACKETS.split(clause)
        asked = next((i for i, part in enumerate(parts) if i and _ASKED.match(part.strip())), None)
        stated = ", ".join(parts[:asked]) if asked else clause
        fact = _rewrite(stated, self.group, self.work_context)
        if fact is None and not re.match(r"^(?:I|I'm|I've|my|our|we|we're|we've)\b", stated, re.IGNORECASE):
            inner = _inner_statement(stated)
            if inner is not None and not _filtered(inner):
                fact = _rewrite(inner, self.group, self.work_context)
        if fact == "":
            return "skipped"
        if fact is None and asked:
            # "She's a nurse now in Orlando, can you believe it": the statement kept as said,
            # without the question
            if not self._verbatim_worthy(stated, stated) or _NOT_A_FACT.match(stated):
                return "skipped"
            said = " ".join(stated.split()).strip(" ,;:")
            self._keep(f"{SAID}{said}"[:MAX_CONTENT_CHARS], (index,), self._clause_quote(stated), VERBATIM)
            return "fact"
        if fact is None:
            return "skipped" if _NOT_A_FACT.match(_PLEASANTRY.sub("", clause).strip()) else "none"
        quote = self._clause_quote(clause)
        tail = _cut_tail(clause)
        if (
            tail
            and _gives_a_value(tail)
            # "..., company moved us to King's Cross"; "I switched jobs, senior UX designer at
            # Klarna": what the change named no value of is said after it
            and (_CHANGED_TAIL.search(tail) or _CHANGE_WITHOUT_VALUE.search(fact))
            and not _filtered(tail)
            # "got off Jira, moved to Linear": one switch, below
            and not (_LEFT_THING.match(fact) and _NOW_ON.search(tail))
        ):
            # the rewrite keeps its own statement and drops a change said after it: the clause
            # is kept as said, whole, so that neither part is lost or stands without the other
            said = " ".join(clause.split()).strip(" ,;:")
            self._keep(f"{SAID}{said}"[:MAX_CONTENT_CHARS], (index,), quote, VERBATIM)
            return "fact"
        pet = re.match(r"^User's (dog|cat|puppy|kitten|rabbit|hamster|parrot|horse) ([A-Z][\w-]+) \w", fact)
        if pet:  # "my cat Mochi is the only coworker I need": the user has a cat named Mochi
            self._keep(f"User has a {pet.group(1)} named {pet.group(2)}", (index,), quote)
        for part in _split_subject(fact):
            self._keep(part, (index,), quote)
        # "I read the wrong line on the booking, TP1347 is 6:40 not 7:40": a statement of its own
        # after the one read, which the rewrite left out: read, or kept as said. When the tail is
        # not one, each of its parts that gives a number may be ("same title but at a fintech,
        # base is $91,000"); one without is as often a remark on the place or thing just named
        # ("traffic in Joburg is insane")
        if tail and not self._tail_kept(tail, clause, index):
            for part in _COMMA_OUTSIDE_BRACKETS.split(tail)[1:]:
                if re.search(r"\d", part):
                    self._tail_kept(part, clause, index)
        return "fact"

    def _tail_kept(self, tail: str, clause: str, index: int) -> bool:
        """Whether the tail of a clause read is a statement of its own, kept (read, or as said)."""
        tail = _LEADING_LINK.sub("", tail.strip(" ,;:."))
        bare = _BARE_SUM.match(tail)
        if (
            bare is not None
            and _SAID_AS_I.match(clause.strip())
            and (not bare.group("priced") or bare.group("currency") or bare.group("period"))
        ):
            # "I'm a freelance motion designer in Manchester, day rate £400": a sum of the
            # user's own after their statement, its "my" and "is" left out
            self._keep(
                f"User's {bare.group('what').lower()} is {bare.group('sum')}",
                (index,),
                self._clause_quote(tail),
            )
            return True
        doing = bool(_DOING_WITHOUT_I.match(tail) and not _FAMILY.search(clause))
        if doing:
            tail = f"I'm {tail}"  # "My flight's on june 12, staying 5 nights": the user is
        own = (
            _gives_a_value(tail)
            and (
                _OWN_STATEMENT.match(tail)
                or doing
                # a change's tail is as often why it changed ("Sundays got too tight with church"),
                # which names the old value; one that gives a number is news of its own ("A1c came
                # back 6.4")
                or (
                    _STANDS_ALONE.match(tail)
                    and (not CHANGE.search(clause) or re.search(r"\d", tail))
                    and not _REQUEST.match(tail)
                )
            )
            and not _filtered(tail)
            and not _NOT_A_FACT.match(tail)
        )
        if not own:
            return False
        if self._clause(tail, index) == "none":
            said = " ".join(tail.split()).strip(" ,;:")
            self._keep(f"{SAID}{said}"[:MAX_CONTENT_CHARS], (index,), self._clause_quote(tail), VERBATIM)
        return True

    def taken_back(self, text: str, index: int) -> None:
        """ "Ah sorry, I mistake. Momo is 4 years old, not 3": a value the user takes back in a
        later message was never true. A fact of an earlier message that says it, and says
        something else the correcting sentence says too ("years old"), is not kept."""
        if not re.search(r"\snot\s", text):
            return  # no value taken back: the message is not split again
        for sentence in _sentences(text):
            for back in _TAKEN_BACK.finditer(sentence):
                before, value = back.group("before"), back.group("value")
                if not back.group("comma") and not (before[0].isupper() or before[0].isdigit()):
                    continue  # "I'm not Sam's boss": no value said before it
                context = set(content_terms(sentence[: back.start()])) - set(content_terms(value))
                said_value = re.compile(rf"(?<![\w.:,]){re.escape(value)}(?![\w:]|[.,]\d)")
                self.found = [
                    fact
                    for fact in self.found
                    if index in fact.message_indexes  # its own message's corrections are read as it is
                    or not said_value.search(fact.content)
                    or not context & set(content_terms(fact.content))
                ]

    def _last_was_read(self) -> bool:
        """The last fact found was read by the rules, not kept as said: a statement whose value
        a correction can replace."""
        return bool(self.found) and self.found[-1].method != VERBATIM

    def _restates_the_last_fact(self, clause: str) -> bool:
        """The clause says what the last fact found says, of the same subject, with a value of
        a kind that fact holds ("we use Linear" of "User's team uses Jira"; not "my gym class is
        at 6pm" of "User's standup is at 9:15")."""
        if not self._last_was_read() or corrected(self.found[-1].content, clause) is None:
            return False
        statement = _rewrite(clause, self.group, self.work_context)
        return statement is not None and statement.split()[:2] == self.found[-1].content.split()[:2]

    def _owned_mistake(self, clause: str, index: int) -> str | None:
        """ "I gave you a wrong number, the car payment is 398 not 389", "i had it wrong, her
        birthday's May 21 not the 12th": what follows the user's owning a mistake is the right
        value, read as a correction, or kept as said when the rules cannot read it. None when the
        clause owns no mistake."""
        owned = _OWNED_MISTAKE.match(clause.strip())
        if owned is None:
            return None
        rest = clause.strip()[owned.end() :].strip(" ,;:.-")
        if not rest:
            self.correcting = bool(self.found)
            return "skipped"
        anew = _VALUE_SAID.match(rest)
        if (
            anew
            and self._last_was_read()
            and self._correction(anew.group(1), index, value_first=True) == "fact"
        ):
            return "fact"  # "My rent is 1200. Sorry, I gave you the wrong figure: it's 1250"
        if self._taken_back_in_place(rest, index):
            return "fact"
        outcome = self._correction(rest, index)
        if outcome != "skipped":
            return outcome
        if _filtered(rest) or not _states_a_value(rest):
            return "skipped"
        said = " ".join(rest.split())
        self._keep(f"{SAID}{said}"[:MAX_CONTENT_CHARS], (index,), self._clause_quote(rest), VERBATIM)
        return "fact"

    def _taken_back_in_place(self, rest: str, index: int) -> bool:
        """ "our team grew to 9 engineers, and my sister moved to Linz. Oh wait, I gave you the
        wrong number, it's 10 engineers not 9": the value taken back names the fact it corrects,
        the latest one that says it, whichever fact was read last."""
        taken_back = _NOT_THAT_VALUE.search(rest)
        if taken_back is None:
            return False
        value = re.escape(taken_back.group(1))
        for position in range(len(self.found) - 1, -1, -1):
            fact = self.found[position]
            if not re.search(rf"(?<![\w.]){value}(?![\w.])", fact.content, re.IGNORECASE):
                continue
            fixed = corrected(fact.content, rest)
            if fixed is None:
                return False
            self.found[position] = Found(
                fixed, tuple(sorted({*fact.message_indexes, index})), self._clause_quote(rest), fact.method
            )
            self.corrected_before = True
            return True
        return False

    def _correction(self, rest: str, index: int, value_first: bool = False) -> str:
        """A correction: its statement replaces the last fact, or its values go in place of
        the last fact's own (the fact then comes from both messages, its quote the
        correction's). `value_first`: the value came after an aside ("no wait, I look in the
        letter: it is 11 o'clock"), so it goes in place of the last fact's before any statement
        of the aside is read."""
        rest = _PLEASANTRY.sub("", rest).strip()
        if not rest:
            self.correcting = bool(self.found)
            return "skipped"
        last = self.found[-1] if self.found else None
        if value_first:
            fixed = corrected(last.content, rest) if last is not None else None
            if last is None or fixed is None:
                return "none"  # no value of the last fact's kind: the clause is read as said
            self.found[-1] = Found(
                fixed, tuple(sorted({*last.message_indexes, index})), self._clause_quote(rest), last.method
            )
            self.corrected_before = True
            return "fact"
        statement = None if _filtered(rest) else (_rewrite(rest, self.group, self.work_context) or None)
        quote = self._clause_quote(rest)
        if statement is not None and not re.search(r"\b(?:also|too|as well)\b", rest, re.IGNORECASE):
            if last is not None and corrected(last.content, rest) is not None:
                self.found.pop()
                self.corrected_before = True
            self._keep(statement, (index,), quote)
            return "fact"
        if last is not None:
            # "I meant Braga, Porto is where I work": the value is what comes first
            value = rest.split(",")[0].strip()
            # "sorry, Makati Med": a name that starts the correction is the value, whole, not a
            # capital letter; else it is tried last
            named_first = value[:1].isupper()
            fixed = (
                (corrected(last.content, f"it's {value}") if named_first else None)
                or corrected(last.content, rest)
                or _taken_back(last.content, rest)
                or (corrected(last.content, f"it's {value}") if value != rest and not named_first else None)
            )
            if fixed is not None:
                self.found[-1] = Found(
                    fixed, tuple(sorted({*last.message_indexes, index})), quote or last.quote, last.method
                )
                self.corrected_before = True
                return "fact"
        return "skipped"


# "I'm now training for the Royal Parks half and want to meal prep on sundays", "we ditched
# British Gas, been on Octopus since December so the smart meter should work now": a statement,
# then a conjunction and a hedge of its own. The hedge's mood does not reach back over it.
_CONJUNCTION = re.compile(r"\s+(?:and|so|but|though|although)\s+", re.IGNORECASE)
# What ends a plan said after a statement ("..., and maybe", "... but who knows"): a hedge
# of the whole, not a clause of its own.
_HEDGE_OF_THE_WHOLE = re.compile(
    r"(?:^|,\s*)(?:maybe|perhaps|probably|possibly|not sure|who knows|we'll see|hopefully|fingers crossed|"
    r"I (?:think|guess|suppose|hope)|or (?:maybe )?not)\W*$",
    re.IGNORECASE,
)


_WEIGHED = re.compile(
    r"\b(?:plan|plans|idea|goal|looking at|looked at|eyeing|option|options)\b", re.IGNORECASE
)


def _statement_before_hedge(clause: str) -> str | None:
    """The statement before the conjunction that opens a clause's hedge, when there is one of
    three words or more that is no hedge, question or request itself; else None."""
    text = clause.strip()
    if text.endswith("?") or _QUESTION_START.match(text) or _REQUEST.match(text):
        return None
    starts = [
        m.start() for m in (_HEDGE.search(text), _HYPOTHETICAL.search(text), _GUESSED_PLAN.search(text)) if m
    ]
    if not starts:
        return None
    conjunctions = list(_CONJUNCTION.finditer(text, 0, min(starts)))
    if not conjunctions:
        return None
    head, rest = text[: conjunctions[-1].start()], text[conjunctions[-1].end() :]
    if _word_count(head) < 3 or _filtered(head) or _HEDGE_OF_THE_WHOLE.search(rest.strip()):
        return None
    # "plan is to drop down for 4-6 weeks and see", "we were looking at lisbon but now maybe":
    # a plan or an option weighed is no statement of how things are, before a hedge or not
    return None if _WEIGHED.search(head) else head


def _before_question(said: str) -> str:
    """The statement before a question that ends the sentence ("trabajo en X, which ones are
    worth it?" -> "trabajo en X"); the sentence itself when it asks nothing."""
    return re.split(r",\s+(?=[^,]*\?\s*$)", said)[0] if said.rstrip().endswith("?") else said


def facts_of(text: str) -> list[str]:
    """The third-person facts of one user message, in order (verbatim ones as said)."""
    reader = _Reader()
    reader.read(text, 0)
    return [f.content for f in reader.found]


def found_in(messages: list[Message], relations: Collection[tuple[str, str]] = ()) -> list[Found]:
    """The facts of a conversation's user messages, in order, corrections applied. `relations`:
    whom of the user's their memories name, for a "she" or "he" the conversation does not
    explain."""
    reader = _Reader(relations)
    for index, message in enumerate(messages):
        if message.role == Role.ASSISTANT:
            reader.heard(message.content, index)  # never a fact: only the frame of the reply to it
            continue
        if message.role != Role.USER:
            continue  # the system's words are not the user's facts
        reader.read(message.content, index)
        reader.taken_back(message.content, index)
    reader.switches_across_messages()
    return reader.found


class RulesExtractor:
    """`limit_s`: the most one extraction may take (AURRA_EXTRACTOR_TIMEOUT_S in the service):
    the work checks its deadline as it goes (runtime/deadline.py) and stops with an
    ExtractionError once it has passed."""

    name = NAME
    # It reads a "she" or "he" by whom the user's memories name: a messages write passes them.
    reads_relations = True

    def __init__(self, limit_s: float | None = None) -> None:
        self.limit_s = limit_s

    def extract(
        self, messages: list[Message], model: str, relations: Collection[tuple[str, str]] = ()
    ) -> Extraction:
        try:
            with deadline.limited(self.limit_s):
                found = found_in(messages, relations)
        except deadline.DeadlinePassed as exc:
            raise ExtractionError("the rules extractor did not finish within its time limit") from exc
        raw = [
            {
                "content": f.content,
                "topic": _topic(f.content),
                "message_indexes": list(f.message_indexes),
                "quote": f.quote,
            }
            for f in found
        ]
        # Every fact is found; the first MAX_FACTS are kept and the rest counted as dropped.
        facts, dropped = capped(valid_facts(raw, messages))
        verbatim = {(f.content, f.message_indexes) for f in found if f.method == VERBATIM}
        return Extraction(
            facts=facts,
            extractor=NAME,
            model=MODEL_ID,
            prompt_version=PROMPT_VERSION,
            details={
                "methods": [
                    VERBATIM if (fact.content, fact.message_indexes) in verbatim else RULES for fact in facts
                ]
            },
            input_tokens=0,
            output_tokens=0,
            dropped=dropped,
        )
