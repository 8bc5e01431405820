"""The offline rules classifier: deterministic, free, explainable, precision first.

Each fact is read into a subject (the user, a named person or company, a thing, or someone
related to them: "User's sister"), the attributes it speaks about, typed values (money, dates,
times, counts, e-mail addresses, phone numbers), closed-class values (editors, diets, plans,
pronouns, lifecycle states...) and linguistic markers (hedges, additive words, past periods,
short stays, change words, words that end something, reversions).

A supersession needs the same subject, the same single-valued slot and a value the new fact
puts in place of the old one. Hedges, additive words, past periods and short stays never
supersede; another entity's facts are new facts; reversions are judged by which value is
current now; restatements are duplicates, wider or more specific restatements supplements.
Confidence reaches 0.85 only when the slot is known to hold one value at a time and the change
is explicit (a change word, a typed or closed-class value replaced in the same template, or the
old value said to be over). The reason names the signals that decided.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache
from uuid import UUID

from aurra_core.classifiers import rules_lexicon as lex
from aurra_core.classifiers.base import Candidate, Classification, ClassifierVerdict
from aurra_core.classifiers.rules_text import Fact, analyze, canon, tokenize
from aurra_core.models import Verdict

MODEL_ID = "aurra-rules-v2"


def _compile(patterns: list[str]) -> list[re.Pattern[str]]:
    return [re.compile(p) for p in patterns]


def _union(patterns: list[str]) -> list[re.Pattern[str]]:
    """One alternation: a single search finds the leftmost of many markers."""
    return [re.compile("|".join(f"(?:{p})" for p in patterns))]


_HEDGES = _union(lex.HEDGES)
_ADDITIVE = _union(lex.ADDITIVE)
_HISTORICAL = _union(lex.HISTORICAL)
_TEMPORARY = _union(lex.TEMPORARY)
_CHANGE = _union(lex.CHANGE_WORDS)
_ENDING = _compile(lex.ENDING)
_OLD_NEGATIVE = _union(lex.OLD_NEGATIVE)
_REVERSION = _compile(lex.REVERSION)
_TRIED = _compile(lex.TRIED)
_SUBSET = _union(lex.SUBSET)
_REFINEMENT = _union(lex.REFINEMENT)

_STRUCTURAL = frozenset({",", ";", ":", "(", ")", '"', "!", "?", "'s"})
_NEGATION_TERMS = frozenset(
    {
        "not",
        "no",
        "never",
        "nolonger",
        "without",
        "none",
        "anymore",
        "stop",
        "quit",
        "cancel",
        "paidoff",
        "disabled",
        "avoid",
    }
)
_FRAME_STEMS = frozenset(canon(w)[0] for w in lex.FRAME_WORDS) | frozenset(
    {
        "be",
        "have",
        "us",
        "use",
        "get",
        "go",
        "do",
        "make",
        "take",
        "keep",
        "hold",
        "say",
        "mention",
        "note",
        "currently",
    }
)
_LOW_INFO_STEMS = frozenset(canon(w)[0] for w in lex.LOW_INFO) | frozenset(lex.LOW_INFO)
_BOUNDARY = re.compile(
    r"\s(?:for|since|after|because|starting|from|as|but|so|when|while|until|last|this|next|on|with|and|"
    r"in order|due to|which|who|where|at the|full|fulltime|instead|now|then|before|through|via|to save|to get)\b|[,;:.()\"]"
)
_CLASS_NOUNS = {
    "editor": {"editor", "ide"},
    "browser": {"browser"},
    "os": {"os", "system"},
    "language": {"languag"},
    "diet": {"diet"},
    "plan": {"plan"},
    "payment": {"card", "payment", "method", "pay"},
    "car_make": {"car"},
    "laptop_model": {"laptop"},
    "phone_model": {"phon"},
    "pronoun": {"pronoun"},
    "timezone": {"timezon", "time"},
}
_GENERIC_VALUE_WORDS = frozenset(
    canon(w)[0]
    for w in """elementary school high middle university college academy bank credit union company
    corp inc labs lab llc ltd group street avenue road city town the a an""".split()
)
_STRONG_CHANGE = re.compile(
    r"\b(?:now|nowadays|anymore|nolonger|fromnowon|instead|switch\w*|mov(?:ed|es|ing|e)|relocat\w*|changed|changes|changing|change (?:to|from|of|in)|"
    r"replac\w*|upgrad\w*|downgrad\w*|migrat\w*|transferr\w*|promoted|renamed?|went (?:up|down)|raised|lowered|"
    r"increased|decreased|expanded|grew to|shrank|reduced|cut to|bumped|pushed|postponed|rescheduled|delayed|"
    r"brought forward|slipped|slid|shifted|put (?:\w+ ){0,3}on|reissued|became|turned|got (?:a raise|engaged|married|divorced|promoted|a new)|started a new|"
    r"new|joined|correction|actually|updated?|converted|since|starting|as of|effective|raise|welcomed|signed|"
    r"from (?:dt|mon|wd|now|today|next)_?\w*)\b"
)


# ---------------------------------------------------------------------------------------------
# Small helpers.


def _first(patterns: list[re.Pattern[str]], text: str) -> re.Match[str] | None:
    for p in patterns:
        m = p.search(text)
        if m:
            return m
    return None


def _terms(text: str) -> list[str]:
    out: list[str] = []
    for tok in tokenize(text):
        if tok in _STRUCTURAL or tok in lex.STOPWORDS:
            continue
        out.extend(c for c in canon(tok) if c not in lex.STOPWORDS)
    return out


def _cut(phrase: str, max_words: int = 5) -> str:
    m = _BOUNDARY.search(" " + phrase)
    if m:
        phrase = (" " + phrase)[: m.start()]
    return " ".join(phrase.split()[:max_words])


_HYPERNYMS = {canon(k)[0]: {canon(v)[0] for v in vs} for k, vs in lex.HYPERNYMS.items()}
_EVENT_STEMS = frozenset(canon(w)[0] for w in lex.EVENT_NOUNS)
_AGENT_NOUNS = frozenset(
    """doctor vet dentist therapist psychiatrist physician lawyer accountant coach bank
    landlord school employer boss manager hr it admin pharmacist""".split()
)
_UNIVERSAL = re.compile(r"\b(?:all|every|any|everything|anything|each|entire|whole)\b")


def _expand(terms: set[str]) -> set[str]:
    """Terms plus their hypernyms: "coffee" also counts as "caffeine"."""
    out = set(terms)
    for t in terms:
        out |= _HYPERNYMS.get(t, set())
    return out


def _subject_terms(f: Fact) -> set[str]:
    s = f.subject
    return (
        set(s.key)
        | set(s.relations)
        | {canon(w)[0] for w in s.apposition}
        | {"user", "customer", "client", "i"}
    )


def _body(f: Fact) -> set[str]:
    """What the fact says about its subject: content terms less the subject and generic verbs."""
    body = f.memo.get("body")
    if body is None:
        subject = _subject_terms(f)
        body = f.memo["body"] = frozenset(
            t for t in f.terms if t not in subject and t not in _FRAME_STEMS and t not in lex.PRINCIPAL_WORDS
        )
    return set(body)


def _core(f: Fact) -> set[str]:
    core = {t for t in _body(f) if t not in _LOW_INFO_STEMS}
    if any(t.startswith("tu_") for t in core):
        core = {t for t in core if not t.startswith("tm_")}
    return core


def _has_neg(terms: set[str]) -> bool:
    return bool(terms & _NEGATION_TERMS)


# ---------------------------------------------------------------------------------------------
# Subjects.


def _names_in(f: Fact) -> set[str]:
    return {canon(n)[0] for n in f.names}


def subject_relation(o: Fact, n: Fact) -> tuple[str, str]:
    """same | compatible | describes | different, with a short reason."""
    so, sn = o.subject, n.subject
    o_terms, n_terms = o.term_set | _names_in(o), n.term_set | _names_in(n)
    if (
        sn.relations
        and sn.relations[-1] in _AGENT_NOUNS
        and not so.relations
        and (re.search(r"\b(?:them|him|her|the user|the customer)\b", n.text) or (_body(n) & _body(o)))
    ):
        # "The vet put the cat on a wet-food diet": the vet acts on the subject's affairs
        return "compatible", f"the {sn.relations[-1]} acts on the subject's behalf"
    if so.relations != sn.relations:
        if sn.relations and not so.relations:
            rel = sn.relations[-1]
            if rel in o_terms or ({canon(a)[0] for a in sn.apposition} & o_terms):
                return "describes", f"the new fact is about the {rel} the old one mentions"
        if so.relations and sn.kind == "name" and set(sn.key) & {canon(a)[0] for a in so.apposition}:
            return "same", "same person named in both"
        if so.relations and not sn.relations and sn.kind in ("none", "pronoun") and not sn.key:
            return "compatible", "subject left implicit"
        who_o = "'s ".join(("the subject", *so.relations)) if so.relations else "the subject"
        who_n = "'s ".join(("the subject", *sn.relations)) if sn.relations else "the subject"
        return "different", f"different people ({who_o} vs {who_n})"
    kinds = {so.kind, sn.kind}
    if "none" in kinds or "pronoun" in kinds:
        return "compatible", "subject left implicit"
    if so.kind == sn.kind == "principal":
        return "same", "same subject"
    if {so.kind, sn.kind} == {"principal", "name"}:
        name = sn if sn.kind == "name" else so
        other_terms = o.term_set if sn.kind == "name" else n.term_set
        if set(name.key) & other_terms:
            return "describes", "the new fact is about someone the old fact names"
    if so.kind == "name" and sn.kind == "name":
        if set(so.key) & set(sn.key):
            return "same", "same named subject"
        if set(sn.key) <= o_terms or set(so.key) <= n_terms:
            return "compatible", "the subject of one is named in the other"
        return (
            "different",
            f"different named subjects ({' '.join(sorted(so.key))} vs {' '.join(sorted(sn.key))})",
        )
    if so.kind == "thing" and sn.kind == "thing":
        if set(so.key) & set(sn.key):
            return "same", "same subject"
        if set(so.key) & n_terms or set(sn.key) & o_terms:
            return "compatible", "the subject of one appears in the other"
        return "different", "different subjects"
    if "thing" in kinds and "name" in kinds:
        thing, name = (so, sn) if so.kind == "thing" else (sn, so)
        if set(thing.key) & set(name.key):
            return "same", "same subject"
        other = n_terms if so.kind == "thing" else o_terms
        if set(name.key) & (o_terms if so.kind == "thing" else n_terms) or set(thing.key) & other:
            return "compatible", "the subject of one appears in the other"
        if len(thing.key) == 1:
            return "different", "different subjects"
        return "compatible", "subjects not clearly related"
    return "compatible", "subjects not clearly related"


def _named(f: Fact) -> set[str]:
    return {m.group(1) for m in re.finditer(r"\b(?:named|called) ([a-z]+)", f.text)}


def _slot_relation(o: Fact, n: Fact) -> str | None:
    """'qualifier' when the same kind of slot is qualified differently (work phone vs phone), 'attribute'
    when the facts set different attributes (mortgage rate vs car loan), None when they may be the same."""
    quals = {canon(q)[0] for q in lex.SLOT_QUALIFIERS}
    prim = {canon(q)[0] for q in lex.PRIMARY_QUALIFIERS} | {"favorit", "favourit"}
    so, sn = list(o.subject.slot), list(n.subject.slot)
    if so and sn and so[-1] == sn[-1] and (set(so) & quals) != (set(sn) & quals):
        return "qualifier"
    if so and sn and so[-1] != sn[-1] and so[-1] in sn[:-1] and sn[-1] not in _expand({so[-1]}):
        return "part"  # "User's phone" -> "User's phone case"
    if (
        so
        and sn
        and so[-1] != sn[-1]
        and so[-1] not in sn
        and sn[-1] not in so
        and not _fuzzy_overlap({so[-1]}, {sn[-1]})
        and not (_expand({so[-1]}) & _expand({sn[-1]}))
    ) and not (sn[-1] in o.term_set or so[-1] in n.term_set):
        if (set(sn) - prim - quals) & o.term_set:
            return "part"  # "User's phone" -> "User's phone case", "their team" -> "their Warsaw office"
        return "attribute"
    if sn and not so and len(sn) >= 2 and sn[-1] in o.term_set and (set(sn[:-1]) & quals) - o.term_set:
        return "qualifier"  # "a phone" vs "a work phone"
    ho = (set(so[:-1]) - prim - quals) | ({so[-1]} - prim) if so else set()
    hn = (set(sn[:-1]) - prim - quals) | ({sn[-1]} - prim) if sn else set()
    if ho and hn:
        if not (_expand(ho) & _expand(hn)) and not (hn & o.term_set) and not (ho & n.term_set):
            return "attribute"
    elif hn and not ho:
        known = o.term_set | _attr_cues(o) | _class_nouns(o)
        if not _fuzzy_overlap(_expand(hn), _expand(known)) and not (set(n.subject.slot) & o.term_set):
            return "attribute"
    elif ho and not hn:
        known = n.term_set | _attr_cues(n) | _class_nouns(n)
        if not _fuzzy_overlap(_expand(ho), _expand(known)) and not (set(o.subject.slot) & n.term_set):
            return "attribute"
    return None


_TYPED_NOUNS = {
    "em": {"email", "address"},
    "ph": {"phon", "number"},
    "dt": {"dat", "day"},
    "tm": {"time"},
    "mo": {"amount", "price", "cost"},
    "dm": {"expiry", "expir"},
    "pron": {"pronoun"},
}


def _attr_cues(f: Fact) -> set[str]:
    cues = {canon(c)[0] for a in f.attrs for c in lex.ATTRIBUTES.get(a, {}).get("cues", [])}
    return cues.union(*(_TYPED_NOUNS.get(k, set()) for k in f.typed))


def _class_nouns(f: Fact) -> set[str]:
    return set().union(*(_CLASS_NOUNS.get(c, set()) for c in f.classes)) if f.classes else set()


# ---------------------------------------------------------------------------------------------
# Values.

_FRAMES: dict[str, list[re.Pattern[str]]] = {
    "location": _compile(
        [
            r"\b(?:lives?|living|live|based|located|homebase|hometown|headquarters|settled)\s*(?:is |are )?(?:now |still )?(?:in|at|:|out in|is in|are in)?\s+(?P<v>[^,;.]+)",
            r"\b(?:moved|moving|relocated|relocating|relocates|moves)\s+(?:back\s+|all \w+ \w+ )?(?:to|into)\s+(?P<v>[^,;.]+)",
        ]
    ),
    "employer": _compile(
        [
            r"\b(?:works?|working|job|position|employed|started)\s+(?:at|for|by)\s+(?P<v>[^,;.]+)",
            r"\bjoined\s+(?P<v>[^,;.]+)",
            r"\b(?:engineer|manager|analyst|designer|developer|director|scientist|consultant|nurse|teacher|cto|ceo|cfo|cio|vp|officer|intern|associate)\s+(?:at|of)\s+(?P<v>[^,;.]+)",
        ]
    ),
    "manager": _compile(
        [
            r"\breports? to\s+(?P<v>[^,;.]+)",
            r"\b(?:manager|boss|supervisor)\s+(?:is|:)\s+(?:now\s+)?(?P<v>[^,;.]+)",
        ]
    ),
    "champion": _compile(
        [
            r"\bchampion\b[^:;]*?\b(?:is|:)\s+(?:now\s+)?(?P<v>[^,;.]+)",
            r"^(?P<v>[a-z]+ [a-z]+)\b[^;]*?\bis (?:now )?(?:our|their|the) (?:main |new |primary )?champion",
        ]
    ),
    "school": _compile(
        [r"\b(?:attends|attending|goes to|enrolled (?:at|in)|transferred to|studies at)\s+(?P<v>[^,;.]+)"]
    ),
    "bank": _compile(
        [
            r"\bbanks? (?:with|at)\s+(?P<v>[^,;.]+)",
            r"\b(?:accounts?|savings|money|checking) (?:to|at|with)\s+(?P<v>[^,;.]*?\b(?:bank|credit union))",
            r"\bbank (?:is|:)\s+(?P<v>[^,;.]+)",
        ]
    ),
    "name": _compile(
        [
            r"\b(?:name|surname|firstname) (?:is|:|to)\s+(?:now\s+)?(?P<v>[^,;.]+)",
            r"\b(?:goes by|go by|(?:is|are|be|was) (?:now )?(?:called|named)|renamed(?: to| as)?)\s+(?P<v>[^,;.]+)",
        ]
    ),
    "username": _compile([r"\b(?:username|handle|login) (?:is|:|to)\s+(?:now\s+)?(?P<v>[^,;.\s]+)"]),
    "role": _compile(
        [
            r"\b(?:promoted|appointed|named) (?:to |as )?(?:the )?(?P<v>[^,;.]+)",
            r"\b(?:title|role|position) (?:is|:)\s+(?:now\s+)?(?P<v>[^,;.]+)",
            r"\b(?:is|was|as) (?:a|an|the|their|our|his|her) (?P<v>(?:[a-z]+ ){0,3}(?:"
            + "|".join(sorted(lex.ROLE_NOUNS))
            + r")\b(?: (?:of|for) [a-z]+)?)",
        ]
    ),
}


# Frames whose slot holds one value and whose wording leaves no doubt about which slot it is.
_FIRM_FRAMES = frozenset({"location", "employer", "manager", "champion", "school", "bank"})


def frame_values(f: Fact) -> dict[str, set[str]]:
    cached = f.memo.get("frames")
    if cached is None:
        cached = f.memo["frames"] = _frame_values(f)
    return cached


def _frame_values(f: Fact) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for clause in re.split(r";", f.text):
        clause = clause.strip()
        for name, patterns in _FRAMES.items():
            for p in patterns:
                for m in p.finditer(clause):
                    value = _cut(m.group("v"))
                    terms = {t for t in _terms(value) if t not in {"now", "new", "still", "nowaday"}}
                    if terms:
                        out.setdefault(name, set()).update(terms)
    return out


def _broad_place(terms: set[str], raw: str) -> bool:
    places = lex.COUNTRIES | lex.REGIONS
    return bool(terms) and (
        all(t in places for t in terms) or any(p in raw for p in places if " " in p and p in raw)
    )


def _abandoned(n: Fact) -> set[str]:
    """Values the new fact names as left behind: "replaced the MacBook", "tried Emacs", "from Chrome"."""
    out: set[str] = set()
    for p in _ENDING + _TRIED:
        for m in p.finditer(n.text):
            group = "x" if "x" in p.groupindex else "a"
            out |= set(_terms(_cut(m.group(group), 4)))
    for m in re.finditer(
        r"\b(?:from|away from|after leaving|instead of) ([\w\-\.\+# ]+?)(?: to\b|,|;|$| and\b)", n.text
    ):
        out |= set(_terms(_cut(m.group(1), 4)))
    return out


def class_conflicts(o: Fact, n: Fact) -> list[tuple[str, set[str], set[str]]]:
    out = []
    abandoned_tokens = _abandoned(n)
    for cls in set(o.classes) & set(n.classes):
        mo, mn = o.classes[cls], n.classes[cls]
        current = {
            m
            for m in mn
            if not ({canon(w)[0] for w in m.split()} & abandoned_tokens or m.split()[0] in abandoned_tokens)
        }
        if current and not (mo & current) and current - mo:
            out.append((cls, mo, current))
    return out


_TYPED_KINDS = ("mo", "dt", "dm", "ph", "em", "hr", "tm", "tu", "wd", "pron", "pc", "dd", "qt", "ord")


def _age(f: Fact) -> set[str]:
    return {
        m.group(1)
        for m in re.finditer(
            r"\b(?:is|turned|turns|turning|aged?) (\d{1,3})(?: years? old)?(?=\s*(?:$|[,.;]|last|this|on|in|years|yesterday|today))",
            f.text,
        )
    }


def typed_conflicts(o: Fact, n: Fact) -> list[tuple[str, set[str], set[str]]]:
    out = []
    ot, nt = dict(o.typed), dict(n.typed)
    if "tu" in ot and "tu" in nt:
        ot.pop("tm", None)
        nt.pop("tm", None)
    for kind in _TYPED_KINDS:
        if kind in ot and kind in nt and not (ot[kind] & nt[kind]):
            out.append((kind, ot[kind], nt[kind]))
    ao, an = _age(o), _age(n)
    if ao and an and not (ao & an):
        out.append(("age", ao, an))
    for unit in set(o.counts) & set(n.counts):
        if not (o.counts[unit] & n.counts[unit]):
            out.append(
                (f"count of {unit}", {str(x) for x in o.counts[unit]}, {str(x) for x in n.counts[unit]})
            )
    return out


def template_conflict(o: Fact, n: Fact) -> tuple[list[str], list[str], list[str]] | None:
    """Same wording with one slot changed: (shared context, old slot, new slot)."""
    a = [t for t in o.terms if t not in _LOW_INFO_STEMS]
    b = [t for t in n.terms if t not in _LOW_INFO_STEMS]
    ops = [op for op in SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not ops:
        return None
    replaces = [op for op in ops if op[0] == "replace"]
    if len(replaces) != 1:
        return None
    _, i1, i2, j1, j2 = replaces[0]
    for tag, _k1, _k2, l1, _l2 in ops:
        if tag == "delete":
            return None
        if tag == "insert" and l1 < j1:
            return None  # an insertion before the slot changes the template
    context = [t for k, t in enumerate(a) if not i1 <= k < i2]
    old_slot, new_slot = a[i1:i2], b[j1:j2]
    if not context or set(old_slot) & set(new_slot):
        return None
    if _slot_kinds(old_slot) != _slot_kinds(new_slot[: len(old_slot) + 1]) and not (
        _slot_kinds(old_slot) <= _slot_kinds(new_slot)
    ):
        return None  # "at 9am" -> "ran long today": not a new value of the same kind
    return context, old_slot, new_slot


def _slot_kinds(slot: list[str]) -> set[str]:
    return {t.split("_")[0] if "_" in t else ("num" if t[0].isdigit() else "word") for t in slot}


def _single_valued_cue(terms: set[str]) -> str | None:
    for name, spec in lex.ATTRIBUTES.items():
        if spec["single"] and terms & {canon(c)[0] for c in spec["cues"]}:
            return name
    return None


# ---------------------------------------------------------------------------------------------
# The decision.


def _verdict(v: Verdict, confidence: float, reason: str) -> tuple[Verdict, float, str]:
    return v, confidence, reason


def decide(old: str, new: str) -> tuple[Verdict, float, str]:
    o, n = analyze(old), analyze(new)
    if not o.terms or not n.terms:
        return _verdict(Verdict.NEW_FACT, 0.5, "too little content to compare")
    relation, why = subject_relation(o, n)
    core_o, core_n = _core(o), _core(n)
    body_o, body_n = _body(o), _body(n)
    shared = body_o & body_n
    shared_wide = _expand(body_o) & _expand(body_n)

    if relation == "different":
        if shared:
            return _verdict(
                Verdict.NEW_FACT, 0.85, f"{why}: the same attribute of another entity is a new fact"
            )
        return _verdict(Verdict.NEW_FACT, 0.85, f"{why}")
    named_o, named_n = _named(o), _named(n)
    if named_o and named_n and not (named_o & named_n) and not _first(_CHANGE, n.text):
        return _verdict(
            Verdict.NEW_FACT, 0.85, f"a different one, named {sorted(named_n)[0]}, not {sorted(named_o)[0]}"
        )

    # Restatements.
    neg_parity = _has_neg(core_o) == _has_neg(core_n)
    ending = _ending(o, n)
    change = _STRONG_CHANGE.search(n.text)
    if core_o == core_n and neg_parity and relation != "describes":
        return _verdict(Verdict.DUPLICATE, 0.95, "restates the same content in other words")
    generalized = _UNIVERSAL.search(n.text) and not _UNIVERSAL.search(o.text)
    allowed = (
        _class_nouns(o)
        | _class_nouns(n)
        | set().union(set(), *(_HYPERNYMS.get(t, set()) for t in core_o & core_n))
    )
    if (
        core_n
        and (core_n - allowed) <= core_o
        and neg_parity
        and not ending
        and not change
        and relation != "describes"
        and not generalized
    ):
        return _verdict(Verdict.DUPLICATE, 0.88, "says nothing the old fact doesn't already say")
    if core_o and core_o <= core_n and neg_parity and not ending:
        extras = core_n - core_o
        if extras <= allowed and not change:
            return _verdict(
                Verdict.DUPLICATE, 0.88, "restates the old fact, naming only what kind of thing it is"
            )

    additive = _first(_ADDITIVE, n.text)
    counted = _count_growth(o, n)
    if additive and counted is None:
        return _verdict(
            Verdict.NEW_FACT,
            0.85 if not shared else 0.8,
            f"additive language ('{additive.group(0)}'): an independent fact alongside the old one",
        )

    hedge = _first(_HEDGES, n.text)
    if hedge:
        if (
            shared_wide
            or relation == "describes"
            or (relation == "same" and o.subject.kind in ("thing", "name"))
        ):
            return _verdict(
                Verdict.SUPPLEMENTS,
                0.8,
                f"hedged language ('{hedge.group(0)}') is not a commitment; the old fact stands",
            )
        return _verdict(Verdict.NEW_FACT, 0.7, f"hedged language ('{hedge.group(0)}') about something else")

    reverted = _reversion(o, n)
    if reverted is not None:
        return reverted

    if counted is not None:
        return counted

    historical = _first(_HISTORICAL, n.text)
    if historical is None and not change and not re.search(r"\b(?:now|currently|still)\b", n.text):
        historical = _past_state(o, n)
    if historical is None and not change and not re.search(r"\bin yr_\d{4}\b", o.text):
        historical = re.search(r"\b(?:was|were|did|ran|had|\w+ed) (?:[\w']+ ){0,5}?in yr_\d{4}\b", n.text)
    if historical and not re.search(r"\bnow\b|\bcurrently\b|\bsince then\b", n.text):
        if body_o and body_o <= n.term_set:
            return _verdict(
                Verdict.SUPPLEMENTS, 0.75, f"a past period ('{historical.group(0)}') of the same fact"
            )
        return _verdict(
            Verdict.NEW_FACT,
            0.85,
            f"describes a past period ('{historical.group(0)}'), not the current state",
        )

    place_like = {"location", "timezone"} & o.attrs or "location" in frame_values(o)
    temporary = _first(_TEMPORARY, n.text)
    if temporary and place_like and not ending:
        return _verdict(
            Verdict.NEW_FACT, 0.85, f"a short stay ('{temporary.group(0)}') doesn't change where they live"
        )

    subset = re.search(
        r"\b(?:of|out of|among|part of|some of|one of) (?:those|these|them|the|its|their|our|his|her) (\w+)",
        n.text,
    )
    if subset and canon(subset.group(1))[0] in o.term_set | {"them", "those", "these"}:
        return _verdict(
            Verdict.SUPPLEMENTS, 0.8, f"about a part of what the old fact describes ('{subset.group(0)}')"
        )

    slot = _slot_relation(o, n)
    if slot == "qualifier":
        return _verdict(
            Verdict.NEW_FACT, 0.85, "a differently qualified slot (e.g. work vs personal) holds its own value"
        )
    if slot == "attribute":
        return _verdict(Verdict.NEW_FACT, 0.8, "a different attribute of the same subject")
    if slot == "part" and not ending:
        return _verdict(Verdict.SUPPLEMENTS, 0.75, "about a part of what the old fact names")

    if ending:
        term, phrase = ending
        return _verdict(
            Verdict.CONTRADICTS,
            0.95 if relation == "same" else 0.9,
            f"the new fact ends what the old one states ('{phrase}' covers '{term}')",
        )

    completed = _completion(o, n)
    if completed:
        return _verdict(Verdict.CONTRADICTS, 0.9, completed)

    transition = _state_transition(o, n, relation)
    if transition:
        return _verdict(Verdict.CONTRADICTS, 0.9 if change or relation == "same" else 0.86, transition)

    conflict = _value_conflict(o, n, relation, change)
    if conflict is not None:
        return conflict

    # No change: how do the two relate?
    refinement = _first(_REFINEMENT, n.text)
    if core_o and core_o <= core_n:
        if refinement:
            return _verdict(
                Verdict.SUPPLEMENTS, 0.9, f"the same fact made more specific ('{refinement.group(0)}')"
            )
        return _verdict(Verdict.SUPPLEMENTS, 0.85, "keeps everything the old fact says and adds detail")
    if relation == "describes":
        return _verdict(Verdict.SUPPLEMENTS, 0.8, why)
    if set(n.subject.slot) & (body_o - set(o.subject.slot)):
        return _verdict(Verdict.SUPPLEMENTS, 0.8, "describes the thing the old fact names")
    values_o = frame_values(o)
    for name, vo in values_o.items():
        if vo and vo <= n.term_set:
            return _verdict(Verdict.SUPPLEMENTS, 0.75, f"the old {name} still holds; the new fact adds to it")
    if shared_wide - {"like", "prefer", "favorit"}:
        word = sorted(shared_wide - {"like", "prefer", "favorit"})[0]
        return _verdict(Verdict.SUPPLEMENTS, 0.65, f"related detail about '{word}' without a change")
    families_o = {lex.ATTRIBUTES[a]["family"] for a in o.attrs if a in lex.ATTRIBUTES}
    families_n = {lex.ATTRIBUTES[a]["family"] for a in n.attrs if a in lex.ATTRIBUTES}
    if (
        set(o.classes) & set(n.classes)
        or _generic_domain(o, n)
        or (families_o & families_n and relation == "same")
    ):
        return _verdict(Verdict.SUPPLEMENTS, 0.6, "same kind of fact, no sign that either replaces the other")
    return _verdict(Verdict.NEW_FACT, 0.75, "no shared attribute: an independent fact")


_PAST_STATE = {
    "lived": "liv",
    "worked": "work",
    "owned": "own",
    "studied": "study",
    "attended": "attend",
    "drove": "drive",
    "used": "us",
    "played": "play",
    "taught": "teach",
    "managed": "manag",
    "led": "lead",
    "stayed": "stay",
    "resided": "liv",
    "belonged": "belong",
    "dated": "dat",
}


_PAST_STATE_RE = re.compile(r"\b(" + "|".join(_PAST_STATE) + r")\b")


def _past_state(o: Fact, n: Fact) -> re.Match[str] | None:
    """'lived in Marseille' next to 'live in Lyon': the past tense of the old fact's own verb is history."""
    for m in _PAST_STATE_RE.finditer(n.text):
        if _PAST_STATE[m.group(1)] in o.term_set and not re.search(
            r"\b(?:has|have|had) " + m.group(1), n.text
        ):
            return m
    was = re.search(r"\b(?:was|were) (?:a|an|the|in|at|on|with|based|employed)\b", n.text)
    if was and re.search(r"\b(?:is|are|am)\b", o.text) and not re.search(r"\b(?:was|were) \w+ed\b", n.text):
        return was
    return None


