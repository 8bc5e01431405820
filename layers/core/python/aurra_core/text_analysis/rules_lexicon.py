"""Word lists for the rules classifier: general English knowledge about facts on people,
accounts and things. Nothing here names a particular person, company or sentence; every list
is meant to hold for any tenant's memories.

Conventions: every entry is lower-case; multi-word phrases are matched on word boundaries
after the text has been normalised by `aurra_core.text_analysis.text.normalize`. A scan from one
word to another ("not ... anymore", "replaced ... with") looks at most 200 characters ahead
(`{1,200}?`, `.{0,200}`): unbounded, it ran to the end of the clause from every occurrence of
its first word when the second was missing, quadratic in a fact written that way
(bench/classifier_cost.py).
"""

from __future__ import annotations

from typing import Any

# ---------------------------------------------------------------------------------------------
# Words that carry no content of their own.
STOPWORDS = frozenset(
    """a an the and or but nor of to in on at for with by from as into onto over about
    is are was were be been being am has have had having do does did doing
    it its this that these those there here their theirs they them he him his she her hers
    i me my mine we us our ours you your yours one ones s
    which who whom whose what when where while so than then just very really quite
    some any all each every both either neither such same other
    will would shall should can could must
    """.split()
)

# How the principal of a tenant's memories is named: the person or account the agent serves.
PRINCIPAL_WORDS = frozenset(
    """user users customer customers client clients i me my mine myself we us our ours
    the_user the_customer""".split()
)

# Nouns that name another person (or animal) related to the subject: "User's sister" is not
# the user, so a fact about her is about a different entity.
RELATION_NOUNS = frozenset(
    """mother mom mum father dad parent parents sister brother sibling siblings son daughter
    child children kid kids baby babies wife husband spouse partner boyfriend girlfriend fiance
    fiancee ex grandmother grandma grandfather grandpa grandparent grandparents grandson
    granddaughter grandchild grandchildren aunt uncle cousin niece nephew in-law in-laws
    stepson stepdaughter stepmother stepfather friend friends neighbor neighbour neighbors
    neighbours roommate flatmate housemate colleague colleagues coworker coworkers co-worker
    teammate teammates boss assistant cofounder co-founder landlord tenant nanny manager
    doctor dentist therapist psychiatrist vet lawyer accountant coach tutor teacher mate mates
    bestie bff""".split()
)
# Words that qualify which slot of an attribute a fact is about: a work phone and a personal
# phone are two slots, each holding its own value.
SLOT_QUALIFIERS = frozenset(
    """work personal home office business private backup secondary second spare school side skip
    family joint corporate company emergency alternate alternative other weekend holiday
    vacation travel gaming guest test staging production prod dev development billing
    shipping mailing secondary""".split()
)
# Words that single out one of several things of a kind: "the other trial", "a side project".
INSTANCE_QUALIFIERS = frozenset(
    "other another side spare extra trial different legacy separate old previous former sandbox demo staging "
    "personal secondary joint".split()
)
# Things people hold several of: a word before one of these that the old fact does not have
# ("the savings account" when the old fact is about the checking account) names another one.
KIND_NOUNS = frozenset(
    """account accounts subscription subscriptions membership memberships plan plans card cards trial
    trials tier license licence key keys loan loans policy policies workspace workspaces profile
    profiles login logins handle handles mailbox inbox addon twofactor seat seats trip trips""".split()
)
# Verbs of habits that take many objects at once: "watches Netflix" and "watches YouTube these days"
# may both hold.
HABIT_VERBS = frozenset(
    "watch watches read reads listen listens play plays eat eats drink drinks wear wears visit visits "
    "follow follows buy buys cook cooks write writes use uses".split()
)
# "is down to 1 coffee a day", "up to 60 seats": a count said to have fallen or risen (numbers are
# digits after normalisation); COUNTED finds the count of the same noun in the old fact.
DOWN_OR_UP_TO = r"\b(?:down|up|back) to (?:about |around |just |only )?(?P<n>\d[\d.,]*) (?P<noun>[a-z]+)"
COUNTED = r"\b(?P<n>\d[\d.,]*) (?P<noun>[a-z]+)"
# Where a clause stops naming what ended and starts giving a reason or a new fact.
CONNECTIVE = r"\b(?:because|and|but|since|as|so|after|now|anymore|though|although|while)\b"
# A place or an occasion that narrows a fact: "on trips", "in the band", "for client work".
QUALIFYING_PHRASE = r"\b(?:on|in|at|for|during|when|with|outside|inside|except)\s+(?P<q>[\w\-\. ]+)"
# Things that belong to an account and end on their own: "the verification email expired".
ACCOUNT_PARTS = frozenset("email link password code token device app session badge certificate".split())
# What brought a change, after the value: "has three cats after fostering a kitten".
REASON_CLAUSE = r",?\s+\b(?:after|since|now that|following|once|because)\b\s+\S"
# An occasion a thing happened at, once: "drank again at the wedding", "last weekend".
EVENT_PLACE = (
    r"\b(?:at|during|for) (?:a|an|the|their|his|her|my|our) (?:\w+ )?(?:wedding|party|conference|dinner|event|"
    r"funeral|reunion|holiday|trip|game|celebration|birthday|festival|offsite)\b|\blast (?:weekend|night|week)\b"
)
# Things held with or added to another thing: ending one of these does not end what it belongs to.
ADDED_PARTS = frozenset(
    "upgrade upgrades addon add-on add-ons feature features storage bundle package extra extras".split()
)
# Slot qualifiers that, written just before a noun, single out one of several ("the work account").
QUALIFIER_ADJECTIVES = frozenset(
    "work personal corporate staging sandbox test dev backup secondary joint billing shipping mailing emergency "
    "recovery".split()
)
# Qualifiers that mean the main slot, or only announce that the value is new.
PRIMARY_QUALIFIERS = frozenset("main primary default daily usual regular current new updated only".split())

# Organisation suffixes that don't distinguish names: "Acme Corp" is "Acme".
ORG_SUFFIXES = frozenset(
    """corp corporation inc incorporated ltd llc plc gmbh co company group holdings labs lab
    project team the""".split()
)

# ---------------------------------------------------------------------------------------------
# Canonical forms. Surface word -> canonical word (applied after tokenisation, before stemming).
SYNONYMS = {
    # people
    "kids": "child",
    "kid": "child",
    "children": "child",
    "childs": "child",
    "baby": "child",
    "babies": "child",
    "toddler": "child",
    "mom": "mother",
    "mum": "mother",
    "mommy": "mother",
    "mummy": "mother",
    "mam": "mother",
    "mama": "mother",
    "dad": "father",
    "daddy": "father",
    "grandma": "grandmother",
    "gran": "grandmother",
    "granny": "grandmother",
    "nana": "grandmother",
    "grandpa": "grandfather",
    "grandad": "grandfather",
    "granddad": "grandfather",
    "hubby": "husband",
    "spouse": "partner",
    "fiance": "partner",
    "fiancee": "partner",
    "coworker": "colleague",
    "coworkers": "colleague",
    "colleagues": "colleague",
    "neighbour": "neighbor",
    # organisations and work
    "firm": "company",
    "employer": "company",
    "startup": "company",
    "org": "company",
    "organization": "company",
    "organisation": "company",
    "hq": "headquarters",
    "headquartered": "headquarters",
    "head-office": "headquarters",
    "eng": "engineering",
    "engineer": "engineer",
    "dev": "developer",
    "devs": "developer",
    "mgr": "manager",
    "sr": "senior",
    "jr": "junior",
    # contact
    "e-mail": "email",
    "cell": "phone",
    "cellphone": "phone",
    "telephone": "phone",
    "tel": "phone",
    # accounts and plans
    "tier": "plan",
    "tiers": "plan",
    "subscription": "plan",
    "subscriptions": "plan",
    "renewal": "renew",
    "renews": "renew",
    "renewing": "renew",
    "renewed": "renew",
    "deadline": "due",
    "2fa": "twofactor",
    "mfa": "twofactor",
    "2-factor": "twofactor",
    # places
    "favourite": "favorite",
    "favourites": "favorites",
    "st": "street",
    "ave": "avenue",
    "ln": "lane",
    "rd": "road",
    "blvd": "boulevard",
    "apt": "apartment",
    # things
    "film": "movie",
    "films": "movie",
    "movies": "movie",
    "automobile": "car",
    "vehicle": "car",
    "pc": "computer",
    "notebook": "laptop",
    "responses": "reply",
    "response": "reply",
    "replies": "reply",
    "answers": "reply",
    "answer": "reply",
    "coriander": "cilantro",
    # a noun for what a verb does: "rehearses on Wednesdays" / "rehearsals are on Sundays now"
    "rehearsal": "rehearse",
    "rehearsals": "rehearse",
    "everyday": "daily",
    # feelings
    "detests": "hate",
    "detest": "hate",
    "loathes": "hate",
    "loathe": "hate",
    "despises": "hate",
    "despise": "hate",
    "hates": "hate",
    "adores": "like",
    "adore": "like",
    "loves": "like",
    "love": "like",
    "enjoys": "like",
    "enjoy": "like",
    "likes": "like",
    "dislikes": "hate",
    "dislike": "hate",
    "disliked": "hate",
    # time
    "decade": "10 years",
    "decades": "10 years",
    "fortnight": "2 weeks",
    "alum": "graduate",
    "alumna": "graduate",
    "alumnus": "graduate",
    "alumni": "graduate",
    "graduated": "graduate",
    "grad": "graduate",
    "teetotal": "not drink alcohol",
    "teetotaler": "not drink alcohol",
    "teetotaller": "not drink alcohol",
    "booze": "alcohol",
    "halal": "halal",
    # units and abbreviations
    "gig": "gb",
    "gigs": "gb",
    "gigabyte": "gb",
    "gigabytes": "gb",
    "terabyte": "tb",
    "terabytes": "tb",
    "megabyte": "mb",
    "megabytes": "mb",
    "memory": "ram",
    "kilo": "kg",
    "kilos": "kg",
    "kilogram": "kg",
    "kilograms": "kg",
    "kilometer": "km",
    "kilometers": "km",
    "kilometre": "km",
    "kilometres": "km",
    "lbs": "lb",
    "hrs": "hours",
    "hr": "hour",
    "mins": "minutes",
    "min": "minute",
    "yrs": "years",
    "yr": "year",
    "approx": "about",
    "mon-fri": "weekdays",
    "k8s": "kubernetes",
    "postgresql": "postgres",
    "psql": "postgres",
    "pg": "postgres",
    "mbp": "macbook pro",
    "doctorate": "phd",
    "cycles": "bike",
    "cycling": "bike",
    "cycle": "bike",
    "biking": "bike",
    "bikes": "bike",
    "bicycle": "bike",
    "allergy": "allergic",
    "allergies": "allergic",
    "born": "birth",
    "birthday": "birth",
    "birthdate": "birth",
    "dob": "birth",
    "departs": "leaves",
    "departing": "leaving",
    "smoker": "smoking",
    "smokes": "smoking",
    "drinker": "drinking",
    "reside": "live",
    "resides": "live",
    "residing": "live",
    # what is counted, by another name: "four hives" / "seven colonies", "five students" /
    # "eight tutees"
    "colony": "hive",
    "colonies": "hive",
    "beehive": "hive",
    "beehives": "hive",
    "chicken": "hen",
    "chickens": "hen",
    "tutee": "student",
    "tutees": "student",
    "pupil": "student",
    "pupils": "student",
}

# Names of one thing written with a dot ("Fly.io"): one word each, in the normalised text and
# among a fact's names alike
JOINED_NAMES = [
    (r"\bfly\.io\b", "flyio"),
    # a CI service, not the code host it is named for; "GHA" is what its users call it
    (r"\bgha\b", "githubactions"),
    (r"\bgitlab ci\b", "gitlabci"),
    # a retirement plan's name, not 401 thousand: "bumped their 401k to 10%"
    (r"\b(40[13]) ?\(?([kb])\)?(?![\w(])", r"plan\1\2"),
]

