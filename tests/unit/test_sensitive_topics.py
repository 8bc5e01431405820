"""The topic gate of extracted facts: a code-level lexicon, whatever a model said."""

import re

import pytest

from aurra_core.text_analysis import sensitive_topics
from aurra_core.text_analysis.sensitive_topics import fact_topic, sensitive_topic


@pytest.mark.parametrize(
    "fact",
    [
        "User was diagnosed with diabetes",
        "User has type 2 diabetes",
        "User takes 20mg of fluoxetine every morning",
        "User is on 100 milligrams now",
        "User is allergic to peanuts",
        "User's sister has an egg allergy",
        "User has been having migraines",
        "User started therapy for anxiety",
        "User is pregnant with their second child",
        "User is on antidepressants",
        "User had knee surgery in March",
        "User's father has Alzheimer's",
        "User has ADHD",
        "User's doctor prescribed an inhaler",
        "User is in remission from cancer",
        "User has chronic back pain",
        "User uses an EpiPen",
        "User smokes like half a pack a day",
        "User quit smoking in March",
        "User is an ex-smoker",
        "User is cleared to run again",
        # talking therapies, symptoms and the body's measures
        "User has CBT every other Tuesday",
        "User is keeping a mood diary",
        "User gets short of breath on hills",
        "User weighs 74 kg",
        # the body as a habit's reason, and what a gut or a pregnancy asks of a diet
        "User cut out caffeine because of their heart",
        "User gets heartburn from spicy food",
        "User is on a low FODMAP diet",
        "User is breastfeeding so no alcohol",
        # injuries and their repair
        "User has a torn ACL",
        "User had knee reconstruction in May",
        "User had a skin graft on their arm",
    ],
)
def test_medical_matters_are_health_medical(fact):
    assert sensitive_topic(fact) == "health_medical"
    assert fact_topic(fact, "preferences", None) == "health_medical"


@pytest.mark.parametrize(
    "fact",
    [
        "User is suing their former landlord",
        "User was arrested in 2019",
        "User has a felony conviction",
        "User's work visa expires in June",
        "User is applying for a green card",
        "User lives in Mérida on a temporary resident card since 2023",
        "User is on probation",
        "User is in a custody dispute over their son",
        "User filed for bankruptcy last year",
        "User's brother was deported",
        "User has an H-1B visa",
        "User is going through a divorce",
        "User got a DUI",
        "User is seeking asylum",
        "User is a Canadian citizen",
        "User's permesso di soggiorno is up for renewal",
        "User's titre de séjour expires in October",
    ],
)
def test_legal_matters_are_legal_status(fact):
    assert sensitive_topic(fact) == "legal_status"
    assert fact_topic(fact, "general", None) == "legal_status"


@pytest.mark.parametrize(
    "fact",
    [
        "User uses Emacs",
        "User moved to Berlin last month",
        "User works as a lawyer at a law firm",
        "User prefers tea over coffee",
        "User is on a free trial of the Pro plan",
        "User went on a blind date",
        "User's cat is named Miso",
        "User plays chess on weekends",
        "User switched to VS Code",
        "User's favourite season is autumn",
        "User bought a smoker for brisket",
        "User loves smoked salmon",
        "User is a senior citizen volunteer",
        # a job in health care is the user's work, not their health
        "User is a staff nurse in the cardiac ICU at St. Vincent's",
        "User got the charge nurse position on the cardiac ICU",
        "User works as a paramedic",
        "User has been a GP for ten years",
        "User is a physio at a clinic in Leeds, 4 days a week",
        "User works nights (7p-7a) in the ICU at a hospital in Phoenix",
        "User is teaching 7 classes a week now plus one at a physio clinic",
        # what weighs something is not the user
        "User's carry-on bag weighs 7 kg",
        # a heart or a gut that is no body's
        "User's heart is set on Lisbon",
        "User goes with their gut on hiring",
        "User is leading the reconstruction of the old mill",
    ],
)
def test_everyday_facts_keep_the_extractors_topic(fact):
    assert sensitive_topic(fact) is None
    assert fact_topic(fact, "preferences", None) == "preferences"


def test_the_callers_topic_stands_for_every_fact():
    assert fact_topic("User was diagnosed with diabetes", "preferences", "journal") == "journal"
    assert fact_topic("User uses Emacs", "preferences", "health_medical") == "health_medical"