def _generic_domain(o: Fact, n: Fact) -> bool:
    wide_o, wide_n = _expand(_body(o)), _expand(_body(n))
    return bool((wide_o & wide_n) - {"like", "prefer"})


def _fuzzy_overlap(a: set[str], b: set[str]) -> set[str]:
    """Terms of b that a names, counting "member"/"membership" as one word."""
    out = a & b
    for x in a - out:
        for y in b:
            if len(x) >= 5 and len(y) >= 5 and (x.startswith(y) or y.startswith(x)):
                out.add(y)
    return out


def _ending(o: Fact, n: Fact) -> tuple[str, str] | None:
    """The new fact says the thing the old one asserts is over: (old term, phrase)."""
    old_values = _expand(_body(o) | {canon(a)[0] for a in o.subject.apposition}) - {
        "year",
        "day",
        "month",
        "week",
    }
    if o.subject.kind == "name":
        old_values -= set(o.subject.key)
    old_negative = _first(_OLD_NEGATIVE, o.text)
    for clause in re.split(r";|,? but ", n.text):
        for p in _ENDING:
            for m in p.finditer(clause):
                phrase = _cut(m.group("x"), 4)
                x = set(_terms(phrase)) - _FRAME_STEMS
                hit = _fuzzy_overlap(x, old_values)
                if not hit:
                    continue
                if old_negative:
                    continue  # the old fact already said it was gone: they agree
                return sorted(hit)[0], m.group(0).strip()
    return None