# Phrase rewrites (regex -> replacement) applied to the normalised text before tokenising.
PHRASES = [
    # the CI service, its "GitHub" kept as a word of the fact (though not as where the code is:
    # rules_facts._class_value)
    (r"\bgithub actions\b", "github githubactions"),
    (r"\bcan ?not stand\b|\bcan't stand\b|\bcannot stand\b", "hate"),
    (r"\b(works?|working) from home\b", r"\1 remote"),
    (r"\bwfh\b", "work remote"),
    (r"\bremotely\b", "remote"),
    (r"\bfull[- ]time\b", "fulltime"),
    (r"\bpart[- ]time\b", "parttime"),
    (
        r"\b(?:has|have|had)n'?t eaten meat\b|\b(?:does|do)n'?t eat meat\b|\b(?:has|have) not eaten meat\b"
        r"|\bdoes not eat meat\b|\bnever eats meat\b|\bavoids? meat\b",
        "vegetarian",
    ),
    (r"\bplant[- ]based\b", "vegan"),
    # one cadence in two spellings: "billed monthly" / "pays every month"
    (r"\b(?:per|every|each) day\b", "daily"),
    (r"\b(?:per|every|each) week\b", "weekly"),
    (r"\b(?:per|every|each) month\b", "monthly"),
    (r"\b(?:per|every|each) year\b", "yearly"),
    (r"\bby car\b", "driving"),
    (
        r"\btwo[- ]factor(?: authentication| auth)?\b|\bmulti[- ]factor(?: authentication| auth)?\b|\b2fa\b",
        "twofactor",
    ),
    (r"\bsingle sign[- ]on\b", "sso"),
    (r"\bgenerally available\b|\bgeneral availability\b", "ga"),
    (r"\bhome base\b", "homebase"),
    (r"\bhome town\b|\bhometown\b", "hometown"),
    (r"\blast name\b|\bfamily name\b|\bmaiden name\b", "surname"),
    (r"\bfirst name\b|\bgiven name\b", "firstname"),
    (r"\btime ?zone\b|\btz\b", "timezone"),
    (r"\bphone number\b|\bcell number\b|\bmobile number\b|\bcontact number\b", "phone number"),
    (r"\be-mail\b", "email"),
    (r"\bannual contract value\b|\bacv\b", "acv"),
    (r"\bdark (?:mode|theme|themes)\b", "darkmode"),
    (r"\blight (?:mode|theme|themes)\b", "lightmode"),
    (r"\bvs ?code\b|\bvisual studio code\b", "vscode"),
    (r"\bcapture ?one\b", "captureone"),
    (r"\baffinity photo\b", "affinityphoto"),
    (r"\bnew york city\b|\bnyc\b", "new york"),
    (r"\bsan francisco\b|\bsf\b", "san francisco"),
    (r"\bpassed away\b|\bwas put down\b|\bwas put to sleep\b|\bdied\b", "died"),
    (r"\bpaid off\b|\bpaid down\b", "paidoff"),
    (r"\bon hold\b|\bpaused\b", "onhold"),
    (r"\bin a relationship\b|\bseeing someone\b", "dating"),
    (r"\bbroke up\b|\bsplit up\b|\bbroken up\b", "brokeup"),
    (r"\bturned off\b|\bswitched off\b", "disabled"),
    (r"\bturned on\b|\bswitched on\b", "enabled"),
    (r"\bgood standing\b", "goodstanding"),
    (r"\bcredit card\b", "creditcard"),
    (r"\bdebit card\b", "debitcard"),
    # ACH and a wire are two rails: "pays by ACH" -> "pays by wire transfer" is a change, not a restatement
    (r"\bbank transfer\b|\bwire transfer\b|\bwire\b", "banktransfer"),
    (r"\bapple pay\b", "applepay"),
    (r"\bgoogle pay\b", "googlepay"),
    (r"\bcar ?sharing\b", "carsharing"),
    (r"\bnet[- ]?(\d+)\b", r"net\1"),
    # a version written onto its name ("pg16", "python3.12", "node18"): the name, then the version
    (
        r"\b(pg|postgres|postgresql|python|node|php|ruby|java|ios|android|ubuntu|debian|fedora)(\d+(?:\.\d+)*)\b",
        r"\1 \2",
    ),
    (r"\bper (month|week|year)\b", r"\1ly"),
    (r"\bper day\b", "daily"),
    (r"\bper hour\b", "hourly"),
    (r"\b(?:does|do|did) not (?:like|enjoy|care for)\b|\bnot a fan of\b", "dislike"),
    (
        r"\b(gluten|dairy|sugar|debt|alcohol|meat|nut|smoke|caffeine|lactose|pork|soy|egg|carb|drug)[- ]free\b",
        r"no \1",
    ),
    (r"\bchief (?:technology|technical) officer\b", "cto"),
    (r"\bchief executive(?: officer)?\b", "ceo"),
    (r"\bchief financial officer\b", "cfo"),
    (r"\bchief operating officer\b", "coo"),
    (r"\bchief marketing officer\b", "cmo"),
    (r"\bvice president\b", "vp"),
    (r"\b(\d+)k (run|race)\b", r"\1 km \2"),
    (r"\b(dr|mr|mrs|ms|prof)\.", r"\1"),  # a title's period ends no phrase
    (r"\bdate of birth\b|\bbirth ?date\b", "birth"),
    (r"\bas of (?:today|now|right now|this (?:week|month|year|quarter))\b", "currently"),
    (r"\bfrom now on\b", "fromnowon"),
    # "coffee is non negotiable": a must, no negation of anything
    (r"\bnon[- ]?negotiable\b", "nonnegotiable"),
    # rules v6: "spicy food is not their thing anymore" dislikes spicy food
    (
        r"^(?:(?:the )?user (?:says|said) )?(?P<thing>[\w\- ]{2,40}?) (?:is|are|'s|'re) (?:not|no longer|n't) "
        r"(?:really |exactly )?(?:their|his|her|my|our|your) (?:thing|cup of tea)\b",
        r"user dislikes \g<thing>",
    ),
    (r"\bthese days\b|\bnowadays\b", "nowadays"),
    (r"\bno longer\b", "nolonger"),
    (r"\bany ?more\b", "anymore"),
    (r"\bused to\b", "usedto"),
    (r"\bhead of\b", "head"),
    (r"\bclass of (year_\d+)", r"\1"),
    (r"\b(?:is |are )?(?:based|located|residing) in\b", "lives in"),
    *JOINED_NAMES,
    (r"\bsoc ?2\b", "soc2"),
    (r"\biso ?27001\b", "iso27001"),
]

# ---------------------------------------------------------------------------------------------
# Closed classes of values. Two different members of one class in the same slot cannot both be
# the current value when the class is single-valued for that slot.
VALUE_CLASSES: dict[str, frozenset[str]] = {
    "editor": frozenset(
        """vim neovim nvim emacs vscode sublime atom intellij pycharm webstorm goland
        rider clion xcode nano notepad++ helix zed cursor eclipse netbeans""".split()
    ),
    "browser": frozenset("chrome chromium firefox safari edge brave opera vivaldi arc".split()),
    "os": frozenset(
        """windows macos osx linux ubuntu fedora debian arch mint centos rhel chromeos
        ios android ipados freebsd""".split()
    ),
    "laptop_model": frozenset(
        "macbook thinkpad xps chromebook surface zenbook spectre latitude framework".split()
    ),
    "phone_model": frozenset("iphone pixel galaxy oneplus xperia nokia moto".split()),
    "language": frozenset(
        """english spanish french german italian portuguese dutch swedish norwegian
        danish finnish polish czech russian ukrainian greek turkish arabic hebrew hindi bengali urdu
        japanese korean chinese mandarin cantonese vietnamese thai indonesian malay tagalog swahili""".split()
    ),
    "diet": frozenset("vegetarian vegan pescatarian omnivore keto paleo carnivore flexitarian".split()),
    "plan": frozenset(
        """free basic starter standard plus pro premium team business enterprise growth
        professional essentials ultimate personal family""".split()
    ),
    "billing": frozenset("monthly annual annually yearly quarterly".split()),
    "payment": frozenset(
        """visa mastercard amex discover paypal creditcard debitcard invoice invoicing
        invoiced banktransfer applepay googlepay check cheque cash venmo stripe""".split()
    ),
    "channel": frozenset("email chat phone slack text sms whatsapp teams call telegram signal".split()),
    "commute": frozenset(
        "bike bikes biking cycle cycles cycling drive drives driving walk walks walking "
        "bus train subway metro carpool scooter transit".split()
    ),
    "car_make": frozenset(
        """honda toyota tesla ford subaru bmw audi mercedes volkswagen vw nissan mazda
        hyundai kia volvo chevrolet chevy jeep lexus porsche fiat peugeot renault skoda rivian polestar""".split()
    ),
    "theme": frozenset("darkmode lightmode".split()),
    "frequency": frozenset("daily weekly monthly biweekly fortnightly hourly quarterly yearly".split()),
    "pronoun": frozenset(
        "pronouns_he pronouns_she pronouns_they pronouns_xe pronouns_ze pronouns_it".split()
    ),
    "relationship": frozenset("single dating engaged married divorced separated widowed".split()),
    "release_stage": frozenset("alpha beta ga preview launched deprecated sunset".split()),
    "deal_stage": frozenset(
        """lead prospect discovery qualification demo evaluation proposal negotiation
        customer churned""".split()
    ),
    "cloud": frozenset("aws azure gcp heroku flyio vercel netlify digitalocean".split()),
    # tools a person or a team keeps one of at a time
    "task_app": frozenset("todoist ticktick omnifocus wunderlist".split()),
    "tracker": frozenset("jira linear asana trello clickup youtrack basecamp".split()),
    "notes_app": frozenset("notion evernote obsidian onenote logseq".split()),
    "password_manager": frozenset("1password lastpass bitwarden dashlane keepass".split()),
    "code_host": frozenset("github gitlab bitbucket".split()),
    "ci": frozenset("jenkins circleci travis buildkite teamcity githubactions gitlabci".split()),
    "budget_app": frozenset("ynab quicken".split()),
    "design_app": frozenset("figma sketch penpot framer invision".split()),
    "photo_editor": frozenset("lightroom darktable luminar captureone affinityphoto".split()),
    "helpdesk": frozenset("zendesk intercom freshdesk gorgias kayako helpscout".split()),
    "site_platform": frozenset("wordpress ghost substack squarespace wix webflow hugo jekyll".split()),
    "music_app": frozenset("garageband ableton cubase reaper bitwig protools".split()),
    "cad_app": frozenset("autocad archicad revit sketchup vectorworks solidworks".split()),
    "video_app": frozenset("premiere finalcut davinci imovie capcut lumafusion".split()),
    "energy_supplier": frozenset("octopus edf eon ovo".split()),
    "meal_kit": frozenset("hellofresh gousto".split()),
}
# Classes of named tools: a switch to one is about that tool, not about whatever else the old
# fact says of the team that uses it
TOOL_CLASSES = frozenset(
    """editor browser cloud task_app tracker notes_app password_manager code_host ci budget_app
    design_app photo_editor helpdesk site_platform music_app cad_app video_app""".split()
)

# Classes whose members replace each other in a slot (a person has one editor of choice, one
# diet, one plan). Languages, payment methods and the like can be held together, so a change
# between them needs a stated change to count.
SINGLE_VALUED_CLASSES = frozenset(
    """editor browser os diet plan billing theme pronoun relationship release_stage deal_stage
    frequency commute laptop_model phone_model task_app tracker notes_app password_manager
    budget_app design_app photo_editor site_platform cad_app energy_supplier""".split()
)

# States that follow each other. A fact in one state is no longer true once the same thing is
# in a later state of the same lifecycle.
STATES: dict[str, dict[str, str]] = {
    # lifecycle -> {word: state}
    "project": {
        "planned": "planned",
        "scheduled": "planned",
        "upcoming": "planned",
        "proposed": "planned",
        "underway": "active",
        "ongoing": "active",
        "progress": "active",
        "resumed": "active",
        "restarted": "active",
        "unpaused": "active",
        "unblocked": "active",
        "reopened": "active",
        "onhold": "paused",
        "stalled": "paused",
        "blocked": "paused",
        "frozen": "paused",
        "done": "done",
        "complete": "done",
        "completed": "done",
        "finished": "done",
        "shipped": "done",
        "delivered": "done",
        "launched": "done",
        "released": "done",
        "cancelled": "cancelled",
        "canceled": "cancelled",
        "scrapped": "cancelled",
        "abandoned": "cancelled",
        "shelved": "cancelled",
    },
    "account": {
        "active": "active",
        "reinstated": "active",
        "reactivated": "active",
        "restored": "active",
        "unlocked": "active",
        "unsuspended": "active",
        "reopened": "active",
        "goodstanding": "active",
        "renewed": "active",
        "trial": "trial",
        "suspended": "suspended",
        "paused": "paused",
        "onhold": "paused",
        "frozen": "suspended",
        "locked": "suspended",
        "blocked": "suspended",
        "lapsed": "ended",
        "expired": "ended",
        "cancelled": "ended",
        "canceled": "ended",
        "closed": "ended",
        "terminated": "ended",
        "deactivated": "ended",
        "deleted": "ended",
        "churned": "ended",
    },
    "toggle": {
        "enabled": "on",
        "activated": "on",
        "on": "on",
        "disabled": "off",
        "off": "off",
        "deactivated": "off",
    },
    "relationship": {
        "single": "single",
        "brokeup": "single",
        "dating": "dating",
        "girlfriend": "dating",
        "boyfriend": "dating",
        "engaged": "engaged",
        "married": "married",
        "wed": "married",
        "divorced": "divorced",
        "separated": "separated",
        "widowed": "widowed",
    },
    "release": {
        "alpha": "alpha",
        "beta": "beta",
        "preview": "beta",
        "ga": "ga",
        "launched": "ga",
        "live": "ga",
        "released": "ga",
        "deprecated": "deprecated",
        "sunset": "deprecated",
    },
    "deal": {
        "lead": "lead",
        "prospect": "prospect",
        "discovery": "discovery",
        "qualification": "qualification",
        "demo": "demo",
        "evaluation": "evaluation",
        "evaluating": "evaluation",
        "proposal": "proposal",
        "negotiation": "negotiation",
        "customer": "customer",
        "signed": "customer",
        "won": "customer",
        "churned": "churned",
        "lost": "lost",
    },
    "legal_case": {
        "pending": "open",
        "open": "open",
        "filed": "open",
        "ongoing": "open",
        "dismissed": "closed",
        "settled": "closed",
        "closed": "closed",
        "resolved": "closed",
        "acquitted": "closed",
        "convicted": "closed",
    },
}

# "Is taking a course" is an ongoing state that ends when the course is finished; "is a PhD
# student" ends with the defence. These mark the ongoing state on the old fact.
ONGOING_WORDS = frozenset(
    """taking enrolled student studying training pregnant learning doing attending pursuing working_on
    freshman sophomore junior senior undergrad undergraduate
    scheduled planned upcoming pending wearing recovering building writing preparing""".split()
)

# ---------------------------------------------------------------------------------------------
# Attributes: what a fact says about its subject. Each attribute lists the cue words that name
# it (after stemming they're compared by stem) and whether it holds one value at a time.
# family groups attributes that belong together (where, for whom and as what someone works).
ATTRIBUTES: dict[str, dict[str, Any]] = {
    "location": {
        "single": True,
        "family": "place",
        "cues": """live lives living lived based located
        homebase hometown relocated relocate relocating moved move moving headquarters settled residence""".split(),
    },
    "employer": {
        "single": True,
        "family": "work",
        "cues": """works work working job employed joined
        company startup""".split(),
    },
    "role": {"single": True, "family": "work", "cues": """role title position promoted""".split()},
    "manager": {"single": True, "family": "work", "cues": "manager boss reports report supervisor".split()},
    "champion": {"single": True, "family": "account", "cues": "champion sponsor".split()},
    "contact_person": {"single": True, "family": "account", "cues": "contact poc".split()},
    "plan": {
        "single": True,
        "family": "account",
        "cues": "plan upgraded downgraded upgrade downgrade".split(),
    },
    "seats": {
        "single": True,
        "family": "account",
        "cues": "seat seats license licenses licence licences".split(),
    },
    "email": {"single": True, "family": "contact", "cues": "email".split()},
    "phone": {"single": True, "family": "contact", "cues": "phone number".split()},
    "address": {"single": True, "family": "contact", "cues": "address".split()},
    "username": {"single": True, "family": "identity", "cues": "username login".split()},
    "name": {"single": True, "family": "identity", "cues": "name surname firstname renamed".split()},
    "pronouns": {"single": True, "family": "identity", "cues": "pronouns pronoun".split()},
    "birthday": {"single": True, "family": "identity", "cues": "birthday born birthdate".split()},
    "timezone": {"single": True, "family": "time", "cues": "timezone time".split()},
    "salary": {
        "single": True,
        "family": "money",
        "cues": "salary pay wage wages raise earns income compensation".split(),
    },
    "rent": {"single": True, "family": "money", "cues": "rent landlord".split()},
    "price": {
        "single": True,
        "family": "money",
        "cues": "price budget cost costs fee fees charge charges charging rate rates".split(),
    },
    "bank": {"single": True, "family": "money", "cues": "bank banks banking".split()},
    "payment": {
        "single": True,
        "family": "money",
        "cues": "pays paying pay payment card invoicing billed".split(),
    },
    "renewal": {"single": True, "family": "account", "cues": "renew renewal".split()},
    "due": {"single": True, "family": "time", "cues": "due".split()},
    "expiry": {"single": True, "family": "time", "cues": "expires expiry expiration expire".split()},
    "stage": {"single": True, "family": "account", "cues": "stage status".split()},
    "editor": {"single": True, "family": "tools", "cues": "editor ide".split()},
    "browser": {"single": True, "family": "tools", "cues": "browser".split()},
    "os": {"single": True, "family": "devices", "cues": "os runs running".split()},
    "laptop": {"single": True, "family": "devices", "cues": "laptop".split()},
    "phone_device": {"single": True, "family": "devices", "cues": "phone".split()},
    "car": {"single": True, "family": "vehicles", "cues": "drives drive car".split()},
    "commute": {"single": True, "family": "vehicles", "cues": "commute commutes".split()},
    "diet": {"single": True, "family": "diet", "cues": "diet eats eat".split()},
    "school": {"single": True, "family": "education", "cues": "attends attend school transferred".split()},
    "age": {"single": True, "family": "identity", "cues": "age old turned turns".split()},
    "reply_language": {"single": True, "family": "language", "cues": "reply replies".split()},
    "favorite": {"single": True, "family": "taste", "cues": "favorite favourite".split()},
    "schedule": {
        "single": True,
        "family": "time",
        "cues": """standup sync meeting meetings call class
        appointment open opens hours schedule days""".split(),
    },
}

