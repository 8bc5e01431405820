"""The topic gate of extracted facts: plain code, never a model's judgment.

A fact extracted from a conversation that names a medical or legal matter goes to
`health_medical` or `legal_status` whatever topic the extractor gave it, so the excluded-
category gate of the write pipeline holds even when a model mislabels a diagnosis as a
preference. The lexicon leans wide on purpose: a fact wrongly put in an excluded topic only
loses automatic supersession (a person can still supersede it), while one wrongly let out
could be superseded by a model.
"""

from __future__ import annotations

import re

from aurra_core.text_analysis import regex_programs

HEALTH_MEDICAL = "health_medical"
LEGAL_STATUS = "legal_status"

_MEDICAL = [
    # conditions and diagnoses
    r"diagnos\w*",
    r"disease\w*",
    r"disorder\w*",
    r"syndrome\w*",
    r"illness\w*",
    r"chronic",
    r"diabet\w*",
    r"cancer\w*",
    r"tumou?r\w*",
    r"leukemia",
    r"lymphoma",
    r"asthma\w*",
    r"arthritis",
    r"epilep\w*",
    r"seizures?",
    r"migraines?",
    r"hypertension",
    r"high blood pressure",
    r"cholesterol",
    r"heart (?:attack|condition|disease|failure|surgery)",
    r"stroke",
    r"hiv",
    r"aids",
    r"hepatitis",
    r"covid(?:-19)?",
    r"long covid",
    r"celiac",
    r"coeliac",
    r"crohn'?s",
    r"ibs",
    r"lupus",
    r"multiple sclerosis",
    r"parkinson'?s",
    r"alzheimer'?s",
    r"dementia",
    r"infection\w*",
    r"concussion",
    r"fracture[ds]?",
    r"broke (?:my|his|her|their) (?:arm|leg|wrist|ankle|hip|back|neck)",
    r"injur(?:y|ies|ed)",
    # mental health
    r"depress(?:ion|ed|ive)",
    r"anxiety",
    r"panic attacks?",
    r"bipolar",
    r"schizophreni\w*",
    r"ptsd",
    r"ocd",
    r"adhd",
    r"autis\w*",
    r"eating disorder",
    r"anorexi\w*",
    r"bulimi\w*",
    r"insomnia",
    r"suicid\w*",
    r"self[- ]harm",
    r"mental health",
    r"therap(?:y|ist)",
    r"psychiatr\w*",
    r"counsell?ing",
    r"rehab",
    r"addict\w*",
    r"sober",
    r"sobriety",
    r"alcoholi\w*",
    # medications and treatments
    r"medications?",
    r"medicines?",
    r"prescri\w*",
    r"\d+\s?(?:mg|mcg|ml)\b",
    r"dos(?:e|es|age)",
    r"pills?",
    r"tablets? (?:of|a day|daily)",
    r"insulin",
    r"metformin",
    r"antidepressants?",
    r"antibiotics?",
    r"ssris?",
    r"statins?",
    r"inhaler",
    r"chemo\w*",
    r"radiation therapy",
    r"radiotherapy",
    r"dialysis",
    r"surger(?:y|ies)",
    r"operation on",
    r"transplant",
    r"vaccin\w*",
    r"treatment\w*",
    r"physiotherap\w*",
    r"hospitali[sz]ed",
    r"in (?:the )?hospital",
    r"emergency room",
    # allergies and symptoms
    r"allerg\w*",
    r"intoleran\w*",
    r"anaphyla\w*",
    r"epipen",
    r"symptoms?",
    r"nause\w*",
    r"fever",
    r"chest pain",
    r"back pain",
    r"chronic pain",
    r"blood (?:test|sugar|work)",
    r"biopsy",
    r"mri",
    r"x-ray",
    # pregnancy and reproduction
    r"pregnan\w*",
    r"expecting a (?:baby|child)",
    r"miscarr\w*",
    r"ivf",
    r"fertility",
    r"abortion",
    r"contracepti\w*",
    r"menopaus\w*",
    r"due date",
    # care
    r"doctor (?:said|told|says|diagnosed|prescribed)",
    r"(?:my|his|her|their|user's) (?:doctor|gp|oncologist|cardiologist|psychiatrist|therapist)",
    r"meds",
    r"(?:my|his|her|their|user's) dentist",
    r"dentist (?:appointment|visit)",
    r"(?:doctor|gp|dentist)'s appointment",
    r"(?:doctor|gp|medical|hospital) appointment",
    r"(?:mon|ma|mi|mein|meine|meu|minha) (?:médecin|médico|médica|arzt|ärztin|dentiste|dentista|zahnarzt)",
    r"orthodont\w*",
    r"antihistamines?",
    r"ibuprofen",
    r"paracetamol",
    r"acetaminophen",
    r"penicillin",
    r"amoxicillin",
    r"sertraline",
    r"zoloft",
    r"prozac",
    r"lexapro",
    r"adderall",
    r"ritalin",
    r"levothyroxine",
    r"lisinopril",
    r"birth control",
    r"blood pressure",
    r"check-?up",
    # the same matters in Spanish, French, German and Portuguese (the rules extractor keeps
    # such statements as said)
    r"medicamentos?",
    r"médicaments?",
    r"medikament\w*",
    r"remédios?",
    r"alergi\w*",
    r"alérgic\w*",
    r"allergie\w*",
    r"allergisch",
    r"embarazada",
    r"enceinte",
    r"schwanger",
    r"grávida",
    r"pastillas?",
    r"comprimidos?",
    r"diabetes",
    r"diabète",
    r"disabilit\w*",
    r"wheelchair",
    r"blind(?! date)",
    r"deaf",
]

