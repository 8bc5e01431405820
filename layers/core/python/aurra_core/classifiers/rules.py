"""The offline rules classifier: deterministic, free, explainable, precision first.

A supersession needs the same subject, the same attribute and a firm change signal.
Hedges, additive words ("also", "another", "second") and reversions to the old value never
supersede; restatements are duplicates. Confidences are calibrated so that >= 0.85 is only
reached when every one of those signals agrees. The reason names the signals that decided.
"""

from __future__ import annotations

import re

from aurra_core.classifiers.base import Candidate, Classification, ClassifierVerdict
from aurra_core.models import Verdict
from aurra_core.text import STOPWORDS, content_terms, normalize, stem, words

MODEL_ID = "aurra-rules-v1"

_HEDGES = re.compile(
    r"\b(thinking (about|of)|consider(s|ing)?|may|might|maybe|perhaps|possibly|probably|plan(s|ning)? to|"
    r"want(s|ing)? to|would like|hop(e|es|ing) to|could|not sure|undecided|looking into|exploring|"
    r"debating|interested in|torn between|leaning towards?|if\b)"
)
_ADDITIVE = re.compile(
    r"\b(also|additionally|another|second|third|as well|in addition|besides|plus|both|too)\b"
)
_REVERSION = re.compile(r"\b(went back to|switched back to|back to using|returned to|reverted to|back on)\s+([\w\-\.\+#]+)")
_CHANGE = re.compile(
    r"\b(switch(ed|es|ing)?|mov(ed|es|ing)|relocat(ed|es|ing)|chang(ed|es|ing)|now|no longer|anymore|"
    r"any more|instead|replac(ed|es|ing)|upgrad(ed|es|ing)|downgrad(ed|es|ing)|cancel(l)?(ed|s|ing)?|"
    r"quit|left|stopp(ed|ing)|became|become|promoted|renamed|sold|ended|dropp(ed|ing)|gave up|"
    r"transferred|joined|started (using|working)|has been using|is using|uses? .* (daily|primary|main)|"
    r"updated|increased|decreased|reduced|expanded|grew|down to|up to|went from|from \S+ to|"
    r"divorced|married|retired|resigned|hired|fired|laid off|converted|migrated|adopted|took over)\b"
)
_NEGATION_OF_OLD = (
    r"\b(from|away from|instead of|no longer (uses?|has|is|at|in|with|on)?|not .* anymore|replaced|"
    r"stopped using|quit|left|cancel(l)?ed|dropped|gave up( on)?|moved out of|ditched)\s+(the\s+)?{term}\b"
)
_NUMBER = re.compile(r"\b\d[\d,\.]*\b")
_SUBJECT_WORDS = frozenset({"user", "i", "we", "customer", "client", "they", "my", "our", "he", "she"})
# Attributes that hold one value at a time: a new value replaces the old.
_SINGLE_VALUED = frozenset(
    stem(w)
    for w in """editor ide lives live living based city address moved home works work working employer job
    title role position plan tier subscription seats seat licenses timezone email phone number name called
    status stage salary price budget renewal deadline manager champion owner lead os laptop primary main
    default favorite favourite prefers preferred diet vegetarian vegan version headcount employees""".split()
)


# Verbs and nouns that name the same attribute in different words ("uses" / "switched to").
_RELATIONS = {
    "usage": {"use", "uses", "used", "using", "switch", "switched", "switching", "editor", "ide", "tool", "runs", "run"},
    "location": {"live", "lives", "living", "move", "moved", "relocate", "relocated", "based", "city", "home", "address"},
    "employment": {"work", "works", "working", "job", "employer", "join", "joined", "company", "hired", "left", "quit"},
    "role": {"role", "title", "position", "promoted", "manager", "lead", "head", "director"},
    "plan": {"plan", "tier", "subscription", "upgrade", "upgraded", "downgrade", "downgraded", "subscribed"},
}
_STRONG_CHANGE = re.compile(
    r"\b(switch(ed|es)? (to|from|over)|moved|relocated|replaced|no longer|not .* anymore|upgraded|downgraded|"
    r"cancel(l)?ed|quit|resigned|retired|renamed|sold|changed (to|from|her|his|their|its)|now (uses?|lives?|works?|is|has))\b"
)


def _relations(text: str) -> set[str]:
    present = set(words(text))
    return {"relation:" + name for name, cues in _RELATIONS.items() if present & cues}


def _subject(text: str) -> str:
    """The fact's subject: its first word that is not filler, with the user's many names folded."""
    for w in words(text):
        if w in {"the", "a", "an", "customer", "mentioned", "note", "noted", "says", "said", "that"}:
            continue
        return "user" if w in _SUBJECT_WORDS or w == "users" else w
    return ""