# Words of rank that are a title only with a job beside them ("is senior now" is no title).
_RANK_WORDS = frozenset("senior junior staff principal chief associate owner fellow resident head".split())
# Titles that are first names too, read only with an article: "User is Dev, 34" is a name.
_NAMES_TOO = frozenset({"dev", "cook", "porter", "baker", "butcher", "barber", "carpenter", "fellow"})
# Job titles: "is a senior engineer", "was promoted to CIO".
ROLE_NOUNS = frozenset(
    """engineer developer programmer manager director head lead vp svp evp president cto ceo cfo cio coo
    ciso cmo cpo officer analyst designer architect scientist researcher consultant nurse doctor teacher
    professor lecturer student intern associate specialist coordinator administrator admin executive
    founder cofounder owner principal staff senior junior chief accountant lawyer attorney barista chef
    writer recruiter salesperson rep representative supervisor technician pharmacist paralegal
    strategist marketer operator dentist therapist employee contractor freelancer auditor actuary
    economist radiographer radiologist physiotherapist physio surgeon physician paramedic midwife
    electrician plumber carpenter mechanic librarian cashier pilot firefighter photographer journalist
    translator receptionist tutor instructor illustrator animator surveyor optometrist bartender
    waiter waitress cook clerk sergeant constable inspector detective captain lieutenant corporal
    apprentice journeyman foreman solicitor barrister vet assistant registrar resident fellow postdoc
    teller banker carer caregiver aide porter courier cleaner labourer laborer welder roofer baker
    butcher hairdresser barber stylist editor producer reporter copywriter planner buyer tester
    agent adviser advisor trainee dev swe sde sre pm qa leader headteacher headmaster headmistress
    superintendent dean provost chairman chairwoman chairperson treasurer sommelier chemist biologist
    physicist statistician mathematician psychologist psychiatrist counsellor counselor coach trainer
    nanny realtor broker underwriter dispatcher machinist lifeguard curator archivist hygienist
    optician anaesthetist anesthesiologist cardiologist oncologist sonographer phlebotomist caretaker
    janitor gardener landscaper chauffeur postman postwoman soldier sailor medic housekeeper
    concierge pastor priest rabbi imam vicar artist musician singer drummer guitarist dancer actor
    actress podcaster youtuber streamer estimator draughtsman draftsman joiner plasterer bricklayer
    scaffolder glazier tiler decorator upholsterer tailor seamstress florist jeweller jeweler
    locksmith""".split()
)

# Nouns whose counts are a single quantity of the subject ("50 seats").
COUNT_NOUNS = frozenset(
    """seat license licence user employee people person staff engineer member child kid son daughter
    car pet dog cat server node instance tester location office store branch bedroom""".split()
)

# ---------------------------------------------------------------------------------------------
# Markers.
HEDGES = [
    r"\bthinking (?:about|of)\b",
    r"\bconsider(?:s|ed|ing)?\b",
    r"\bmay\b",
    r"\bmight\b",
    r"\bmaybe\b",
    r"\bperhaps\b",
    r"\bpossibly\b",
    r"\bprobably\b",
    r"\bplan(?:s|ning)? (?:to|on)\b",
    r"\bintends? to\b",
    r"\bwants? to\b(?! be (?:called|addressed|referred to|named|contacted|reached|emailed))",
    r"\bhop(?:e|es|ing) (?:to|for)\b",
    r"\bhopes\b",
    r"\bfingers crossed\b",
    # "couldn't keep doing the tuesdays": what was not possible, no hedge
    r"\bcould\b(?!\s*(?:not\b|n't))",
    r"\bnot sure\b",
    r"\bundecided\b",
    r"\blooking (?:into|at)\b",
    r"\bexploring\b",
    r"\bdebating\b",
    r"\binterested in\b",
    r"\btorn between\b",
    r"\bleaning (?:towards?|to)\b",
    r"\bif\b",
    r"\bunless\b",
    r"\binterviewing\b",
    r"\bwe'?ll see\b",
    r"\bexpected to\b",
    r"\blikely\b",
    r"\bwould like to\b",
    r"\bweighing\b",
    r"\bmulling\b",
    r"\bpondering\b",
    r"\btempted\b",
    r"\bshopping (?:for|around)\b",
    r"\bevaluating\b",
    r"\bin talks\b",
    r"\bnegotiating\b",
    r"\bsoon\b",
    r"\bsomeday\b",
    r"\beventually\b",
    r"\bmight\b",
    r"\bshould\b(?!.{0,200}\bfromnowon\b)",  # "mail should go to ... from now on" is an instruction
    r"\bwondering\b",
    r"\basked (?:about|whether|if)\b",
    r"\basked for (?:a |an |some )?(?:quote|pricing|demo|info\w*|trial|discount|refund|estimate|details|proposal)\b",
    r"\binquir\w+",
    r"\bcurious\b",
    r"\bquestions? about\b",
    r"\brequested (?:a )?(?:quote|pricing|demo|info\w*|trial)\b",
    r"\btrying to decide\b",
    r"\bon the fence\b",
]
ADDITIVE = [
    r"\balso\b",
    r"\badditionally\b",
    r"(?<!moved to )(?<!transferred to )(?<!switched to )(?<!went to )\banother\b",
    # "second grade", "third year": a place in a sequence, not one more of a thing
    r"\bsecond\b(?! (?:grade|year|floor|half|quarter|semester|term|round|time|place))",
    r"\bthird\b(?! (?:grade|year|floor|half|quarter|semester|term|round|time|place))",
    r"\bas well\b",
    r"\bin addition\b",
    r"\bbesides\b",
    r"\btoo\b(?=(?:\s+(?:now|nowadays|these days))?\s*(?:[,.;!]|$))",
    r"\bseparate\b",
    r"\b(?:his|her|their|its|our|my|your) own\b",  # "a studio of their own", not "owns a car"
    r"\bextra\b",
    r"\bbackup\b",
    r"\bboth\b",
    # "a secondary email", not "a secondary school" (a level of schooling)
    r"\bsecondary\b(?! (?:school|schools|education|teacher|level|care))",
    r"\bspare\b",
    r"\bside (?:job|gig|project|hustle|business)\b|\bon the side\b",
    r"\badded\b",
    r"\bnew (?:second|additional)\b",
    r"\badditional\b",
    r"\bmore than one\b",
    # "every other Friday" is how often, not one more; "on the other hand" a turn of the talk;
    # "the other one" the one spoken of; "moved us to their other site" where it is now
    r"(?<!\bevery )(?<!\bon the )(?<!\bto the )(?<!\bto their )(?<!\bto its )(?<!\bto our )\bother\b(?! hand| one\b)",
]
# A past period the new fact describes, next to which the old (current) fact can stand.
HISTORICAL = [
    r"\busedto\b",
    r"\bfrom year_\d{4} (?:to|until|till|through|-) ?(?:year_\d{4})\b",
    r"\bbetween year_\d{4} and year_\d{4}\b",
    r"\bbefore year_\d{4}\b",
    r"(?<!valid )(?<!good )(?<!runs )(?<!expires )\buntil year_\d{4}\b(?! \w+ (?:will|is))",
    r"\bback in (?:the (?:day|days|\w+s)|year_\d+|month_\d+|\d{4}|college|school|high school|university)\b",  # not "is back in Leeds"
    r"\byears ago\b",
    r"\bas a (?:kid|child|teen|teenager|student)\b",
    r"\b(?:all )?(?:through|during|throughout|in) (?:college|high school|university|uni|grad school|school)\b",
    r"^before\b",
    r"\bpreviously\b",
    r"\bformerly\b",
    r"\bin the past\b",
    r"\bonce (?:lived|worked|owned|had|was|were|used)\b",
    r"\bin (?:his|her|their|my|our) (?:youth|twenties|thirties|teens)\b",
    r"\bwhen (?:he|she|they|i|we) (?:was|were)\b",
    r"\bearlier in (?:his|her|their|my) career\b",
    r"\bfor (?:a|one|two|three|\d+) (?:year|years|month|months) (?:before|until)\b",
]
# A short stay or one-off: it does not change where someone lives or what they use.
TEMPORARY = [
    r"\bthis (?:week|weekend|month)\b",
    r"\bnext (?:week|weekend)\b",
    r"\bfor (?:a|one|two|three|four|a few|several|\d+) (?:day|days|week|weeks|night|nights)\b",
    r"\bfor (?:a|the) (?:conference|trip|visit|vacation|holiday|wedding|workshop|meetup|offsite)\b",
    r"\bon (?:vacation|holiday|a trip|business)\b",
    r"\bvisiting\b",
    r"\btemporarily\b",
    r"\bfor the (?:weekend|week)\b",
    r"\bwill be in\b",
    r"\btonight\b",
    r"\bstaying (?:in|at|with)\b",
    # "is in Denver until Friday": a stay with its end (as the normaliser writes days and dates)
    r"\b(?:until|till) (?:weekday_|date_|month_|tomorrow|the weekend|next|the end of|\d)",
]
# The new fact says its value is current now, or that it changed.
CHANGE_WORDS = [
    r"\bnow\b",
    r"\bnowadays\b",
    r"\banymore\b",
    r"\bnolonger\b",
    r"\bfromnowon\b",
    r"\binstead\b",
    r"\bsince (?:the|moving|then|last|this|we|they|he|she|i|[a-z]+ (?:moved|changed))\b",
    r"\bstarting\b",
    r"\bas of\b",
    r"\beffective\b",
    r"\bfrom (?:now|today|monday|tuesday|wednesday|thursday|friday|next|the \d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|d\d)",
    r"\bswitch(?:ed|es|ing)?\b",
    r"\bmov(?:ed|es|ing|e)\b",
    r"\brelocat(?:ed|es|ing)\b",
    r"\bchang(?:ed|es|ing)\b",
    r"\breplac(?:ed|es|ing)\b",
    r"\bupgrad(?:ed|es|ing)\b",
    r"\bdowngrad(?:ed|es|ing)\b",
    r"\bmigrat(?:ed|es|ing)\b",
    r"\btransferr(?:ed|ing)\b",
    r"\bpromoted\b",
    r"\brenamed\b",
    r"\bnew\b",
    r"\bwent (?:up|down)\b",
    r"\braised\b",
    r"\blowered\b",
    r"\bincreased\b",
    r"\bdecreased\b",
    r"\bexpanded\b",
    r"\bgrew to\b",
    r"\bshrank\b",
    r"\breduced\b",
    r"\bcut (?:to|back)\b",
    r"\bbumped\b",
    r"\bpushed\b",
    r"\bpostponed\b",
    r"\brescheduled\b",
    r"\bdelayed\b",
    r"\bslipped\b",
    r"\bshifted\b",
    r"\bput (?:\w+ ){0,3}on\b",
    r"\bbrought forward\b",
    r"\bmoved up\b",
    r"\breissued\b",
    r"\bbecame\b",
    r"\bturned\b",
    r"\bgot (?:a raise|engaged|married|divorced|promoted|a new|the promotion|a promotion)\b",
    r"\bstarted (?:a new|at|working|using)\b",
    r"\bjoined\b",
    r"\bcorrection\b",
    r"\bactually\b",
    r"\bupdated?\b",
    r"\bconverted\b",
    r"\bre-?signed\b",
    r"\bwelcomed\b",
    r"\bsigned\b",
    r"\bafter the\b",
    r"\bas of\b",
    r"\bsince\b",
    r"\braise\b",
    r"\bgone\b",
]
# Verbs and phrases that end the thing they govern: "sold the Civic", "no longer owns a car".
ENDING = [
    r"\bnolonger (?:(?:has|have|is|are|uses?|owns?|works?|lives?|eats?|drinks?|takes?|drives?|goes|attends?|"
    r"speaks?|plays?|pays?|banks?|needs?|wants?|does|being|on|at|in|with|a|an|the)\s+)*(?P<x>[\w\s\-\.]+)",
    r"\bnot (?:\w+ ){0,3}?(?P<x>[\w\-\. ]{1,200}?) anymore\b",
    r"\bstopped (?:being |using |eating |drinking |taking |going to |doing |playing |working (?:at|for) |paying (?:for|with) )?(?P<x>[\w\s\-\.]+)",
    r"\bquit (?:(?:his|her|their|my|the|a|an|using|drinking|eating) )?(?P<x>[\w\s\-\.]+)",
    r"\b(?:gave|given|giving) up (?:on )?(?:(?:his|her|their|my|the|a|an) )?(?P<x>[\w\s\-\.]+)",
    r"\b(?:abandoned|dumped|scrapped|stopped seeing|stopped going to|no longer sees) "
    r"(?:(?:his|her|their|my|the|a|an|its|our) )?(?P<x>[\w\s\-\.]+)",
    r"(?P<x>[\w\-\.]+(?: [\w\-\.]+)?) (?:has |have )?(?:stepped down|resigned|retired|left the company|"
    r"left the team|moved on|was let go|was laid off|was fired)\b",
    r"\bdropped (?:(?:his|her|their|my|the|a|an) )?(?P<x>[\w\s\-\.]+)",
    r"\bditched (?:(?:his|her|their|my|the|a|an) )?(?P<x>[\w\s\-\.]+)",
    r"\b(?:packed|jacked) in (?:(?:his|her|their|my|the|a|an) )?(?P<x>[\w\s\-\.]+)",
    r"\b(?:cancel(?:l)?ed|called off) (?:(?:his|her|their|my|the|a|an|its|our) )?(?P<x>[\w\s\-\.]+)",
    r"\bsold (?:(?:his|her|their|my|the|a|an|its|our) )?(?P<x>[\w\s\-\.]+)",
    r"\b(?:has |have )?left (?:(?:his|her|their|my|the|a|an|its|our) )?(?P<x>[A-Za-z][\w\s\-\.&]+)",
    r"\bmoved (?:away )?(?:out of|away from|from) (?P<x>[\w\s\-\.]+)",
    r"\bswitched (?:away )?from (?P<x>[\w\s\-\.]+)",
    r"\breplaced (?:(?:his|her|their|my|the|a|an|its|our) )?(?P<x>[\w\s\-\.]{1,200}?) with\b",
    r"\binstead of (?:(?:his|her|their|my|the|a|an) )?(?P<x>[\w\s\-\.]+)",
    r"\bretired (?:(?:his|her|their|my|the|a|an) )?(?P<x>[\w\s\-\.]+)",
    r"\bgot rid of (?:(?:his|her|their|my|the|a|an) )?(?P<x>[\w\s\-\.]+)",
    r"\b(?:closed|shut down|deleted|deactivated|disabled|switched off) (?:(?:his|her|their|my|the|a|an|its|our) )?(?P<x>[\w\s\-\.]+)",
    r"(?P<x>[\w\-\.]+(?: [\w\-\.]+){0,2}) (?:has |have |was |were )?(?:died|been closed|been shut down|been cancel(?:l)?ed|"
    r"been discontinued|been deleted|came off|was dismissed|was dropped|was withdrawn|lapsed|expired|ended|is over)\b",
    r"\bmoved on from (?P<x>[\w\s\-\.]+)",
    r"\b(?:is|are|am|was|were) (?:\w+ )?(?:done|finished|through) with (?:(?:his|her|their|my|the|a|an) )?(?P<x>[\w\-\.]+(?: [\w\-\.]+){0,2})",
    r"\blost (?:(?:his|her|their|my|the|a|an) )?(?:job|position|role) (?:at|with) (?P<x>[\w\-\.&]+(?: [\w\-\.&]+)?)",
    r"\blet (?:(?:his|her|their|my|the|a|an|its|our) )?(?P<x>[\w\-\.]+(?: [\w\-\.]+){0,2}?) (?:lapse|expire|run out)\b",
    r"\bended (?!up\b)(?:(?:his|her|their|my|the|a|an|its|our) )?(?P<x>[\w\-\.]+(?: [\w\-\.]+){0,2})",
    r"(?P<x>[\w\-\.]+(?: [\w\-\.]+){0,2}) (?:ran out|is gone|are gone|was gone)\b",
    r"(?P<x>[\w\-\.]+(?: [\w\-\.]+)?) (?:has |have )?(?:moved|transferred|switched|went) (?:over )?to "
    r"(?:another|a different|a new|an other) (?:team|role|job|company|department|group|position|account|project)\b",
    r"\bpaidoff (?:(?:his|her|their|my|the|a|an|its|our) )?(?P<x>[\w\s\-\.]+)",
    r"\b(?:removed|cut out|phased out) (?:(?:his|her|their|my|the|a|an|its|our) )?(?P<x>[\w\s\-\.]+)",
    r"\bturned (?:(?:his|her|their|my|the|a|an|its|our) )?(?P<x>[\w\-\.]+(?: [\w\-\.]+)?) off\b",
    r"\bmoved (?:[\w']+ ){0,3}?off (?:of )?(?:(?:his|her|their|my|the|a|an|its|our) )?(?P<x>[\w\-\.]+(?: [\w\-\.]+)?)",
    r"(?P<x>[\w\-\.]+(?: [\w\-\.]+){0,2}) (?:is|are|was|were) nolonger\b",
    r"(?P<x>[\w\-\.]+(?: [\w\-\.]+){0,2}) (?:stopped|ended|finished|wrapped up|(?:were|was|is|got) cancel(?:l)?ed)\b",
    r"\b(?:laid off|fired|let go|resigned|retired|dismissed|terminated) (?:from |by )?(?:(?:his|her|their|my|the|a|an) )?(?:job at |role at |position at )?(?P<x>[\w\-\.& ]+)",
    r"\b(?:traded in|traded|swapped|exchanged|sold off|returned) (?:(?:his|her|their|my|the|a|an) )?(?P<x>[\w\-\. ]{1,200}?) (?:for|and)\b",
    r"\b(?:rather than|in place of) (?:(?:his|her|their|my|the|a|an) )?(?P<x>[\w\-\.]+(?: [\w\-\.]+)?)",
    r"\bgave (?:away )?(?:(?:his|her|their|my|the|a|an|its|our) )?(?P<x>[\w\-\. ]{1,200}?) (?:away|to)\b",
    r"\bbroke up with (?P<x>[\w\s\-\.]+)",
    r"\b(?:divorced|separated from) (?P<x>[\w\s\-\.]+)",
    # the user's friendship ended: "User fell out with Maria", "User and Maria lost touch"
    r"^user (?:\w+ ){0,2}?(?:fell out|lost touch|stopped (?:talking|speaking)|parted ways|cut ties) with "
    r"(?P<x>[\w\s\-\.]+)",
    r"^user and (?P<x>[\w\-\.]+) (?:have |had )?(?:fell out|fallen out|lost touch|parted ways)\b",
    r"\bno (?P<x>[\w\-]+(?: [\w\-]+)?)\b",
    r"\bnot (?P<x>[\w\-\.]+(?: \d+)?)$",
]
# Phrases in the OLD fact that already say a thing ended; the new fact repeating that a thing
# is gone then agrees with it.
OLD_NEGATIVE = [
    r"\bnot\b",
    r"\bno\b",
    r"\bnever\b",
    r"\bnolonger\b",
    r"\bavoids?\b",
    r"\bpaidoff\b",
    r"\bquit\b",
    r"\bstopped\b",
    r"\bcancel(?:l)?ed\b",
    r"\bfree of\b",
    r"\bwithout\b",
    r"\bhate\b",
    r"\bdislike\b",
    r"\ballergic\b",
    r"\bintolerant\b",
    r"\bgave up\b",
    r"\bsold\b",
    r"\bleft\b(?! on| over| to pay| in the)",  # "$18,000 left on the loan" is what remains
    r"\bdisabled\b",
    # "night off", "day off", "time off": what a person has, not a thing over
    r"(?<!\bnight )(?<!\bnights )(?<!\bday )(?<!\bdays )(?<!\btime )(?<!\bweek )(?<!\bweekend )\boff\b",
    # rules v6: an old fact that says the thing is already over ("the account is closed")
    r"\b(?:closed|lapsed|expired|deactivated|deleted|churned|terminated|ended)\b(?!-)",
]
# "went back to X": which value is current after a detour.
REVERSION = [
    r"\b(?:went|gone|going|switched|moved|came|come|got) back to (?:using |the |her |his |their |my )?(?P<t>[\w\-\.\+# ]+)",
    # ("back to back": one after another, nothing returned to)
    r"\b(?:is|are|am|was|now) back (?:on|to(?! back\b)|with) (?:using |the |her |his |their |my )?(?P<t>[\w\-\.\+# ]+)",
    r"\bback to using (?P<t>[\w\-\.\+# ]+)",
    r"\breturned to (?:using |the |her |his |their |my )?(?P<t>[\w\-\.\+# ]+)",
    r"\brevert(?:ed|s|ing)? (?:back )?to (?:using |the |her |his |their |my )?(?P<t>[\w\-\.\+# ]+)",
    r"\breinstall(?:ed|s)? (?P<t>[\w\-\.\+# ]+)",
    r"\bstay(?:ed|s)? (?:on|with) (?:the |her |his |their |my )?(?P<t>[\w\-\.\+# ]+)",
    r"\bstuck with (?:the |her |his |their |my )?(?P<t>[\w\-\.\+# ]+)",
    r"\bkept (?:using )?(?:the |her |his |their |my )?(?P<t>[\w\-\.\+# ]+)",
    r"\bresumed using (?P<t>[\w\-\.\+# ]+)",
]
# What was tried and abandoned on the way: "tried Emacs for a month".
TRIED = [
    r"\btried (?:out |using )?(?:the |a |an )?(?P<a>[\w\-\.\+#]+(?: [\w\-\.\+#]+)?)",
    r"\bgave (?P<a>[\w\-\.\+#]+(?: [\w\-\.\+#]+)?) a (?:try|shot|go|week|month|day|chance)",
    r"\bexperimented with (?P<a>[\w\-\.\+# ]+?)(?: over| for| but| and|,|$)",
    r"\btested (?P<a>[\w\-\.\+#]+)",
    r"\btrialed (?P<a>[\w\-\.\+#]+)",
    r"\bdabbled (?:in|with) (?P<a>[\w\-\.\+#]+)",
]
# A part of the old quantity, not a new value of it: "uses 12 of those seats".
SUBSET = [
    # "as of the February release" dates a change; "part of the move" and "out of it" name a cause
    r"(?<!instead )(?<!as )(?<!part )\bof (?:those|these|them|the|its|their|our|his|her)\b",
    r"\bout of\b(?! (?:it|that|this)\b)",
    r"\bpart of\b(?! (?:the|a|our|their|my) (?:move|migration|switch|upgrade|reorg|deal|process|plan|change|rollout)\b)",
    r"\bsome of\b",
    r"\bone of\b",
    r"\bamong\b",
    r"\bincluding\b",
    r"\bwhich includes?\b",
    r"\bincludes?\b",
]
# A more specific restatement: it adds to the old fact.
REFINEMENT = [
    r"\bnamed\b",
    r"\bcalled\b",
    r"\bspecifically\b",
    r"\bnamely\b",
    r"\bin particular\b",
    r"\bespecially\b",
    r"\bmostly\b",
    r"\bmainly\b",
    r"\bideally\b",
    r"\bincluding\b",
]