def _completion(o: Fact, n: Fact) -> str | None:
    ongoing = set(o.tokens) & lex.ONGOING_WORDS
    done = re.search(
        r"\b(?:finished|completed|defended|graduated|is done|are done|was done|wrapped up|gave birth|"
        r"healed|came off|ended|concluded)\b",
        n.text,
    )
    if not ongoing or not done:
        return None
    anchor = (_body(o) & _body(n)) - {"now"}
    if not anchor:
        return None
    return (
        f"'{sorted(ongoing)[0]}' in the old fact is an ongoing state that the new one says ended "
        f"('{done.group(0)}', same '{sorted(anchor)[0]}')"
    )


def _state_transition(o: Fact, n: Fact, relation: str) -> str | None:
    for cycle in set(o.states) & set(n.states):
        so, sn = o.states[cycle], n.states[cycle]
        if so & sn:
            continue
        state_words = set(lex.STATES[cycle]) | {canon(w)[0] for w in lex.STATES[cycle]}
        anchor = (_body(o) & _body(n)) - state_words
        if anchor or relation == "same" or o.subject.key & n.subject.key:
            return f"the {cycle} state changed from {sorted(so)[0]} to {sorted(sn)[0]}"
    return None


def _reversion(o: Fact, n: Fact) -> tuple[Verdict, float, str] | None:
    m = _first(_REVERSION, n.text)
    if not m:
        return None
    target = set(_terms(_cut(m.group("t"), 3))) - _FRAME_STEMS
    if not target:
        return None
    tried: set[str] = set()
    for p in _TRIED:
        for t in p.finditer(n.text):
            tried |= set(_terms(_cut(t.group("a"), 3))) - _FRAME_STEMS
    previous: set[str] = set()
    current = _body(o)
    fm = re.search(r"\bfrom ([\w\-\.\+# ]+?) to ([\w\-\.\+# ]+)", o.text)
    if fm:
        previous = set(_terms(_cut(fm.group(1), 3)))
        current = set(_terms(_cut(fm.group(2), 3)))
    else:
        am = re.search(
            r"\b(?:moved away from|having left|after leaving|switched from|gave up|quit) ([\w\-\.\+# ]+)",
            o.text,
        )
        if am:
            previous = set(_terms(_cut(am.group(1), 3)))
            current = current - previous
        sm = re.search(
            r"\b(?:switched|moved|changed|migrated|converted)\b(?: \w+){0,3} to ([\w\-\.\+# ]+)", o.text
        )
        if sm:
            current = set(_terms(_cut(sm.group(1), 3)))
    current -= _FRAME_STEMS
    word = m.group(0).split()[0]
    if target & previous and not target & current:
        return (
            Verdict.CONTRADICTS,
            0.93,
            f"reversion: '{m.group(0).strip()}' returns to what the old fact says was left behind",
        )
    if current and (target <= current or current <= target):
        return (
            Verdict.SUPPLEMENTS,
            0.85,
            f"reversion to the old value ('{m.group(0).strip()}'): the old fact still holds after a detour",
        )
    if tried & current:
        return (
            Verdict.CONTRADICTS,
            0.92,
            f"reversion: the old value '{sorted(tried & current)[0]}' was tried and abandoned ('{word} ...')",
        )
    if current and current <= n.term_set:
        return (
            Verdict.CONTRADICTS,
            0.88,
            f"reversion: '{m.group(0).strip()}' replaces the old value, which the new fact names as abandoned",
        )
    for cls in set(o.classes) & set(n.classes):
        targeted = {x for x in n.classes[cls] if canon(x.split()[0])[0] in target}
        if o.classes[cls] and targeted and not (o.classes[cls] & targeted):
            return (Verdict.CONTRADICTS, 0.88, f"reversion to a different {cls} than the old fact names")
    return (
        Verdict.SUPPLEMENTS,
        0.6,
        f"reversion ('{m.group(0).strip()}') that doesn't clearly touch the old value",
    )