def _same_subject(old: str, new: str) -> bool:
    # Possessives fold already ("Alice's editor" -> "alice"); objects never count as subjects.
    return _subject(old) == _subject(new) != ""


class RulesClassifier:
    model = MODEL_ID

    def classify(self, new_content: str, new_topic: str, candidates: list[Candidate], model: str) -> Classification:
        verdicts = [self.judge(c.content, new_content, c.id) for c in candidates]
        return Classification(verdicts=verdicts, model=MODEL_ID, details={"classifier": "rules"})

    def judge(self, old: str, new: str, candidate_id) -> ClassifierVerdict:
        verdict, confidence, reason = self._decide(old, new)
        return ClassifierVerdict(candidate_id, verdict, round(confidence, 2), reason)

    def _decide(self, old: str, new: str) -> tuple[Verdict, float, str]:
        old_n, new_n = normalize(old), normalize(new)
        old_terms, new_terms = set(content_terms(old)), set(content_terms(new))
        if not old_terms or not new_terms:
            return Verdict.NEW_FACT, 0.5, "too little content to compare"
        shared = old_terms & new_terms
        jaccard = len(shared) / len(old_terms | new_terms)
        if old_terms == new_terms or jaccard >= 0.9:
            return Verdict.DUPLICATE, 0.95 if old_terms == new_terms else 0.88, "restates the same words"

        same_subject = _same_subject(old, new)
        subject = _subject(new)
        attribute_shared = {t for t in shared if t != subject and t not in STOPWORDS}
        attribute_shared |= _relations(old) & _relations(new)

        if _HEDGES.search(new_n):
            if attribute_shared:
                return Verdict.SUPPLEMENTS, 0.8, "hedged language is not a commitment; both facts stay"
            return Verdict.NEW_FACT, 0.7, "hedged language about something else"

        reversion = _REVERSION.search(new_n)
        if reversion:
            target = stem(reversion.group(2))
            if target in old_terms:
                return Verdict.DUPLICATE, 0.8, f"reverted to '{reversion.group(2)}', which the old fact already says"
            tried = new_terms - {target} - old_terms
            if same_subject and attribute_shared and (old_terms - new_terms) != old_terms and not tried >= old_terms:
                return Verdict.CONTRADICTS, 0.9, f"went back to '{reversion.group(2)}', so the old value is no longer current"

        if _ADDITIVE.search(new_n):
            if attribute_shared:
                return Verdict.NEW_FACT, 0.8, "additive language ('also', 'another', 'second'): an independent fact"
            return Verdict.NEW_FACT, 0.85, "additive language about a different thing"

        if not same_subject:
            return Verdict.NEW_FACT, 0.75, "different subjects"

        old_only = old_terms - new_terms - {subject}
        negated = [
            t for t in old_only
            if re.search(_NEGATION_OF_OLD.format(term=re.escape(t) + r"\w*"), new_n)
        ]
        change = _CHANGE.search(new_n)
        single_valued = bool((old_terms | new_terms) & _SINGLE_VALUED)
        numbers_old, numbers_new = set(_NUMBER.findall(old_n)), set(_NUMBER.findall(new_n))

        if negated and (attribute_shared or change):
            return Verdict.CONTRADICTS, 0.93, f"the new fact says '{negated[0]}' no longer holds"
        strong = _STRONG_CHANGE.search(new_n)
        if strong and attribute_shared and old_only:
            return (Verdict.CONTRADICTS, 0.9,
                    f"firm change '{strong.group(0)}' on the same subject and attribute")
        if change and attribute_shared and single_valued and old_only:
            return (Verdict.CONTRADICTS, 0.88,
                    f"change signal '{change.group(0)}' on the same subject and attribute ({', '.join(sorted(attribute_shared))})")
        if numbers_old and numbers_new and numbers_old != numbers_new and attribute_shared and single_valued:
            return Verdict.CONTRADICTS, 0.87, "the same quantity has a new value"
        if change and (attribute_shared or single_valued):
            return Verdict.CONTRADICTS, 0.7, f"change signal '{change.group(0)}' but the attribute match is weak"
        if attribute_shared and new_terms > old_terms:
            return Verdict.SUPPLEMENTS, 0.85, "adds detail to the same fact"
        if attribute_shared:
            return Verdict.SUPPLEMENTS, 0.6, "related detail without a change signal"
        return Verdict.NEW_FACT, 0.7, "no shared attribute"