# Words that state nothing a reader needs: a restatement that only adds these is a duplicate.
LOW_INFO = frozenset(
    """currently current still really actually always fulltime full time fully entirely completely totally
    daily day every basically generally usually typically mentioned mention noted note said say says told
    tell confirmed confirm reported report stated state indicated shared share according
    choice default primary main just also
    user customer client people person thing stuff whole""".split()
)

# Generic words that frame a fact without being its value.
FRAME_WORDS = frozenset(
    """is are was were be been has have had use uses used using hold holds held keep keeps kept carry
    carries get gets got go goes went do does did make makes made take takes took give gives
    travel travels on at in of with by for""".split()
)

# Words that say how a fact is put rather than what it says: a restatement may swap one for
# another ("prefers window seats" / "likes to sit by the window").
RESTATEMENT_WORDS = frozenset(
    """have has own owns drive drives run runs prefer prefers preferred like likes love loves
    favorite favourite enjoy enjoys live lives home base based reside resides work works working job
    employed call called name named go goes get gets spend spends stay stays sit sits person type
    kind fan lover fond habit usual usually regular regularly typically always often want wants
    choice pick go-to mostly main primary daily every morning evening via through using person
    someone one who that which there eat eats drink drinks consume consumes hold holds holding
    commute commutes commuting do does doing take takes ending ends intensely really strongly
    absolutely truly deeply totally completely car vehicle db database yet""".split()
)

# A use scoped to one side of life: "uses an iPhone for work".
QUALIFIED_USE = r"\bfor (?:work|personal use|home|school|business|travel|weekends?|gaming|fun)\b"

# Verbs that open an instruction to the agent: "Reply in Portuguese" states a wish.
INSTRUCTION_VERBS = frozenset(
    "reply respond answer write address use call email text send contact reach".split()
)

# ---------------------------------------------------------------------------------------------
# Places: a broad place and a narrower one in it are a refinement, not a move.
COUNTRIES = frozenset(
    """afghanistan albania algeria argentina armenia australia austria azerbaijan bahrain bangladesh
    belarus belgium bolivia bosnia brazil bulgaria cambodia cameroon canada chile china colombia
    croatia cuba cyprus czechia denmark ecuador egypt estonia ethiopia finland france georgia germany
    ghana greece guatemala honduras hungary iceland india indonesia iran iraq ireland israel italy
    jamaica japan jordan kazakhstan kenya korea kuwait latvia lebanon lithuania luxembourg malaysia
    malta mexico moldova mongolia montenegro morocco nepal netherlands holland nigeria norway oman
    pakistan panama paraguay peru philippines poland portugal qatar romania russia rwanda scotland
    england wales serbia singapore slovakia slovenia spain sweden switzerland syria taiwan tanzania
    thailand tunisia turkey uganda ukraine uruguay uzbekistan venezuela vietnam zambia zimbabwe
    uk usa us america britain""".split()
) | frozenset(
    {
        "united states",
        "united kingdom",
        "south africa",
        "new zealand",
        "south korea",
        "czech republic",
        "saudi arabia",
        "sri lanka",
        "costa rica",
        "dominican republic",
        "great britain",
        "northern ireland",
        "hong kong",
    }
)
REGIONS = frozenset(
    """europe asia africa oceania scandinavia midwest"""
    """ alabama alaska arizona arkansas california colorado connecticut delaware florida hawaii idaho
    illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan minnesota
    mississippi missouri montana nebraska nevada ohio oklahoma oregon pennsylvania tennessee texas
    utah vermont virginia washington wisconsin wyoming ontario quebec alberta manitoba saskatchewan
    bavaria catalonia tuscany andalusia lombardy provence normandy brittany""".split()
) | frozenset(
    {
        "north america",
        "south america",
        "latin america",
        "the bay area",
        "bay area",
        "new england",
        "the midwest",
        "pacific northwest",
        "the south",
        "east coast",
        "west coast",
        "new hampshire",
        "new jersey",
        "new mexico",
        "north carolina",
        "north dakota",
        "rhode island",
        "south carolina",
        "south dakota",
        "west virginia",
        "british columbia",
        "nova scotia",
        "new south wales",
        "middle east",
        "southeast asia",
    }
)
US_STATE_CODES = {
    "al": "alabama",
    "ak": "alaska",
    "az": "arizona",
    "ar": "arkansas",
    "ca": "california",
    "co": "colorado",
    "ct": "connecticut",
    "de": "delaware",
    "fl": "florida",
    "ga": "georgia",
    "hi": "hawaii",
    "id": "idaho",
    "il": "illinois",
    "in": "indiana",
    "ia": "iowa",
    "ks": "kansas",
    "ky": "kentucky",
    "la": "louisiana",
    "me": "maine",
    "md": "maryland",
    "ma": "massachusetts",
    "mi": "michigan",
    "mn": "minnesota",
    "ms": "mississippi",
    "mo": "missouri",
    "mt": "montana",
    "ne": "nebraska",
    "nv": "nevada",
    "nh": "new hampshire",
    "nj": "new jersey",
    "nm": "new mexico",
    "ny": "new york",
    "nc": "north carolina",
    "nd": "north dakota",
    "oh": "ohio",
    "ok": "oklahoma",
    "or": "oregon",
    "pa": "pennsylvania",
    "ri": "rhode island",
    "sc": "south carolina",
    "sd": "south dakota",
    "tn": "tennessee",
    "tx": "texas",
    "ut": "utah",
    "vt": "vermont",
    "va": "virginia",
    "wa": "washington",
    "wv": "west virginia",
    "wi": "wisconsin",
    "wy": "wyoming",
    "dc": "district of columbia",
}

# Nouns naming an event: a date or time of one event says nothing about another event.
EVENT_NOUNS = frozenset(
    """call meeting sync standup review demo appointment interview kickoff party dinner lunch trip flight
    visit webinar workshop presentation launch release renewal class session check-in checkin
    retro retrospective offsite conference training exam test surgery""".split()
)