# Everyday phrasings: a chat names a diagnosis less often than a symptom, a pill or a visit.
MEDICAL_SAID = [
    "my rheumatologist thinks it's psoriatic arthritis",
    "had my appendix out when I was nine",
    "waiting on my blood results from Tuesday",
    "I've been off sick all week with a chest infection",
    "she sprained her wrist at climbing",
    "User had a colonoscopy last month.",
    "got my flu jab at the pharmacy",
    "I'm 20 weeks pregnant, so no sushi for me",
    "we've been trying to conceive for two years",
    "User's son is on the waiting list for a knee operation.",
    "my GP signed me off for two weeks",
    "I wear hearing aids in both ears",
    "my counsellor says journalling helps",
    "User is in recovery and goes to AA meetings.",
    "need a ground floor room, I use a mobility scooter",
    "estoy con fisioterapia por una lesión en el hombro",
    "mi hermano está en tratamiento por cáncer",
    "je suis suivie par une psychologue depuis l'hiver",
    "ma mère a été hospitalisée la semaine dernière",
    "ich war beim Hausarzt wegen meiner Rückenschmerzen",
    "seit der Geburt bin ich schwerhörig",
    "tô com dor nas costas desde a cirurgia",
    "meu filho tem asma e usa bombinha",
    "I've got a sore throat and a temperature",
    "je suis sous antibiotiques",
    "quebrei o braço jogando bola",
    "ich habe mir das Bein gebrochen",
    "tengo cita con el dermatólogo",
    # medicines by brand, tests, pregnancy and care in the wording of several countries
    "switched from salbutamol to a symbicort inhaler",
    "the echocardiogram is booked for the 3rd",
    "third trimester now and sleeping badly",
    "still on the camhs waiting list",
    "User's blood type is O negative",
    "mijn vader ligt in het ziekenhuis",
    "papa ko sugar ki bimari hai",
    # the dentist named without "my", what it costs, and who pays for the user's care
    "new dentist is Dr. Patel",
    "she quoted $380 for the night guard",
    "my wife has gone right off red wine, it gives her headaches now",
    "Blue Cross, through my wife's employer",
    "the dental work came to $1,200",
    # medicines by their generic stem, and conditions and care said in passing
    "on lisinopril 10mg since the spring",
    "takes atorvastatin at night",
    "User has atrial fibrillation",
    "cut my hand on a panel, 6 stitches, clinic put me on keflex",
    "my mum's on donepezil now",
    "the practice nurse wants a food diary",
    # a body part that hurts
    "my knee has been twinging on the descents",
    "User has a dodgy back",
    "endo switched me to taking the levo at bedtime",
    "TSH came back at 6.2",
    # a muscle pulled or strained, a knee that gets sore, a foot in a boot, a diabetes by its type
    "User keeps pulling their right hamstring around the hour mark",
    "User keeps getting calf strains",
    "User has got a dodgy left knee",
    "User's left knee gets sore after long runs",
    "User is in a boot for 6 weeks",
    "User said: 34, type 1",
]


@pytest.mark.parametrize("said", MEDICAL_SAID)
def test_everyday_medical_phrasings_are_health_medical(said):
    assert sensitive_topic(said) == "health_medical"


LEGAL_SAID = [
    "my solicitor thinks we have a good case",
    "User hired an immigration lawyer last week.",
    "the police pressed charges after the fight",
    "my ex is taking me to court over the house",
    "got done for drink driving in 2018",
    "User's driving licence was revoked for a year.",
    "User is the executor of his uncle's will.",
    "we signed a prenup before the wedding",
    "waiting on my indefinite leave to remain",
    "the Home Office still hasn't decided my case",
    "we're in family mediation over the children",
    "HMRC opened a tax investigation into my business",
    "the bailiffs came round about the council tax",
    "mi exmujer me demandó por la custodia",
    "tengo que ir al juzgado el martes",
    "j'ai rendez-vous à la préfecture pour mon titre de séjour",
    "mon avocate dit que le procès aura lieu en juin",
    "ich habe eine Aufenthaltsgenehmigung bis 2027",
    "der Vermieter hat Räumungsklage eingereicht",
    "meu advogado entrou com recurso na justiça",
    "fui preso por engano em 2015",
    "User is fighting a deportation order",
    "estoy en libertad condicional",
    "mon permis a été suspendu",
    "tô respondendo processo",
    "I accepted a police caution",
    # immigration papers by their names, family courts, tenancies
    "my i-485 is still pending",
    "the EU Blue Card came through",
    "czekam na karta pobytu",
    "our decree absolute arrived this morning",
    "the landlord served a section 21 notice",
    "cafcass are writing their report",
    # a divorce's orders
    "the conditional order was granted in December",
    "Final order came through on the 11th",
    "financial order was sealed in March",
    "User is on a highly skilled migrant permit",
    "User's study permit runs out in March",
]


@pytest.mark.parametrize("said", LEGAL_SAID)
def test_everyday_legal_phrasings_are_legal_status(said):
    assert sensitive_topic(said) == "legal_status"