def _count_growth(o: Fact, n: Fact) -> tuple[Verdict, float, str] | None:
    """'has 2 kids' -> 'welcomed a third baby': the stated count changed."""
    ordinals = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
    for m in re.finditer(r"\b(second|third|fourth|fifth|sixth) (?:\w+ )?(\w+)", n.text):
        unit = canon(m.group(2))[0]
        if unit in o.counts and ordinals[m.group(1)] - 1 in o.counts[unit]:
            old = ordinals[m.group(1)] - 1
            return (
                Verdict.CONTRADICTS,
                0.88,
                f"the old fact counts {old} ({unit}); a {m.group(1)} one makes {old + 1}",
            )
    return None


def _switch_value(o: Fact, n: Fact) -> tuple[str, set[str], set[str]] | None:
    """ "switched to X", "replaced ... with X" on a shared anchor, X new and the old value gone."""
    m = re.search(
        r"\b(?:switched|changed|moved|converted|migrated|upgraded|downgraded|went)(?: [\w']+){0,3}? "
        r"(?:over |back )?(?:to|for) (?P<v>[\w\-\.\+# ]+)|\breplaced\b.*?\bwith (?P<w>[\w\-\.\+# ]+)",
        n.text,
    )
    if not m:
        return None
    body_o, body_n = _body(o), _body(n)
    value = set(_terms(_cut(m.group("v") or m.group("w"), 4))) - _FRAME_STEMS - body_o
    anchor = (body_o & body_n) - value
    old_value = body_o - anchor - {"now"}
    if not anchor:
        # "prefers tea" -> "switched to coffee": two things of one kind
        anchor = (_expand(old_value) & _expand(value)) - old_value - value
    if not value or not anchor or not old_value or old_value <= n.term_set:
        return None
    return m.group(0).split()[0], anchor, value