# Time zones by standard UTC offset in minutes: names, abbreviations and the cities people use.
TIMEZONES = {
    "utc": 0,
    "gmt": 0,
    "zulu": 0,
    "london": 0,
    "lisbon": 0,
    "dublin": 0,
    "europe/london": 0,
    "europe/lisbon": 0,
    "europe/dublin": 0,
    "wet": 0,
    "reykjavik": 0,
    "cet": 60,
    "central european": 60,
    "berlin": 60,
    "paris": 60,
    "madrid": 60,
    "rome": 60,
    "amsterdam": 60,
    "brussels": 60,
    "vienna": 60,
    "zurich": 60,
    "stockholm": 60,
    "oslo": 60,
    "copenhagen": 60,
    "warsaw": 60,
    "prague": 60,
    "budapest": 60,
    "munich": 60,
    "hamburg": 60,
    "milan": 60,
    "barcelona": 60,
    "europe/berlin": 60,
    "europe/paris": 60,
    "europe/madrid": 60,
    "europe/rome": 60,
    "europe/amsterdam": 60,
    "europe/warsaw": 60,
    "europe/stockholm": 60,
    "europe/vienna": 60,
    "europe/zurich": 60,
    "europe/prague": 60,
    "eet": 120,
    "eastern european": 120,
    "athens": 120,
    "helsinki": 120,
    "kyiv": 120,
    "kiev": 120,
    "bucharest": 120,
    "cairo": 120,
    "europe/athens": 120,
    "europe/helsinki": 120,
    "europe/kyiv": 120,
    "istanbul": 180,
    "moscow": 180,
    "msk": 180,
    "europe/moscow": 180,
    "dubai": 240,
    "gst": 240,
    "asia/dubai": 240,
    "ist": 330,
    "india": 330,
    "mumbai": 330,
    "delhi": 330,
    "bangalore": 330,
    "bengaluru": 330,
    "asia/kolkata": 330,
    "bangkok": 420,
    "jakarta": 420,
    "ho chi minh": 420,
    "singapore": 480,
    "sgt": 480,
    "hong kong": 480,
    "beijing": 480,
    "shanghai": 480,
    "taipei": 480,
    "manila": 480,
    "perth": 480,
    "asia/singapore": 480,
    "asia/shanghai": 480,
    "asia/hong_kong": 480,
    "tokyo": 540,
    "jst": 540,
    "seoul": 540,
    "kst": 540,
    "asia/tokyo": 540,
    "asia/seoul": 540,
    "sydney": 600,
    "melbourne": 600,
    "brisbane": 600,
    "aest": 600,
    "australia/sydney": 600,
    "australia/melbourne": 600,
    "auckland": 720,
    "nzst": 720,
    "pacific/auckland": 720,
    "eastern": -300,
    "us eastern": -300,
    "est": -300,
    "edt": -300,
    "et": -300,
    "new york": -300,
    "boston": -300,
    "toronto": -300,
    "miami": -300,
    "atlanta": -300,
    "america/new_york": -300,
    "america/toronto": -300,
    "us/eastern": -300,
    "central": -360,
    "us central": -360,
    "cst": -360,
    "cdt": -360,
    "ct": -360,
    "chicago": -360,
    "dallas": -360,
    "houston": -360,
    "austin": -360,
    "mexico city": -360,
    "america/chicago": -360,
    "us/central": -360,
    "mountain": -420,
    "us mountain": -420,
    "mst": -420,
    "mdt": -420,
    "mt": -420,
    "denver": -420,
    "phoenix": -420,
    "salt lake city": -420,
    "america/denver": -420,
    "america/phoenix": -420,
    "us/mountain": -420,
    "pacific": -480,
    "us pacific": -480,
    "pst": -480,
    "pdt": -480,
    "pt": -480,
    "los angeles": -480,
    "san francisco": -480,
    "seattle": -480,
    "portland": -480,
    "vancouver": -480,
    "america/los_angeles": -480,
    "america/vancouver": -480,
    "us/pacific": -480,
    "alaska": -540,
    "hawaii": -600,
    "honolulu": -600,
    "sao paulo": -180,
    "buenos aires": -180,
    "america/sao_paulo": -180,
}

# Irregular verb forms folded to the base form so "sold" and "sell" compare.
IRREGULAR = {
    "went": "go",
    "gone": "go",
    "goes": "go",
    "sold": "sell",
    "got": "get",
    "gotten": "get",
    "bought": "buy",
    "gave": "give",
    "given": "give",
    "took": "take",
    "taken": "take",
    "ran": "run",
    "paid": "pay",
    "made": "make",
    "had": "have",
    "has": "have",
    "was": "be",
    "were": "be",
    "is": "be",
    "are": "be",
    "am": "be",
    "been": "be",
    "grew": "grow",
    "grown": "grow",
    "began": "begin",
    "begun": "begin",
    "spoke": "speak",
    "spoken": "speak",
    "drove": "drive",
    "driven": "drive",
    "wrote": "write",
    "written": "write",
    "ate": "eat",
    "eaten": "eat",
    "drank": "drink",
    "drunk": "drink",
    "left": "left",
    "felt": "feel",
    "kept": "keep",
    "held": "hold",
    "met": "meet",
    "taught": "teach",
    "thought": "think",
    "brought": "bring",
    "came": "come",
    "became": "become",
    "knew": "know",
    "known": "know",
    "saw": "see",
    "seen": "see",
    "told": "tell",
    "said": "say",
    "found": "find",
    "children": "child",
    "people": "person",
    "women": "woman",
    "men": "man",
    "mice": "mouse",
    "feet": "foot",
    "teeth": "tooth",
    "geese": "goose",
    "lives": "live",
    "wives": "wife",
    "knives": "knife",
}

# Hypernyms: the new fact may name the class of what the old one named ("quit caffeine" ends
# "drinks two coffees a day"; "allergic to all pome fruits" widens "allergic to apples").
HYPERNYMS = {
    "coffee": {"caffeine"},
    "espresso": {"caffeine", "coffee"},
    "latte": {"caffeine", "coffee"},
    "tea": {"caffeine"},
    "cola": {"caffeine"},
    "energy": {"caffeine"},
    "beer": {"alcohol"},
    "wine": {"alcohol"},
    "whisky": {"alcohol"},
    "whiskey": {"alcohol"},
    "vodka": {"alcohol"},
    "cocktail": {"alcohol"},
    "drink": set(),
    "drive": {"car"},
    "driving": {"car"},
    "cigarette": {"smoking", "nicotine"},
    "vape": {"nicotine", "vaping"},
    "cigar": {"smoking", "nicotine"},
    "pork": {"meat"},
    "beef": {"meat"},
    "chicken": {"meat", "poultry"},
    "lamb": {"meat"},
    "bacon": {"meat", "pork"},
    "ham": {"meat", "pork"},
    "turkey": {"meat", "poultry"},
    "fish": {"seafood"},
    "salmon": {"fish", "seafood"},
    "tuna": {"fish", "seafood"},
    "shrimp": {"seafood", "shellfish"},
    "prawn": {"seafood", "shellfish"},
    "milk": {"dairy", "lactose"},
    "cheese": {"dairy"},
    "butter": {"dairy"},
    "yogurt": {"dairy"},
    "cream": {"dairy"},
    "apple": {"fruit", "pome"},
    "pear": {"fruit", "pome"},
    "quince": {"fruit", "pome"},
    "banana": {"fruit"},
    "strawberry": {"fruit", "berry"},
    "peach": {"fruit"},
    "cherry": {"fruit"},
    "cashew": {"nut", "tree"},
    "almond": {"nut", "tree"},
    "walnut": {"nut", "tree"},
    "pecan": {"nut", "tree"},
    "hazelnut": {"nut", "tree"},
    "pistachio": {"nut", "tree"},
    "peanut": {"nut", "legume"},
    "bread": {"gluten", "wheat"},
    "pasta": {"gluten", "wheat"},
    "wheat": {"gluten"},
    "barley": {"gluten"},
    "oat": {"gluten"},
    "rye": {"gluten"},
    "horror": {"scary"},
    "thriller": {"scary"},
    "dog": {"pet"},
    "cat": {"pet"},
    "puppy": {"dog", "pet"},
    "kitten": {"cat", "pet"},
    "corgi": {"dog", "pet"},
    "retriever": {"dog", "pet"},
    "beagle": {"dog", "pet"},
    "labrador": {"dog", "pet"},
    "poodle": {"dog", "pet"},
    "terrier": {"dog", "pet"},
    "spaniel": {"dog", "pet"},
    "tabby": {"cat", "pet"},
    "siamese": {"cat", "pet"},
    "macbook": {"laptop"},
    "thinkpad": {"laptop"},
    "chromebook": {"laptop"},
    "xps": {"laptop"},
    "iphone": {"phone"},
    "pixel": {"phone"},
    "galaxy": {"phone"},
    "minivan": {"car"},
    "hatchback": {"car"},
    "sedan": {"car"},
    "suv": {"car"},
    "pickup": {"car"},
    "truck": {"car"},
    "civic": {"car"},
    "corolla": {"car"},
    "outback": {"car"},
    "tesla": {"car"},
    "visa": {"card"},
    "email": {"address"},
    "mastercard": {"card"},
    "amex": {"card"},
    "creditcard": {"card"},
    "debitcard": {"card"},
    "halal": {"pork", "diet"},
    "kosher": {"pork", "shellfish", "diet"},
    "vegan": {"meat", "dairy", "diet"},
    "vegetarian": {"meat", "diet"},
    "pescatarian": {"meat", "diet"},
    "celiac": {"gluten"},
    "coeliac": {"gluten"},
    "teetotal": {"alcohol"},
    "sober": {"alcohol"},
    "cashews": {"nut"},
    "nuts": {"nut"},
    "cio": {"head", "it"},
    "cto": {"head", "engineering"},
    "cfo": {"head", "finance"},
    "ceo": {"head"},
    "precheck": {"trusted_traveler"},
    "global entry": {"trusted_traveler"},
    "phd": {"doctorate"},
    "doctorate": {"phd"},
}

# Two different values of one quality of the same thing: "dry food" and "wet food".
ANTONYMS = [
    ("dry", "wet"),
    ("darkmode", "lightmode"),
    ("dark", "light"),
    ("on", "off"),
    ("enabled", "disabled"),
    ("active", "inactive"),
    ("public", "private"),
    ("open", "closed"),
    ("remote", "office"),
    ("remote", "onsite"),
    ("hybrid", "remote"),
    ("monthly", "annual"),
    ("monthly", "yearly"),
    ("weekly", "daily"),
    ("morning", "evening"),
    ("manual", "automatic"),
    ("black", "milk"),
    ("hot", "iced"),
    ("left", "right"),
    ("paper", "digital"),
    ("indoor", "outdoor"),
    ("single", "married"),
]

# Named entities that are not subjects: words starting a sentence with a capital letter that are
# ordinary words. The first word of a fact is a name only if it is not one of these and not in
# another list of this module.
# Someone of someone's, after "X's": "Maya's best friend", "Ollie's teacher"
SOMEONE_OF_THEIRS = (
    r"(?:best |new |old )?(?:"
    + "|".join(sorted(RELATION_NOUNS | {"classmate", "classmates", "coach", "teacher"}))
    + r")\b"
)

# Words that open what someone says and name no one: "Hey, I moved to Linz", "Achja, ...",
# "Buenoo pues ...", "Bhai office shift ho gaya"
INTERJECTIONS = frozenset(
    """hey hi hello hiya yo oh ah ahh ach achja ja jo na naja nee ok okay okey so well yeah yep
    yes no nope um uh hmm wow omg lol haha bueno buenoo pues vale oye hola ciao allora boh ecco
    alors bon bref salut slt coucou olá ola oi oii entao então bom hallo moin servus tja
    bhai yaar arre acha achha accha welp anyway anyways update fyi btw""".split()
)

COMMON_SENTENCE_STARTS = frozenset(
    """now rent got since before after from reach friends plan best card correction standup the a an
    our my their his her its we i they he she it team weekly daily monthly office dentist doctor
    salary price budget status stage deadline meeting sync call notes note update updated customer user
    client account subscription payment tier email phone address timezone timezone role title
    manager champion contact renewal project website data mobile app company headquarters users
    as of in on at per this that these those there here new old currently recently today yesterday
    last next every each all both no not never also just still
    school work class classes practice training rehearsal rehearsals gym lunch dinner breakfast pickup
    dropoff church therapy physio swim swimming football soccer ballet piano choir band shift shifts
    daycare nursery kindergarten uni college term semester lessons lesson practise commute bedtime""".split()
)

# Common nouns that are often written as part of a name ("New York City", "Bank of America"):
# they name no particular thing on their own.
GENERIC_NAME_WORDS = frozenset(
    """elementary school high middle university college academy bank credit union company corp inc
    labs lab llc ltd group street avenue road lane city town county state the a an db database""".split()
)

# --- what counts as explicit evidence of a change -------------------------------------------
# A contradiction is acted on (confidence >= 0.85) only when the new fact carries one of these,
# or explicitly negates the old value. "now", "currently", "as of", "still" and "new" are
# deliberately absent: they say what is current, not that the old value stopped being so.
# What a home is called: "rents a flat in", "my new place in".
HOME_NOUNS = r"(?:flat|apartment|house|place|home|condo|studio|room|townhouse|bungalow|cottage)"
# "writing from my new flat in Exeter": a home of their own, new; a move, and a word of change
# (not a "new place" or "new room", which may be a restaurant or a room at work)
# The extractor's "User's new flat in Pankow" is one too; not its "new studio", which is as often
# a place of work or practice.
USERS_NEW_HOME = r"user 's new (?:flat|apartment|house|home|condo|townhouse)"
NEW_HOME_OF_THEIR_OWN = (
    r"\b(?:(?:my|their|our|his|her) new (?:flat|apartment|house|home|condo|studio|townhouse)"
    rf"|{USERS_NEW_HOME}) (?:in|at|near|outside)\b"
)
# The homes a move can be bought, rented or got into ("bought a flat in Leith"); a "place" only
# when it is said moved into (MOVED_IN)
HOMES = r"house|home|flat|apartment|condo|townhouse|semi|bungalow"
# "moved in" without where or with whom: into the home just named ("bought a place in Quorn and
# moved in 2 weeks ago"), read so by MOVED_IN and by the extractor
MOVED_IN_BARE = r"moved in\b(?!\s+(?:with|to|together|next)\b)"
# Not a home bought to live in: one for someone else, to let, or for holidays.
_NOT_BOUGHT_TO_LIVE_IN = (
    r"(?![^.;]*\b(?:for (?:a |an |the |their |my |our |his |her )?(?:daughter|son|kids?|children|mum|mom|mother|"
    r"dad|father|parents?|in-laws|rental|holidays?|investment|retirement|summer|weekends?)|to (?:rent|let)|"
    r"as (?:a |an )?(?:rental|investment|holiday|buy-to-let))\b)"
)
# Settled into a home somewhere: "is all unpacked in Utrecht", "got a flat in Södermalm", and a
# home bought where they live now: "just closed on a house in Raleigh", "bought a flat in Leith",
# and a place bought and moved into (rules v39): "bought a place in Quorn and moved in 2 weeks
# ago" (a place bought and not said moved into may be a holiday home, or to let)
MOVED_IN = (
    r"\b(?:all |finally |fully )?unpacked in\b|\bgot (?:a|an|our|my|their) (?:own )?(?:flat|apartment|condo) in\b|"
    r"\b(?:closed on|bought|got the keys (?:to|for)) (?:a|an|our|my|their|the) (?:new |first |own )?"
    rf"(?:(?:{HOMES}) in\b"
    rf"|place in\b(?=[^.;]*\band (?:have |has |had |just |finally )?{MOVED_IN_BARE}))"
    + _NOT_BOUGHT_TO_LIVE_IN
)
# A new value said to hold from here on (rules v37): "rehearses at the library for the
# foreseeable", "works from home until further notice", "uses Slack going forward"
HOLDS_FROM_HERE_ON = r"until further notice|for the foreseeable|going forward"