# Look-alikes: the same words about work, software, sport, pets and figures of speech.
LOOK_ALIKES = [
    "User works night shifts as a nurse at St Mary's hospital",
    "ich arbeite als Pflegekraft im Krankenhaus in Köln",
    "User's husband is a lawyer",
    "User is a paralegal at a law firm in Leeds",
    "we booked a squash court for Thursday",
    "my phone case cracked",
    "the 14-day trial of the analytics tool ran out",
    "User is on the trial period of the new CRM",
    "that gig was sick",
    "User took her dog to the vet for a checkup on its paw",
    "User does keto by choice and lifts weights three times a week",
    "I disabled dark mode in the editor",
    "the CI test results came back green",
    "my home office has a new standing desk",
    "esta semana trabajo desde casa",
    "the film is a testament to the director's patience",
    "the thread pool executor needs more workers",
    "we rely on inheritance in the Java code",
    "I overstayed my welcome at the party",
    "the lithium battery in my drone died",
    "I'm addicted to this new show",
    "the old design lost its appeal",
    "Ich koche heute ein leckeres Gericht",
    "die Freundschaft ist mir wichtig",
    "ich arbeite im Krankenhaus an der Rezeption",
    "je mange un avocat tous les matins",
    "la demanda de vivienda sigue subiendo",
    "tô preso no trânsito",
    "estou a processar os dados do trimestre",
    "the beer was ice cold",
    "we need to fix the cold start time",
    "j'ai un rendez-vous chez le coiffeur",
    "tengo una cita con mi novia",
    "el proceso de selección fue largo",
    "swelling demand for GPUs this quarter",
    "ich arbeite beim Finanzamt",
    "User's brother is a police officer",
    "the new boss is a headache",
    "User works at a dental practice in Leeds",
    "the final order of the tournament is set",
    "User drives a petrol car to the Bristol office",
    "the back office is stiff competition",
    "User's car boot is full of kit",
    "User got the boot from the band",
    "User has a type 2 charger for the car",
    "User is revising type 1 and type 2 errors",
    "User pulls the team together on Fridays",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_stay_ungated(text):
    assert sensitive_topic(text) is None


@pytest.mark.parametrize(
    ("entry", "letters"),
    [
        ("asthma", "a"),
        ("(?:my|his|her) lawyer", "hm"),
        ("(?<!free )trials?", "t"),
        ("(?:the )?flu", None),  # an optional start
        (r"\w*krank\w*", None),
        ("[bc]ar", None),
        ("(?:(?:a|b)c|d)", None),  # nested
        ("(?-i:GP)", None),  # case-sensitive
    ],
)
def test_the_letters_an_entry_starts_with(entry, letters):
    found = sensitive_topics._first_letters(entry)
    assert (found if found is None else "".join(sorted(found))) == letters


def test_grouping_by_first_letter_matches_what_the_plain_alternation_matches():
    """The programs behind letter lookaheads find a topic exactly where one alternation of
    all the entries would."""
    texts = [
        *MEDICAL_SAID,
        *LEGAL_SAID,
        *LOOK_ALIKES,
        "User was diagnosed with diabetes",
        "my GP signed me off for two weeks",
        "User's work visa expires in June",
        "the 14-day trial of the analytics tool ran out",
        "ich war beim Hausarzt wegen meiner Rückenschmerzen",
        "User takes 20mg of fluoxetine every morning",
        "we booked a squash court for Thursday",
        "User is in recovery and goes to AA meetings.",
        "User settled status application",
        "detained by ICE last year",
        "User prefers tea over coffee",
    ]
    for name, entries in (("medical", sensitive_topics._MEDICAL), ("legal", sensitive_topics._LEGAL)):
        plain = re.compile(r"(?i)(?<![\w-])(?:" + "|".join(entries) + r")(?![\w-])")
        grouped = sensitive_topics._MEDICAL_RE if name == "medical" else sensitive_topics._LEGAL_RE
        for text in texts:
            assert bool(grouped.search(text)) == bool(plain.search(text)), (name, text)


@pytest.mark.parametrize(
    "fact",
    [
        "User is a nurse and has cardiac arrhythmia",
        "User is in the ICU",
        "User is seeing a GP about their knee",
        "User's nurse said the scan is clear",
        "User works at a hospital and has asthma",
        "User was admitted to the ICU at a hospital",
        "User goes to a physio clinic for their knee",
        "User works through back pain at the clinic",
        "User sees a physio for their knee",
    ],
)
def test_a_health_matter_beside_or_without_a_health_job_is_still_medical(fact):
    assert sensitive_topic(fact) == "health_medical"


@pytest.mark.parametrize(
    ("fact", "topic"),
    [
        ("User grinds their teeth at night", "health_medical"),
        ("User has had a cracked molar for a few weeks", "health_medical"),
        ("User's company is filing their I-140 soon", "legal_status"),
        ("User will file the I-765 for their husband", "legal_status"),
    ],
)
def test_a_tooths_trouble_and_immigration_forms_by_name_are_gated(fact, topic):
    assert sensitive_topic(fact) == topic


@pytest.mark.parametrize("fact", ["User's house has cavity walls", "User grinds their own coffee beans"])
def test_a_cavity_wall_or_grinding_coffee_is_not_health(fact):
    assert sensitive_topic(fact) is None