def _antonym(o: Fact, n: Fact) -> tuple[str, str] | None:
    to, tn = o.term_set, n.term_set
    for a, b in lex.ANTONYMS:
        a, b = canon(a)[0], canon(b)[0]
        for x, y in ((a, b), (b, a)):
            if x in to and y in tn and x not in tn and y not in to:
                return x, y
    return None


def _value_conflict(
    o: Fact, n: Fact, relation: str, change: re.Match[str] | None
) -> tuple[Verdict, float, str] | None:
    """A single-valued slot with a new value in place of the old one."""
    if _first(_SUBSET, n.text) and (set(o.counts) or o.typed.get("mo") or re.search(r"\d", o.text)):
        return (Verdict.SUPPLEMENTS, 0.8, "a part of the old quantity, not a new value of it")
    marker = change.group(0) if change else None
    one_off = re.search(
        r"\b(?:today|tomorrow|tonight|yesterday|this (?:morning|afternoon|evening|time|once))\b(?: only)?|"
        r"\bonly (?:today|tomorrow|this week|this time|once)\b|\bjust this (?:week|time|once)\b|\bone[- ]off\b|"
        r"\bfor (?:today|tomorrow)\b|\bso far\b",
        n.text,
    )
    if one_off and not marker:
        return None
    if one_off and marker and re.search(r"\bonly\b|\bjust\b|\bone[- ]off\b", one_off.group(0)):
        return (
            Verdict.NEW_FACT,
            0.8,
            f"a one-off exception ('{one_off.group(0)}') leaves the standing fact in place",
        )
    shared_attrs = o.attrs & n.attrs
    template = template_conflict(o, n)
    same_thing = (
        relation == "same" and o.subject.kind in ("thing", "name") and bool(o.subject.key & n.subject.key)
    )
    things_o = set(o.subject.key) if o.subject.kind == "thing" else set()
    things_n = set(n.subject.key) if n.subject.kind == "thing" else set()
    anchor = ((_body(o) | things_o) & (_body(n) | things_n)) - {t for t in _body(o) if "_" in t} - {"now"}
    findings: list[tuple[float, str]] = []

    for cls, mo, mn in class_conflicts(o, n):
        single = (
            cls in lex.SINGLE_VALUED_CLASSES
            or cls == "timezone"
            or (cls == "language" and "reply_language" in shared_attrs)
        )
        label = f"{cls} {'/'.join(sorted(mo))} -> {'/'.join(sorted(mn))}"
        if single and marker:
            findings.append((0.93, f"{label} with '{marker}'"))
        elif single and template is not None:
            findings.append((0.88, f"{label} in the same wording: one value at a time"))
        elif single:
            findings.append((0.8, f"{label}"))
        elif marker:
            findings.append((0.87, f"{label} with '{marker}'"))
        else:
            findings.append((0.7, f"{label}, but both can hold together"))

    events_o, events_n = o.term_set & _EVENT_STEMS, n.term_set & _EVENT_STEMS
    typed = typed_conflicts(o, n)
    kinds = {k for k, _, _ in typed}
    for kind, vo, vn in typed:
        implied = kind in ("ph", "em", "pron", "age", "hr") or kind.startswith("count of")
        anchored = implied or bool(shared_attrs) or bool(anchor) or same_thing
        if kind in ("dd", "pc"):
            anchored = anchored and bool(shared_attrs)
        if (
            kind in ("dt", "tm", "tu", "wd", "dd", "qt", "mon")
            and events_o != events_n
            and (events_o or events_n)
        ):
            anchored = False  # "renewal call on the 10th" is another event than the renewal
        if not anchored:
            continue
        label = f"{_KIND_NAMES.get(kind, kind)} {'/'.join(sorted(vo))} -> {'/'.join(sorted(vn))}"
        scoped = (
            kind in ("tm", "tu", "hr")
            and "wd" in n.typed
            and "wd" not in o.typed
            and re.search(
                r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days\b|\b(?:every|on) (?:mon|tue|wed|thu|fri|sat|sun)|weekends?\b",
                n.raw.lower(),
            )
        )
        if scoped:
            findings.append((0.7, f"{label}, but only on some days"))
        elif kind == "mon" and not marker:
            continue
        elif (
            kind in ("wd", "tm", "tu")
            and not marker
            and template is None
            and not ({"wd"} <= kinds and kinds & {"tm", "tu"} and (len(anchor) >= 2 or same_thing))
        ):
            findings.append((0.8, f"{label}"))
        elif marker:
            findings.append((0.93, f"{label} with '{marker}'"))
        else:
            findings.append((0.88, f"{label} in the same slot"))

    fo, fn = frame_values(o), frame_values(n)
    for name in set(fo) & set(fn):
        vo = fo[name] - _GENERIC_VALUE_WORDS
        vn = fn[name] - _GENERIC_VALUE_WORDS
        if not vo or not vn or vo <= vn or vn <= vo:
            continue
        if name == "location" and (_broad_place(vo, o.text) or _broad_place(vn, n.text)):
            continue
        if name != "role" and vo & vn:
            continue
        label = f"{name} {' '.join(sorted(vo))} -> {' '.join(sorted(vn))}"
        if marker:
            findings.append((0.93, f"{label} with '{marker}'"))
        elif name in _FIRM_FRAMES or template is not None:
            findings.append((0.88, f"{label}: one value at a time"))
        else:
            findings.append((0.8, f"{label}"))

    if not findings:
        switched = _switch_value(o, n)
        if switched:
            verb, anchor_terms, value = switched
            findings.append(
                (0.88, f"'{verb}' to {' '.join(sorted(value))} for the same {' '.join(sorted(anchor_terms))}")
            )
    if not findings and template is not None and not _first(_REFINEMENT, n.text) and events_o == events_n:
        context, old_slot, new_slot = template
        cue = _single_valued_cue(set(context) - {"seat", "licens"})
        label = f"same wording, '{' '.join(old_slot)}' -> '{' '.join(new_slot)}'"
        places = lex.COUNTRIES | lex.REGIONS
        equivalent = any(o.classes.get(c) and o.classes.get(c) == n.classes.get(c) for c in o.classes)
        if (
            not (set(old_slot) & places or set(new_slot) & places)
            and not equivalent
            and len(new_slot) <= 4
            and len(old_slot) <= 4
        ):
            if cue and marker:
                findings.append((0.92, f"{label} in a single-valued {cue} slot, with '{marker}'"))
            elif cue:
                findings.append((0.87, f"{label} in a single-valued {cue} slot"))
            elif marker:
                findings.append((0.86, f"{label}, with '{marker}'"))
    if not findings and marker:
        pair = _antonym(o, n)
        if pair and anchor:
            findings.append(
                (0.86, f"'{pair[0]}' became '{pair[1]}' for the same {sorted(anchor)[0]}, with '{marker}'")
            )

    if not findings:
        return None
    # The old value is still stated as current: nothing was replaced.
    values = fo.get("location") or fo.get("employer") or set()
    if values and values <= n.term_set and not _abandoned(n) & values:
        return (Verdict.SUPPLEMENTS, 0.75, "the old value is still stated")
    confidence, label = max(findings)
    if relation == "describes":
        return None
    elif relation == "compatible":
        confidence = min(confidence, 0.9 if marker else 0.86)
    if confidence < 0.75:
        return (Verdict.SUPPLEMENTS, 0.6, f"different values ({label}) in a slot that can hold several")
    return (Verdict.CONTRADICTS, confidence, f"new value: {label}")


_KIND_NAMES = {
    "mo": "amount",
    "dt": "date",
    "dm": "expiry",
    "ph": "phone number",
    "em": "e-mail",
    "hr": "hours",
    "tm": "time",
    "tu": "time",
    "wd": "days",
    "pron": "pronouns",
    "pc": "rate",
    "dd": "day",
}


@lru_cache(maxsize=4096)
def _decide_cached(old: str, new: str) -> tuple[Verdict, float, str]:
    verdict, confidence, reason = decide(old, new)
    return verdict, max(0.0, min(1.0, confidence)), reason


class RulesClassifier:
    model = MODEL_ID

    def classify(
        self, new_content: str, new_topic: str, candidates: list[Candidate], model: str
    ) -> Classification:
        verdicts = [self.judge(c.content, new_content, c.id) for c in candidates]
        return Classification(verdicts=verdicts, model=MODEL_ID, details={"classifier": "rules"})

    def judge(self, old: str, new: str, candidate_id: UUID) -> ClassifierVerdict:
        verdict, confidence, reason = _decide_cached(old, new)
        return ClassifierVerdict(candidate_id, verdict, round(confidence, 2), reason)