CHANGE_EVIDENCE = [
    r"\bswitch(?:ed|es|ing)\b",
    r"\bmov(?:ed|es|ing)(?: [\w']+){0,5}? (?:to|into|onto|off|from|out|away|back|over|up|down|on|in)\b",
    r"\brelocat(?:ed|es|ing)\b",
    r"\bchang(?:ed|es|ing)\b",
    r"\breplac(?:ed|es|ing)\b",
    r"\bupgrad(?:ed|es|ing)\b",
    r"\bdowngrad(?:ed|es|ing)\b",
    r"\bmigrat(?:ed|es|ing)\b",
    r"\btransferr(?:ed|ing)\b",
    r"\bnolonger\b",
    r"\banymore\b",
    r"\bstopped\b",
    r"\bquit\b",
    r"\b(?:packed|jacked) in\b",
    r"\bcancel(?:l)?(?:ed|s|ing)?\b",
    r"\bcalled off\b",
    r"\bleft\b(?! (?:hand|side|handed))",
    r"\bbecame\b|\bhas become\b",
    # "day rate went to 720 USD", "landlord put the rent to €1.240": a value set anew
    r"\bwent (?:up |down )?to (?=[$\u20ac\u00a3]|money_|time_|[\d.,]+ ?(?:usd|eur|gbp|euros?|dollars?|pounds?|an hour|a (?:day|week|month|year)|per)\b)|"
    r"\bput (?:the |their |my |our |his |her )?\w+ (?:up |down )?to (?=[$\u20ac\u00a3\d]|money_)",
    # a choice made, or a move over, to another one: "settled on Linear", "opted for Xero",
    # "jumped ship to Bitwarden", "made the jump to Fly.io", "bit the bullet"
    r"\b(?:settled on|opted for|decided on|signed (?:up )?with|jumped ship to|made the (?:jump|leap) to|"
    r"took the plunge|bit the bullet|(?:has |have )?gone over to|went over to|caved and (?:got|bought|moved))\b",
    # "upped the TFSA debit order to R4,500", "stepped up the SIP to 25k": an amount raised or
    # lowered, said with what it is now
    r"\b(?:upped|stepped (?:up|down)|ramped (?:up|down)|cranked up|dial+ed (?:up|down)|topped up|hiked|"
    r"knocked down|brought down)(?: [\w'.,-]+){0,5}? to (?=money_|percent_|\d)",
    # "has gone fully vegetarian", "went vegan": became
    r"\b(?:has|have|'ve) gone (?:fully |full |completely |totally )?[a-z-]+(?:arian|an|free|based)\b|"
    r"\bwent (?:fully |full |completely |totally )?(?:vegan|vegetarian|pescatarian|plant-based|keto|paleo|"
    r"gluten-free|dairy-free|sober|teetotal)\b",
    r"\binstead\b",
    r"\bfrom [\w$€£.,\- ]{1,40}? to\b",
    # the subject's promotion, not one the user gave ("User promoted two of their reports")
    r"(?<!\buser )\bpromoted\b|(?<!\buser )\bdemoted\b|\bgot (?:the|a|my|their|his|her) promotion\b",
    r"\brenamed\b",
    r"\bsold\b|\btraded in\b|\bgot rid of\b|\b(?:gave|given) up\b|\bditched\b|\bdropped\b|\babandoned\b|"
    r"\bscrapped\b|\bstopped seeing\b",
    r"\bended\b|\bexpired\b|\blapsed\b|\bis over\b",
    r"\bresigned\b|\bretired\b|\bfired\b|\blaid off\b",
    r"\bdivorced\b|\bseparated\b|\bbroke up\b|\bgot (?:married|engaged)\b|\bfell out\b|\blost touch\b",
    r"\bgraduated\b|\bfinished\b|\bcompleted\b|\bwrapped up\b",
    r"\bresumed\b|\bpaused\b|\bsuspended\b|\breactivated\b|\bdeactivated\b|\bclosed\b",
    r"\braised\b|\blowered\b|\bincreased\b|\bdecreased\b|\bexpanded\b|\bgrew to\b|\bshrank\b|\breduced\b",
    r"\bcut (?:\w+ ){0,3}?(?:to|back|down)\b|\bbumped\b|\bwent (?:up|down)\b",
    r"\bextended\b|\brotated\b|\bresolved\b",
    r"\bbrokeup\b|\bpaidoff\b",  # "broke up", "paid off" after normalisation
    r"\bgave (?:away )?(?:(?:his|her|their|my|the|its|our|a|an) )?[\w\- ]{1,30}? (?:away|to)\b",
    r"\bpostponed\b|\brescheduled\b|\bdelayed\b|\bpushed (?:back|out|to)\b|\bbrought forward\b|\bslipped\b",
    r"\bshifted\b",
    r"\bturned \d",
    r"\bback to\b|\breturned to\b|\brevert(?:ed|s)?\b",
    r"\bcorrection\b|\bcorrected\b|\bupdated to\b",
    r"\bre-?book(?:ed|s)\b|\bre-?assigned\b|\bre-?located\b",
    r"\bstarted (?:eating|drinking|smoking) (?:\w+ ){0,3}?again\b",
    r"\bgot a raise\b|\breissued\b|\breinstated\b|\brestored\b|\brename\b",
    r"\bwent ga\b|\b(?:is|are|was|were) (?:now )?(?:done|over|finished|complete)\b|\bdefended\b",
    r"\bpassed away\b|\bdied\b|\bwelcomed\b",
    r"\benabled\b|\bdisabled\b|\bturned (?:on|off)\b",
    r"\b(?:started|took|got|landed|accepted) (?:a new|the) (?:job|role|position)\b",
    # "took a job with KPMG", "accepted an offer from Monzo", "new employer is Arup"
    r"\b(?:took|accepted|landed|got) (?:a |an |the )?(?:new )?(?:full-?time |permanent )?"
    r"(?:job|role|position|offer) (?:with|at|from)\b|\bnew employer\b",
    # "start time is quarter past nine since the new contract": since something new
    r"\bsince (?:the|my|our|their|his|her) new\b(?! year)",
    NEW_HOME_OF_THEIR_OWN,
    MOVED_IN,
    r"\bsigned (?:the|a|their|its) (?:contract|deal|agreement|order form)\b",
    r"\bfromnowon\b",
    # rules v6: "these days" sets the value against what it was
    r"\bnowadays\b",
    # rules v37: the new value said to hold from here on
    rf"\b(?:{HOLDS_FROM_HERE_ON})\b",
    # "now" sets the value against what it was, except where it is not about this value's time
    # ("for now", "until now", "now that ...") or adds a thing beside the old ("now has a dog")
    r"(?<!\bfor )(?<!\buntil )(?<!\bby )(?<!\bjust )(?<!\bright )\bnow\b(?! that\b)"
    r"(?! (?:also |even )?(?:has|have|owns?|got|gets) (?:a|an|another|two|three|some)\b)",
    r"\b(?:is|are|am|was|were|now|got|been|gone|goes|went) (?:down|up) to \d",
    r"\bto (?:money_)?\d+(?:[.,]\d+)* from (?:money_)?\d",  # "down to 17 from 22"
    r"\bfrom (?:today|tomorrow)\b",
    # "from this month school starts at 8:15", "the Y reshuffled the kids' schedule"
    r"\bfrom this (?:week|month|term|semester|season|year)\b",
    r"\breshuffled (?:\w+ ){0,3}?(?:schedule|timetable|rota|hours|times)\b",
    # a new trade: "retrained as a nurse", "qualified as a solicitor"
    r"\b(?:retrained|requalified|qualified) as\b",
    # a child's next school: "started reception at St Peter's", "started Year 7 at Riverside"
    r"\bstarted (?:reception|school|nursery|kindergarten|preschool|year \w+|grade \w+) at\b",
    # a value said to hold from a date on ("from June the bins go on Thursday", "the rent to
    # €1,240 from January"), since a recent time, or a change named as such ("small change:")
    r"\bfrom (?:month_\d+|date_\d+_\d+)\b(?! (?:to|until|till)\b)",
    r"\bsince last (?:week|month|sprint|year|term|quarter|season)\b",
    # a new job or school about to start, as a move about to happen ("is moving to"): "is
    # starting at Monzo on the 1st", "starts at St Anne's in September"
    r"\b(?:is|am|are) starting (?:a new (?:job|role) )?(?:at|with)\b|"
    r"\bstarts? (?:a new (?:job|role) )?at (?:[\w'&.-]+ ){1,3}?(?:on|next|in|from)\b",
    r"\b(?:got|was|were|been|is|are) cut\b",
    r"\bchanges? (?:in|of|to)\b|\bchange:",
    # rules v5: a thing rebuilt on another, one traded for another
    r"\bported (?:\w+ ){0,3}?(?:to|onto)\b|\bre-?(?:implemented|platformed|written)\b",
    r"\btraded (?:\w+ ){0,4}?for\b",
    r"\blet (?:\w+ ){0,4}?(?:lapse|expire|run out)\b|\bran out\b|\b(?:is|are|was|were) gone\b(?! back)",
    r"\busedto\b.*\bnow\b",
    # a correction in so many words: "is actually May 5", "turns out it's Dana"
    r"\b(?:is|are|was|were|am)\s+actually\b|\bactually\s+(?:is|are|was|were)\b|\bturns? out\b|\bturned out\b",
    r"\b(?:is|are|am|was|were) (?:\w+ )?(?:done|finished|through) with\b",
    r"\blost (?:(?:his|her|their|my|the|a|an) )?(?:job|position|role)\b",
    r"\b(?:was|were|got|been|put) onhold\b|\bonhold (?:the|their|his|her|my|our|its)\b",  # "paused", "put on hold"
    r"\bchurned\b|\bdeleted\b|\brenewed\b|\bshipped\b|\blaunched\b|\bwent live\b|\bwas released\b",
    r"\b(?:come|came) around to\b|\bwould rather (?:\w+ ){1,5}?than\b",
    r"\b(?:had|gave birth to) (?:a|an|their|her|his) (?:\w+ )?(?:baby|child|son|daughter|kid)\b",
    r"\b(?:previously|formerly)\b.{0,200}\bnow\b",
    r"\b(?:took|adopted) (?:[\w']+ ){0,3}?(?:surname|name)\b",
    # rules v4: constructions that say the value changed without a change verb
    r"\b(?:is|are|am|was|were) back (?:on|to|with)\b|\bwent back\b|\bgone back\b",
    r"\bput (?:\w+ ){0,3}?on\b(?! (?:weight|hold))",  # "the vet put the cat on a wet-food diet"
    r"\b(?:since|after) (?:the|a|an|his|her|their|its|our|my) (?:\w+ )?(?:reorg\w*|merger|move|acquisition|"
    r"promotion|wedding|divorce|breakup|brokeup|layoffs?|restructur\w*|rebrand\w*|switch|change|"
    r"diagnosis|surgery|birth|injury|accident|renovation|migration|upgrade|downgrade|transfer|upsell|"
    r"downsizing|expansion|cancellation|reset|renegotiation|takeover|handover|handoff)\b",
    r"\bsince (?:moving|switching|changing|leaving|joining|starting|quitting|getting|the move|"
    r"the switch|then)\b",
    r"\b(?:starting|effective|beginning) (?:on |from |in |with )?(?:date_|month_|weekday_|quarter_|year_|"
    r"next|today|tomorrow|this|the (?:next|first|start)|immediately)",
    r"^from (?:date_\S+|month_\S+|quarter_\S+|next \w+|today|tomorrow)(?: , year_\d{4})?(?: ,)? "
    r"(?!(?:to|until|till|through|-)\b)",
    r"\bfrom (?:date_\S+|month_\S+|quarter_\S+|next \w+|today|tomorrow) on(?:wards?)?\b",
    r"\b(?:took|taken|takes|taking) over\b|\bhanded (?:off|over)\b|\bsucceeded\b|\bstepped down\b|"
    r"\bstepped into\b|\bsteps down\b",
    r"\b(?:rose|fell|jumped|climbed|dropped|dipped|grew|shrunk|shrank|fallen|risen) (?:from [\w$€£.,\- ]{1,30}? )?to\b",
    r"\bdoubled\b|\btripled\b|\bhalved\b|\bwent from\b",
    r"\brather than\b|\bin place of\b|\bin favou?r of\b|\bno more\b(?! than)",
    r"\bswapped\b|\btraded\b|\bmoved over\b|\bre-?(?:scheduled|named|branded|located|assigned|signed)\b",
    r"\bcame off\b|\bwent off\b|\bgot off\b|\bweaned off\b",
    r"\b(?:has|have|had) since\b|\bnot any ?more\b",
    r"\b(?:is|are|am|was|were|now) (?:down|up) to\b|\bconverted\b|\brewr(?:ote|itten)\b|\brebuilt\b",
    r"\bremoved\b|\bcut out\b|\bturned (?:\w+ ){1,3}off\b|\bunlocked\b|\bunblocked\b|\breopened\b",
    r"\bpassed (?:the|a|an|his|her|their|my) \w+",
    r"\b(?:started|began|took up|picked up) (?:\w+ ){1,3}again\b|\bagain\b(?= now|$|,)",
]
# Change words that name the value left behind (x): "instead of cash", "from Basic to Plus". The
# change is evidence about the old fact only when x is the old fact's.
LEFT_VALUE = (
    r"(?:instead of|rather than|in place of|(?:\w+ ){0,6}?from) (?:(?:his|her|their|my|the|a|an|its|our) )?"
    r"(?P<x>[\w$€£.\-]+(?: [\w$€£.\-]+)?)(?= to\b|$|[,;.]| and\b| for\b| now\b| with\b)"
)
# What follows a thing begun and makes it another one, or no lasting state: "joined Instagram for
# their bakery", "for the weekend", "as a gift".
STARTED_ELSEWHERE = (
    r"^\s*(?:for (?:a|an|the|their|his|her|my|our|its) |as a gift|on behalf|this (?:week|weekend|month)|"
    r"for (?:a|one|two|three|a few|\d+) (?:days?|weeks?|nights?))"
)
# What, written just before a change or state word, says it did not happen or has not yet: "was
# never suspended", "will be cancelled on June 1", "is scheduled to be deactivated".
NOT_REALIZED_BEFORE = (
    r"\b(?:not|never|no|nolonger|without|will|would|may|might|could|going to|scheduled to|set to|about to|"
    r"due to|threatened to|asked (?:\w+ )?to|wants? to|plans? to|if)(?: [\w']+){0,2}\s*$"
)
# A time still to come: "is moving to Denver next year" is a plan, not a move.
FUTURE_TIME = (
    r"\bnext (?:year|month|week|spring|summer|fall|autumn|winter|quarter|semester)\b|"
    r"\bin (?:a few|two|three|four|six|\d+) (?:days|weeks|months|years)\b|\bsoon\b|\blater this\b"
)
# A value said to hold from a recent point on, as written (the normaliser reads "as of this
# month" as "currently"): "as of this month", "as of monday", "as of last week", "as of the
# April cycle", "as of the February release". Change evidence unless the value is "still" so.
AS_OF_RECENT = (
    r"\bas of (?:this (?:week|month|year|quarter|cycle|round|term|semester|season)|(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    r"last (?:week|month|sprint|year|quarter)|yesterday|"
    r"(?:the|our) (?:[\w-]+ ){0,2}(?:release|cycle|sprint|update|rollout|reorg|restructure|review))\b"
)
# "as of <when>": the date a fact says its value holds from (normalised dates: month_11,
# date_3_5, year_2026), or the present ("as of this month").
AS_OF = (
    r"\bas of (?:month_(?P<month>\d+)|date_(?P<dmonth>\d+)_(?P<day>\d+))?(?: ,)? ?(?:year_(?P<year>\d{4}))?"
)
AS_OF_PRESENT = (
    r"\bas of (?:this (?:week|month|summer|spring|fall|autumn|winter|year|quarter)|today|now|right now)\b"
)
# Change evidence that is itself a negation: "not ... anymore" is evidence, not its denial.
NEGATING_EVIDENCE = frozenset({"anymore", "nolonger", "no more", "not any more", "not anymore"})
# Verbs that start having or doing something: what the old fact denied, begun (x).
STARTED = (
    r"\b(?:started|began|took up|picked up|bought|purchased|adopted|obtained|earned|signed up for|"
    r"subscribed to|joined|enrolled in|learned|installed)"
    r"(?! (?:learning|studying|trying|looking|considering|planning|saving|thinking|practi[cs]ing|researching|"
    r"exploring|shopping|training|preparing)\b) (?:(?:\w+ing|his|her|their|my|the|a|an) )?"
    r"(?P<x>[\w\-\.]+(?: [\w\-\.]+){0,2})"
)
# Words that negate what follows them: an old value negated in the new fact is change evidence,
# and a negation on one side only is never a duplicate.
NEGATIONS = frozenset({"not", "no", "never", "nolonger", "none", "without"})
# A dated past period: history next to a current fact, never a contradiction of it (unless the
# new fact also says the old value changed).
PAST_PERIOD = [
    r"\busedto\b",
    r"^(?:in|during) year_\d{4}\b(?! \w+ (?:will|is|are))",  # "In 2019 the user ran Ubuntu"
    r"\bfrom year_\d{4} (?:to|until|till|through|-) ?(?:year_\d{4}|now)\b",
    r"\bbetween year_\d{4} and year_\d{4}\b",
    r"(?<!valid )(?<!good )(?<!runs )(?<!expires )\b(?:until|till|before) year_\d{4}\b",
    r"\b(?:was|were|did|had|lived|worked|owned|studied|attended|used|drove|played|taught|managed|led) "
    r"(?:[\w']+ ){0,6}?in year_\d{4}\b",
    r"\bback in (?:the (?:day|days|\w+s)|year_\d+|month_\d+|\d{4}|college|school|high school|university)\b",  # not "is back in Leeds"
    r"\byears ago\b",
    r"\bpreviously\b",
    r"\bformerly\b",
    r"\bin the past\b",
    r"\bonce (?:lived|worked|owned|had|was|were|used)\b",
    r"\bas a (?:kid|child|teen|teenager|student)\b",
    r"\b(?:through|during|throughout) (?:college|high school|university|uni|grad school|school)\b",
]
# Words that make the order of two values matter: "prefers tea over coffee", "from X to Y".
ORDERED = r"\b(?:over|than|instead|rather|from|before|after|vs|versus|not)\b"
# Events that happen once: two dates of one are two accounts of it, not two periods.
ONCE_ONLY_EVENTS = frozenset("born birth died founded established incorporated".split())
# Likes against dislikes of the same thing: a contradiction of the same attribute.
LIKING = frozenset({"lik", "prefer", "favorit", "enjoy"})
DISLIKING = frozenset({"hat", "dislik", "avoid"})
# What each diet excludes: eating it contradicts the diet.
DIET_EXCLUDES = {
    "vegetarian": frozenset(
        "meat beef pork chicken steak bacon ham lamb turkey fish salmon tuna burger burgers".split()
    ),
    "vegan": frozenset(
        "meat beef pork chicken steak bacon ham lamb turkey fish salmon tuna burger burgers cheese dairy milk "
        "egg eggs butter yogurt honey".split()
    ),
    "pescatarian": frozenset("meat beef pork chicken steak bacon ham lamb turkey burger burgers".split()),
    "halal": frozenset("pork bacon ham".split()),
    "kosher": frozenset("pork bacon ham shellfish shrimp lobster".split()),
}
EATING = r"\b(?:eats?|ate|eating|orders?|ordered)\b"