_LEGAL = [
    r"lawsuits?",
    r"sued",
    r"suing",
    r"sues",
    r"litigation",
    r"legal (?:action|case|dispute|trouble|battle|proceedings?)",
    r"court (?:case|date|hearing|order)",
    r"in court",
    r"(?<!free )trials?",
    r"arrest\w*",
    r"charged with",
    r"indict\w*",
    r"convict\w*",
    r"pleaded (?:guilty|not guilty)",
    r"plea deal",
    r"found guilty",
    r"felon\w*",
    r"misdemeanou?r",
    r"criminal record",
    r"probation",
    r"parole",
    r"jail",
    r"prison",
    r"incarcerat\w*",
    r"dui",
    r"dwi",
    r"restraining order",
    r"warrant",
    r"subpoena\w*",
    r"deport\w*",
    r"immigration",
    r"immigrant",
    r"visas?",
    r"green card",
    r"work permit",
    r"residence permit",
    r"residency permit",
    r"asylum",
    r"refugee status",
    r"undocumented",
    r"citizenship",
    r"naturali[sz]\w*",
    r"custody",
    r"divorc\w*",
    r"alimony",
    r"child support",
    r"bankrupt\w*",
    r"chapter (?:7|11|13)",
    r"foreclos\w*",
    r"evict\w*",
    r"under investigation",
    r"settlement (?:with|from)",
    r"visados?",
    r"divorcio",
    r"scheidung",
    r"divórcio",
    r"tribunal",
    r"aufenthaltstitel",
    r"permiso de residencia",
    r"titre de séjour",
]


def _compile(patterns: list[str]) -> re.Pattern[str]:
    """One expression of the word list, without case (`(?i)`, as `re.IGNORECASE`), compiled
    through the stored programs: `re` took 3-4 ms of CPU to translate the two at every cold
    start of the write function."""
    return regex_programs.compile(r"(?i)(?<![\w-])(?:" + "|".join(patterns) + r")(?![\w-])")


_MEDICAL_RE = _compile(_MEDICAL)
_LEGAL_RE = _compile(_LEGAL)
regex_programs.save()


def sensitive_topic(text: str) -> str | None:
    """`health_medical` or `legal_status` when the text names such a matter, else None. A
    fact that names both is medical: the stricter reading of the two is the same gate."""
    normalized = text.replace("\u2019", "'")
    if _MEDICAL_RE.search(normalized):
        return HEALTH_MEDICAL
    if _LEGAL_RE.search(normalized):
        return LEGAL_STATUS
    return None


def fact_topic(content: str, extractor_topic: str, request_topic: str | None) -> str:
    """The topic an extracted fact is written with: the caller's when given (it stands for
    every fact), else the gate's when the fact names a medical or legal matter, else the
    extractor's."""
    if request_topic is not None:
        return request_topic
    return sensitive_topic(content) or extractor_topic