# --- patterns the rules' detectors read ----------------------------------------------
# Where a value phrase ends: a preposition, a conjunction or punctuation.
PHRASE_BOUNDARY = (
    r"\s(?:for|since|after|because|starting|from|as|but|so|when|while|until|last|this|next|on|with|and|"
    r"in order|due to|which|who|where|at the|full|fulltime|instead|now|then|before|through|via|to save|to get)\b|[,;:.()\"]"
)

# Words saying a value is current or changed. They grade a detector's confidence; acting
# still needs CHANGE_EVIDENCE.
CURRENT_OR_CHANGED = (
    r"\b(?:now|nowadays|anymore|nolonger|fromnowon|instead|switch\w*|mov(?:ed|es|ing|e)|relocat\w*|changed|changes|changing|change (?:to|from|of|in)|"
    r"replac\w*|upgrad\w*|downgrad\w*|migrat\w*|transferr\w*|promoted|renamed?|went (?:up|down)|raised|lowered|"
    r"increased|decreased|expanded|grew to|shrank|reduced|cut to|bumped|pushed|postponed|rescheduled|reshuffled|retrained|requalified|delayed|"
    r"brought forward|slipped|slid|shifted|re-?booked|put (?:\w+ ){0,3}on|reissued|became|turned|got (?:a raise|engaged|married|divorced|promoted|a new|the promotion|a promotion)|started a new|"
    r"new|joined|correction|actually|updated?|converted|since|starting|as of|effective|raise|welcomed|signed|"
    r"from (?:date|month|weekday|now|today|next)_?\w*|from this (?:week|month|term|semester|season|year))\b"
)

# Quantifiers that widen a fact: "allergic to all nuts".
UNIVERSAL = r"\b(?:all|every|any|everything|anything|each|entire|whole)\b"

# A past-tense verb dated to a year: "was in Rome in 2019".
PAST_DATED = r"\b(?:was|were|did|ran|had|\w+ed) (?:[\w']+ ){0,5}?in year_\d{4}\b"

# A part of what the old fact counts: "some of those seats".
PART_OF = r"\b(?:of|out of|among|part of|some of|one of) (?:those|these|them|the|its|their|our|his|her) (\w+)"

# "<slot> is <value>" or "<slot>: <value>" as the whole fact.
ASSIGNMENT = r"^(?P<slot>[^:]{3,60}?)(?: is| are|:) (?P<value>[^,;]+?)\s*\.?$"

# The old fact names what it left behind: "having moved away from Vim".
LEFT_BEHIND = r"\b(?:moved away from|having left|after leaving|switched from|gave up|quit) ([\w\-\.\+# ]+)"

# The old fact names what it switched to.
SWITCHED_TO = r"\b(?:switched|moved|changed|migrated|converted)\b(?: \w+){0,3} to ([\w\-\.\+# ]+)"

# The new fact says what ended came back: "expired last year but was renewed".
RESTORED = (
    r"\b(?:renewed|reactivated|reinstated|restored|reopened|unlocked|unsuspended|resumed|re-?enabled|"
    r"re-?subscribed|rejoined|signed back up|came back|back on|still)\b"
)

# A state that held for a while and is over: "was briefly suspended last month".
EPISODE = (
    r"\b(?:was|were|had been|got) (?:\w+ ){0,2}?(?:briefly|temporarily)\b|"
    r"\b(?:briefly|temporarily) (?:\w+ ){0,2}?(?:was|were|had been|got)\b|"
    r"\b(?:was|were|had been|got) (?:\w+ ){1,3}?for (?:a|an|one|two|three|a few|several|\d+) (?:hours?|days?|weeks?)\b"
)

# What follows a ranking and narrows it: "aisle seats over window seats on long flights".
NARROWED = r"\s(?:on|for|when|at|in|during|if|while|unless|except) "

# Parts of the day, in minutes after midnight: a time at 6am is a morning one.
PARTS_OF_DAY = ((300, 720, "morning"), (720, 1020, "afternoon"), (1020, 1320, "evening"))

# What a fact names only as passed over: "tea over coffee", "Linux rather than Windows"
PASSED_OVER = r"\b(?:over|rather than|instead of)\s+"

# A one-off exception: "today only", "this time".
ONE_OFF = (
    r"\b(?:today|tomorrow|tonight|yesterday|this (?:morning|afternoon|evening|time|once))\b(?: only)?|"
    r"\bonly (?:today|tomorrow|this week|this time|once)\b|\bjust this (?:week|time|once)\b|\bone[- ]off\b|"
    r"\bthis (?:week|month) only\b|"
    r"\bfor (?:today|tomorrow)\b|\bso far\b|"
    # one occasion named by its week or day: "moved this week's gig", "cancelled this Saturday",
    # "moved to Friday this week" (the normaliser writes days as "weekday_sat")
    r"\bthis week ?'s\b|\bthis weekday_\w+|\bweekday_\w+ this week\b"
)

# A value scoped to some days: "on Fridays", "weekends".
SOME_DAYS = r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days\b|\b(?:every|on) (?:mon|tue|wed|thu|fri|sat|sun)|weekends?\b"

# Where something "lives" that is not a home: "the team lives in a channel called #design-crit".
NOT_A_HOME = (
    r"(?:a |an |the |their |our |one )?(?:\w+ )?(?:channel|chat|thread|folder|doc|document|spreadsheet|sheet|"
    r"notebook|app|inbox|repo|repository|drive|tab|terminal|browser|group|board|wiki|workspace|calendar|head)s?\b"
)
# What one moves to that is no place: "moved to a wav2vec-based model", "moved to the night shift"
NOT_A_PLACE_MOVED_TO = (
    r"(?:a |an |the |their |our |my )?(?:[\w-]+ ){0,2}(?:model|version|plan|tier|provider|stack|system|setup|"
    r"approach|schedule|routine|framework|tool|platform|service|library|format|strategy|method|diet|shift|"
    r"team|role|position|job|rota|pattern)s?\b"
)
MOVED_TO_NO_PLACE = f"(?!{NOT_A_PLACE_MOVED_TO})"
# Frames that read a value from its wording: where someone lives, works, whom they report to...
VALUE_FRAMES: dict[str, list[str]] = {
    "location": [
        r"\b(?:lives?|living|live|based|located|homebase|hometown|headquarters|settled)(?!\s+(?:now |still )?(?:in |at )?"
        + NOT_A_HOME
        + r")\s*(?:is |are )?(?:now |still )?(?:in|at|:|out in|is in|are in)?\s+"
        + MOVED_TO_NO_PLACE
        + r"(?P<v>[^,;.]+)",
        r"\b(?:moved|moving|relocated|relocating|relocates|moves)\s+(?:back\s+|all \w+ \w+ )?(?:to|into)\s+"
        + MOVED_TO_NO_PLACE
        + r"(?P<v>[^,;.]+)",
        # a home rented, or lived in, is where they live: "is renting in Rathmines", "rents a
        # flat in Dublin", "is in a studio in Bushwick"
        r"\b(?:rents?|renting)\s+(?:(?:a |an |the |their |our |my )?(?:\w+ )?"
        + HOME_NOUNS
        + r"\s+)?in\s+(?P<v>[^,;.]+)",
        r"\b(?:is|are|am|'m)\s+in\s+(?:a |an |the |their |our |my )(?:\w+ )?"
        + HOME_NOUNS
        + r"\s+in\s+(?P<v>[^,;.]+)",
        # "home is York now", "calls Lisbon home": the place, not a kind of home ("home is a flat"),
        # nor the pay one takes home ("take home is about 3400/month")
        r"\bhome(?<!\btake home)(?<!\btake-home)(?<!\btakes home)(?<!\btook home)(?<!\btaking home)"
        r" (?:is|:)\s+(?:now\s+)?(?!(?:a|an|the|my|our|their|his|her)\b)(?P<v>[^,;.]+)",
        r"\bcalls?\s+(?P<v>(?!(?:it|this|that|the|a)\b)[^,;.]+?)\s+home\b",
    ],
    "employer": [
        r"\b(?:works?|working|job|position|employed|started)\s+(?:at|for|by)\s+(?P<v>[^,;.]+)",
        r"\bjoined\s+(?P<v>[^,;.]+)",
        # a job left, and where they are now: "quit, he's at Stripe now", "got the job at the RSPCA"
        r"\b(?:changed jobs|quit|left)\b[^.;]{0,30}?\b(?:he|she|they)(?:'s| is| are|'re) (?:now )?at\s+(?P<v>[^,;.]+)",
        r"\bgot the job at\s+(?P<v>[^,;.]+)",
        # "took a job with KPMG", "accepted an offer from Monzo", "new employer is Arup"
        r"\b(?:took|accepted|landed|got) (?:a |an |the )?(?:new |full-?time |permanent )?"
        r"(?:job|role|position|offer)\s+(?:with|at|from)\s+(?P<v>[^,;.]+)",
        r"\bemployer (?:is|:)\s+(?:now\s+)?(?P<v>[^,;.]+)",
        r"\bworks? (?:crazy |long |late |odd )?hours at\s+(?P<v>[^,;.(]+)",
        r"\b(?:engineer|manager|analyst|designer|developer|director|scientist|consultant|nurse|teacher|cto|ceo|cfo|cio|vp|officer|intern|associate)\s+of\s+(?P<v>[^,;.]+)",
        # "a senior UX researcher at Figma": any role at a place, but a student's (a school)
        r"\b(?:"
        + "|".join(sorted(ROLE_NOUNS - {"student", "senior", "junior", "staff"}))
        + r")\s+at\s+(?P<v>[^,;.]+)",
    ],
    "manager": [
        r"\breports? to\s+(?P<v>[^,;.]+)",
        r"\b(?:manager|boss|supervisor)\s+(?:is|:)\s+(?:now\s+)?(?P<v>[^,;.]+)",
    ],
    "champion": [
        r"\bchampion\b[^:;]{0,200}?\b(?:is|:)\s+(?:now\s+)?(?P<v>[^,;.]+)",
        r"^(?P<v>[a-z]+ [a-z]+)\b[^;]*?\bis (?:now )?(?:our|their|the) (?:main |new |primary )?champion",
    ],
    "school": [
        r"\b(?:attends|attending|goes to|enrolled (?:at|in)|transferred to|studies at)\s+(?P<v>[^,;.]+)",
        # "is in Year 3 at Oakfield Primary", "started reception at St Peter's"
        r"\b(?:is in|started|starts|starting) (?:year|grade|class|form) \w+ at\s+(?P<v>[^,;.]+)",
        r"\b(?:started|starts|starting) (?:reception|school|nursery|kindergarten|preschool|daycare|creche) "
        r"at\s+(?P<v>[^,;.]+)",
    ],
    "bank": [
        r"\bbanks? (?:with|at)\s+(?P<v>[^,;.]+)",
        r"\b(?:accounts?|savings|money|checking) (?:to|at|with)\s+(?P<v>[^,;.]*?\b(?:bank|credit union))",
        r"\bbank (?:is|:)\s+(?P<v>[^,;.]+)",
    ],
    "name": [
        r"\b(?:name|surname|firstname) (?:is|:|to)\s+(?:now\s+)?(?P<v>[^,;.]+)",
        r"\b(?:goes by|go by|(?:is|are|be|was) (?:now )?(?:called|named)|renamed(?: to| as)?)\s+(?P<v>[^,;.]+)",
        r"\b(?:took|takes|taken|adopted) (?:[\w']+ ){0,3}?(?:surname|name)\s*,?\s+(?P<v>[^,;.]+)",
    ],
    "username": [r"\b(?:username|handle|login) (?:is|:|to)\s+(?:now\s+)?(?P<v>[^,;.\s]+)"],
    "role": [
        # "named as head of design", not "a cat named Pamuk"
        r"\b(?:(?:promoted|appointed) (?:to |as )?|named (?:to|as) )(?:the )?(?P<v>[^,;.]+)",
        r"\b(?:title|role|position) (?:is|:)\s+(?:now\s+)?(?P<v>[^,;.]+)",
        # "made it to consultant", "got bumped up to account executive": a step up, said as reached
        r"\b(?:made it|bumped up|moved up|stepped up) (?:to|as) (?:a |an |the )?(?P<v>(?:[a-z]+ ){0,3}(?:"
        + "|".join(sorted(ROLE_NOUNS))
        + r"))\b",
        # not "Tomasz is my manager now": a role said with "my" or "our" is someone else's
        r"\b(?:is|was|as|became|becomes|am|i'm|im)(?: now| finally| officially)? (?:a|an|the|their|his|her) (?:fulltime |parttime )?(?P<v>(?:[a-z]+ ){0,3}(?:"
        + "|".join(sorted(ROLE_NOUNS))
        + r")\b(?: (?:of|for) [a-z]+)?)",
        # a title said without an article: "is headteacher now", "became engineering manager";
        # not a rank word alone ("is senior now")
        r"\b(?:is|became|becomes|am|i'm|im)(?: now| finally| officially)? (?P<v>(?!(?:my|our|your) )(?:[a-z]+ ){0,2}(?:"
        + "|".join(sorted(ROLE_NOUNS - _RANK_WORDS - _NAMES_TOO))
        + r"))\b(?= (?:now|at|in|since|for|last|this|from|after|as of|on)\b|\s*$|\s*[,.;!])",
    ],
}

# A lead-in that reports the fact: "Customer mentioned that ...".
REPORTING_CLAUSE = (
    r"^(?P<r>(?:the )?(?:user|customer|client|they|he|she|[a-z][\w&.]*(?: [a-z][\w&.]*){0,2}))\s+"
    r"(?:mentioned|said|says|noted|notes|told (?:us|me)|reported|confirmed|mentions|explained|stated|"
    r"indicated)\s+(?:on [\w ]+? )?(?:that\s+)?"
)

# A quoted speaker: 'Acme admin on the call: "We ..."'.
SPEAKER_CLAUSE = (
    r"^(?P<r>[a-z][\w&.]*(?: [a-z][\w&.]*){0,2})(?: 's)? (?:admin|rep|representative|contact|champion|cto|ceo|cfo|"
    r"cio|vp|lead|manager|buyer|owner|founder|head|director|team)\b[^:]{0,40}:\s*\"?"
)

# A memory kept as the user said it (the extractor's verbatim method): "User said: Hana just
# started at Figma". When its sentence names someone ("Hana", "my wife"), that is its subject,
# not the user who said it (classifiers/rules_facts.analyze).
VERBATIM_LEAD_IN = r"^user said:\s*"

# "Correction:", "Update:", "FYI" before the fact.
CORRECTION_LEAD_IN = (
    r"^(?:correction|update|note|fyi|heads up)(?: from (?:the )?(?:user|customer|client))?\s*[:,-]\s*"
)

# Classes whose words are ambiguous count only where these say the class is meant.
CLASS_CONTEXT: dict[str, str] = {
    "plan": r"\b(?:plan|tier|subscription|upgrad\w*|downgrad\w*|edition|license)\b",
    "deal_stage": r"\bstage\b|\b(?:is|now|became|become|as) (?:a |an )?(?:paying )?(?:customer|prospect|lead)\b|\bsigned\b|\bpipeline\b",
    "commute": r"\b(?:bikes?|biking|cycles?|cycling|drives?|driving|walks?|walking|takes? the (?:bus|train|subway|metro)|commutes?(?: by)?|rides?) (?:to )?(?:work|the office|school|campus)\b|\bcommut",
    "channel": r"\b(?:reach|contact|way to|prefers?|best|fastest|channel|by|via|over)\b",
    "payment": r"\bpa(?:y|ys|id|ying|yment)\b|\bcard\b|\bending\b|\bon file\b|\bbill\w*|\bcharge\w*|\binvoic\w*|\bcheckout\b",
    "billing": r"\bbill\w*|\bplan\b|\bsubscription\b|\bpay\w*|\brenew",
    "frequency": r"\b(?:summar\w*|report\w*|email\w*|digest\w*|update\w*|newsletter\w*|check-?ins?|sync\w*|meeting\w*|once)\b",
    "relationship": r"\b(?:is|got|now|became|are|am|was) (?:single|dating|engaged|married|divorced|separated|widowed)\b|\bgot engaged\b|\bgot married\b|\bgot divorced\b",
    "release_stage": r"\b(?:in|is|went|now|entered|reached|to|hit) (?:alpha|beta|ga|preview|launched|deprecated)\b|\b(?:alpha|beta)\b",
}

# What a new fact says it came from: "from Chrome", "instead of Slack".
LEFT_FROM = r"\b(?:from|away from|after leaving|instead of) ([\w\-\.\+# ]+?)(?: to\b|,|;|$| and\b)"

# An age: "is 34", "turned 6 last week".
AGE = r"\b(?:is|turned|turns|turning|aged?) (\d{1,3})(?: years? old)?(?=\s*(?:$|[,.;]|last|this|on|in|years|yesterday|today|now))"

# An ongoing state brought to its end: "finished the course", "gave birth".
COMPLETED = (
    r"\b(?:finished|completed|defended|graduated|passed|is done|are done|was done|wrapped up|gave birth|"
    r"healed|came off|ended|concluded)\b"
)

# "from X to Y" in the new fact: where a change started and where it ended.
FROM_TO = (
    r"\b(?:changed|changes|switched|switches|moved|moves|went|goes|grew|rose|fell|dropped|cut|reduced|"
    r"increased|raised|lowered|upgraded|downgraded|migrated|converted|transferred|shifted|bumped|jumped|"
    r"climbed|expanded|shrank|shrunk|decreased|slipped|pushed|updated|renamed|rescheduled|postponed|"
    r"moved|changing|switching|moving|migrating|migrates)\b(?: [\w']+){0,4}? "
    # "migrating off jenkins to github actions": what is left, then what is taken
    r"(?:from|off(?: of)?) (?P<x>[\w$€£.\-]+(?: [\w$€£.\-]+){0,2}?) to (?P<y>[\w$€£.\-]+(?: [\w$€£.\-]+){0,3})"
)

# The old fact already says when its thing ends ("the trial expires on May 5", "the membership
# runs until June"): a new fact saying it ended agrees with it.
SCHEDULED_END = (
    r"\b(?:expires?|ends?(?! in\b)|lapses?|runs? out)\b|\b(?:valid|good|runs?|lasts?) (?:until|till|through)\b|"
    r"\bwill (?:end|expire|lapse|run out)\b|\b(?:set|due|scheduled) to (?:end|expire|lapse)\b"
)

# "the Basic plan to Pro": "plan to" after a determiner names a plan, it is no intention.
NOUN_PLAN = r"\b(?:the|a|an|their|his|her|my|our|its|this|that)(?: (?!user|customer|client|team|company)\w+)? plans? (?:to|on)\b"
# Where a thing ended: "turned off 2FA on Twitter" (the words after what ended).
SCOPE = (
    r"^\s*(?:on|at|for|with|in|from) (?:(?:his|her|their|my|the|a|an|its|our) )?([\w\-\.]+(?: [\w\-\.]+)?)"
)
# What a phrase is about, not what it is: "the ticket about the account".
ABOUT = r" (?:about|regarding|concerning|related to|linked to|tied to) "
# Qualifiers that point at the old fact's own thing: "the old address has been closed".
THE_OLD_ONE = r"\b(?:old|previous|former|prior)\b"
# Where "from X to Y" goes on to Y.
TO_WHAT = r" (?:to|into|for) "
# A preposition or article before a value: "is now on Pro".
LEAD_WORD = r"^(?:on|in|at|with|using|a|an|the) "

# "used to drive a Honda; now drives a Tesla": what was (x) and what is now (y).
USED_TO_NOW = (
    r"\b(?:usedto|(?:was|were) (?:previously|formerly)|previously|formerly) (?:\w+ )?(?:(?:a|an|the|his|her|their|my) )?(?P<x>[\w\-\.]+(?: [\w\-\.]+){0,2}?)\s*[,;]?\s*"
    r"(?:but |and )?(?:\w+ )?now (?P<y>[\w\-\. ]+)"
)

# Something that had ended is back: "started smoking again", "resumed the lessons".
RESUMED = (
    r"\b(?:started|began|took up|picked up|is back|are back|went back|came back)\b(?: [\w']+){0,4}? again\b|"
    r"\bagain\b|\bresumed\b|\breinstated\b|\breactivated\b|\brestarted\b|\breopened\b|"
    # rules v6: back on the thing, signed up for it once more
    r"\bre(?:subscribed|joined|enrolled|newed)\b|\bsigned back up\b|\b(?:is|are|am|was|were) back (?:on|with)\b|"
    r"\bun(?:froze|frozen|blocked|paused)\b"
)

# "prefers Go over Python", "likes cats more than dogs", "prefers tea to coffee": what is chosen
# (y) and what it is chosen over (x); "to" only after "prefer" ("wants the team to ship" ranks
# nothing).
PREFERRED_OVER = (
    r"\b(?:(?P<prefer>prefers?|preferring)|likes?|chose|chooses|picked|picks|uses?|wants?|goes with|went with) "
    r"(?P<y>[\w\-\.]+(?: [\w\-\.]+){0,2}?) "
    r"(?:over|rather than|instead of|more than|(?(prefer)to|(?!))) (?P<x>[\w\-\.]+(?: [\w\-\.]+){0,2})"
)

# What a like or a dislike is about (o), up to where its clause goes on.
PREFERENCE_OBJECT = (
    r"\b(?:likes?|loves?|enjoys?|hates?|dislikes?)\s+(?P<o>[\w\-]+(?: [\w\-]+){0,3}?)"
    r"(?=\s(?:anymore|now|and|but|because|since|so|these|nowadays|any)\b|\s*[,;.]|$)"
)
# What a fact says its subject chooses: "prefers X", "likes X", "favorite genre is X".
PREFERS = (
    r"\b(?:prefers?|likes?|loves?|chose|chooses|picked|picks|favou?rite(?: \w+)?(?: is| are|:)) "
    r"(?P<v>[\w\-\.]+(?: [\w\-\.]+){0,2})"
)

# A negation as written, before the normaliser folds it into a word ("doesn't eat meat" reads
# "vegetarian"): a fact that takes up a diet in these words denies eating what it excludes.
WRITTEN_NEGATION = r"n't\b|\bnot\b|\bnever\b|\bno longer\b|\bstopped\b|\bquit\b|\bgave up\b|\bcut out\b"

# What heads a piece of news said in chat, before whom it is about: "big news", "update:",
# "change of plans", "guess what", a laugh. Repeated: "change of plans kkkk my mother ...".
_HEADING_WORDS = (
    r"(?:(?:(?:big|good|bad|some|quick|small|huge|exciting|sad|more|other) )?(?:news|updates?)|"
    r"change of plans?|plot twist|guess what|fun fact|k{3,}|(?:ha){2,}|lol+|lmao)\b"
)
NEWS_HEADING = rf"^{_HEADING_WORDS}(?:[\s:,!.-]+{_HEADING_WORDS})*[\s:,!.-]*"

# A move of home: "moved into an assisted-living home", "finished the move".
MOVED_HOME = (
    # the subject's own move ("moved back to", "moved us to", "relocated its headquarters to"),
    # not something moved ("moved their desk to", "moved Anzuelo to", "moved Mum to")
    r"\b(?:moved|moves|relocated|relocates)(?= (?:to|into|in|us|me|back|out|over|away|house|home|recently|just|"
    r"finally|officially|permanently|here|there|all|again|abroad|across|up|down|hq|headquarters|"
    r"(?:its|their|the|our|my|his|her) (?:headquarters|hq|head office|base|home|family|house|whole family))\b)"
    r"(?: [\w']+){0,3}? (?:to|into|in with)\b|"
    r"\b(?:finished|completed|made) (?:the|their|her|his|our|my) move\b|"
    + NEW_HOME_OF_THEIR_OWN
    + "|"
    + MOVED_IN
)

# A switch to a named value: "switched to X", "replaced ... with X".
SWITCHED_VALUE = (
    # "rent was bumped to 1600": a sum raised or cut to its new value
    r"\b(?:switched|changed|moved|converted|migrated|upgraded|downgraded|went|bumped|raised|hiked|"
    r"increased|lowered|reduced)(?: [\w']+){0,3}? "
    r"(?:over |back )?(?:to|for) (?P<v>[\w\-\.\+# ]+)|\breplaced\b.{0,200}?\bwith (?P<w>[\w\-\.\+# ]+)|"
    r"\b(?:rewritten|rewrote|rebuilt|rebuild|reimplemented|replatformed|ported)(?: [\w']+){0,2}? "
    r"(?:in|on|onto|to|with|using) (?P<u>[\w\-\.\+# ]+)"
)

# Words that only carry a fact told from the side of its thing: "Hiking is something the user
# really loves", "Between Chrome and Firefox, the user prefers Firefox".
RESTATEMENT_FILLER = frozenset("something thing really truly definitely absolutely between".split())
